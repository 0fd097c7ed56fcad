//! Operator do-not-crawl rules before every request (FF13, WFM10).
//!
//! The rules are read from the store once, on first use, and kept; [`Crawler::reload_blocks`]
//! reads them again (each CLI command is its own process, so a rule added by one is seen by the
//! next). The matching itself is `tidings_policy::blocklist`. Every request the crawler makes
//! asks first: the feed, its robots.txt and each redirect hop of either, which the crawler
//! follows itself.

use crate::{CrawlError, Crawler, FeedReport, Purpose};
use std::sync::Arc;
use tidings_model::FeedId;
use tidings_policy::{Block, BlockKind, BlockList, is_block_hold};
use tidings_store::{FeedRecord, FeedState, StoredBlock};
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

    /// After a rule was added: read the rules again and pause at once every active feed a
    /// rule now covers, so it shows as blocked before its next read would find out. Nothing
    /// is sent (a blocked read checks the rules first). Returns each feed paused with its
    /// read's report (the reason is `next_fetch_reason`).
    pub async fn hold_covered_feeds(&self) -> Result<Vec<(FeedRecord, FeedReport)>, CrawlError> {
        let list = self.reload_blocks().await?;
        let mut held = Vec::new();
        for feed in self.store.feeds().await? {
            if feed.state != FeedState::Active
                || list.check(feed.url.as_url(), Some(feed.id)).is_none()
            {
                continue;
            }
            let report = self.refresh(&feed, Purpose::Scheduled).await?;
            held.push((feed, report));
        }
        Ok(held)
    }

    /// After a rule was removed: read the rules again and resume the feeds paused by a rule
    /// that no longer covers them; they are read when due. Returns the feeds resumed.
    pub async fn resume_uncovered_feeds(&self) -> Result<Vec<FeedRecord>, CrawlError> {
        let list = self.reload_blocks().await?;
        let now = self.now();
        let mut resumed = Vec::new();
        for feed in self.store.feeds().await? {
            let held = feed.state == FeedState::Paused
                && feed.state_reason.as_deref().is_some_and(is_block_hold);
            if !held || list.check(feed.url.as_url(), Some(feed.id)).is_some() {
                continue;
            }
            if self
                .store
                .resume_feed(
                    feed.id,
                    now,
                    "resumed: no do-not-crawl rule covers it any more",
                )
                .await?
            {
                resumed.push(feed);
            }
        }
        Ok(resumed)
    }
}
