//! Operator do-not-crawl rules before every request (FF13, WFM10).
//!
//! The rules are kept with the store's version of them and read again whenever the version
//! moved, which every process sharing the store sees at once: a rule added or removed by the
//! API, the UI or another command governs the next request decision here (one row read per
//! decision). The matching itself is `tidings_policy::blocklist`. Every request the crawler
//! makes asks: the feed, its robots.txt and each redirect hop of either, once when the read
//! comes to it and again once its host's turn is taken, just before it is sent.

use crate::{CrawlError, Crawler};
use std::sync::Arc;
use tidings_model::FeedId;
use tidings_policy::{Block, BlockKind, BlockList};
use tidings_store::StoredBlock;
use url::Url;

/// The rules as read, with the store's version of them then.
pub(crate) type Kept = (i64, Arc<BlockList>);

/// A stored rule read back, or `None` (logged) for a kind this version does not know.
pub fn block_of(stored: StoredBlock) -> Option<Block> {
    match BlockKind::parse(&stored.kind) {
        Ok(kind) => Some(Block {
            id: stored.id,
            kind,
            value: stored.value,
            reason: stored.reason,
            created_at: stored.created_at,
        }),
        Err(e) => {
            tracing::warn!(block_id = stored.id, error = %e, "do-not-crawl rule ignored");
            None
        }
    }
}

/// The rules of `stored`, those of kinds this version knows.
pub fn list_of(stored: Vec<StoredBlock>) -> BlockList {
    BlockList::new(stored.into_iter().filter_map(block_of).collect())
}

impl Crawler {
    /// Read the do-not-crawl rules from the store again.
    pub async fn reload_blocks(&self) -> Result<Arc<BlockList>, CrawlError> {
        // The version first: a change made while the list is read moves it past what is
        // kept, so the next decision reads again.
        let version = self.store.blocks_version().await?;
        let stored = self.store.blocks().await?;
        let list = Arc::new(list_of(stored));
        *self.blocks.lock().unwrap_or_else(|e| e.into_inner()) = Some((version, list.clone()));
        Ok(list)
    }

    /// The rules as the store holds them now: the kept list while the store's version of the
    /// rules has not moved, else read again.
    pub async fn block_list(&self) -> Result<Arc<BlockList>, CrawlError> {
        let version = self.store.blocks_version().await?;
        let cached = self
            .blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match cached {
            Some((kept, list)) if kept == version => Ok(list),
            _ => self.reload_blocks().await,
        }
    }

    /// Why `url` may not be requested (for `feed`), if a rule forbids it:
    /// `do-not-crawl: host example.com (FF13)`.
    pub async fn blocked(
        &self,
        url: &Url,
        feed: Option<FeedId>,
    ) -> Result<Option<String>, CrawlError> {
        Ok(self
            .block_list()
            .await?
            .check(url, feed)
            .map(Block::describe))
    }
}
