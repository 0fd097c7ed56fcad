//! Operator do-not-crawl rules before every request (FF13, WFM10).
//!
//! The rules are read from the store once, on first use, and kept; [`Crawler::reload_blocks`]
//! reads them again (each CLI command is its own process, so a rule added by one is seen by the
//! next). The matching itself is `tidings_policy::blocklist`. Every request the crawler makes
//! asks first: the feed, its robots.txt and each redirect hop of either, which the crawler
//! follows itself.

use crate::{CrawlError, Crawler};
use std::sync::Arc;
use tidings_model::FeedId;
use tidings_policy::{Block, BlockKind, BlockList};
use tidings_store::StoredBlock;
use url::Url;

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

impl Crawler {
    /// Read the do-not-crawl rules from the store again.
    pub async fn reload_blocks(&self) -> Result<Arc<BlockList>, CrawlError> {
        let stored = self.store.blocks().await?;
        let list = Arc::new(BlockList::new(
            stored.into_iter().filter_map(block_of).collect(),
        ));
        *self.blocks.lock().unwrap_or_else(|e| e.into_inner()) = Some(list.clone());
        Ok(list)
    }

    /// The rules, read on first use.
    pub async fn block_list(&self) -> Result<Arc<BlockList>, CrawlError> {
        let cached = self
            .blocks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match cached {
            Some(list) => Ok(list),
            None => self.reload_blocks().await,
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
