//! A store that fails: every answer is a 500 problem that says nothing about why.

use crate::support::Server;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;
use tidings_model::{FeedId, FeedUrl};
use tidings_store::{
    ApiKey, ApplyReport, BlockAdded, EntryQuery, FeedRecord, FetchRecord, LogQuery, NewBlock,
    NewFeed, NewKey, RequestLogRow, RobotsCache, Store, StoreError, StoredBlock, StoredEntry,
    Subscribed,
};

/// What the failure would reveal if it leaked.
const SECRET: &str = "table entries at /srv/secret/tidings.db is corrupt";

struct Broken;

fn fail<T>() -> tidings_store::Result<T> {
    Err(StoreError::Corrupt(SECRET.to_owned()))
}

#[async_trait]
impl Store for Broken {
    async fn subscribe(
        &self,
        _: &FeedUrl,
        _: &str,
        _: DateTime<Utc>,
        _: &NewFeed,
    ) -> tidings_store::Result<Subscribed> {
        fail()
    }
    async fn unsubscribe(&self, _: FeedId, _: &str) -> tidings_store::Result<bool> {
        fail()
    }
    async fn remove_feed(&self, _: FeedId) -> tidings_store::Result<bool> {
        fail()
    }
    async fn feed(&self, _: FeedId) -> tidings_store::Result<Option<FeedRecord>> {
        fail()
    }
    async fn apply_push(&self, _: tidings_store::PushRecord) -> tidings_store::Result<ApplyReport> {
        fail()
    }
    async fn websub(
        &self,
        _: FeedId,
    ) -> tidings_store::Result<Option<tidings_store::WebSubRecord>> {
        fail()
    }
    async fn websub_by_token(
        &self,
        _: &str,
    ) -> tidings_store::Result<Option<tidings_store::WebSubRecord>> {
        fail()
    }
    async fn save_websub(
        &self,
        _: &tidings_store::WebSubRecord,
        _: &[RequestLogRow],
    ) -> tidings_store::Result<()> {
        fail()
    }
    async fn feed_by_url(&self, _: &FeedUrl) -> tidings_store::Result<Option<FeedRecord>> {
        fail()
    }
    async fn feeds(&self) -> tidings_store::Result<Vec<FeedRecord>> {
        fail()
    }
    async fn due_feeds(&self, _: DateTime<Utc>, _: u32) -> tidings_store::Result<Vec<FeedRecord>> {
        fail()
    }
    async fn due_feeds_after(
        &self,
        _: DateTime<Utc>,
        _: Option<(DateTime<Utc>, FeedId)>,
        _: u32,
    ) -> tidings_store::Result<Vec<FeedRecord>> {
        fail()
    }
    async fn next_due(&self) -> tidings_store::Result<Option<DateTime<Utc>>> {
        fail()
    }
    async fn next_due_after(
        &self,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<Option<DateTime<Utc>>> {
        fail()
    }
    async fn apply_fetch(&self, _: FetchRecord) -> tidings_store::Result<ApplyReport> {
        fail()
    }
    async fn entries(&self, _: &EntryQuery) -> tidings_store::Result<Vec<StoredEntry>> {
        fail()
    }
    async fn request_log(&self, _: &LogQuery) -> tidings_store::Result<Vec<RequestLogRow>> {
        fail()
    }
    async fn open_request(
        &self,
        _: &RequestLogRow,
    ) -> tidings_store::Result<tidings_model::RequestTicket> {
        fail()
    }
    async fn withdraw_request(&self, _: tidings_model::RequestTicket) -> tidings_store::Result<()> {
        fail()
    }
    async fn directive_history(
        &self,
        _: FeedId,
        _: u32,
    ) -> tidings_store::Result<Vec<tidings_store::DirectiveRecord>> {
        fail()
    }
    async fn count_entries(&self, _: Option<FeedId>) -> tidings_store::Result<u64> {
        fail()
    }
    async fn new_entry_counts(
        &self,
        _: FeedId,
        _: &[&str],
        _: DateTime<Utc>,
    ) -> tidings_store::Result<tidings_store::NewEntryCounts> {
        fail()
    }
    async fn host_state(&self, _: &str) -> tidings_store::Result<tidings_store::HostState> {
        fail()
    }
    async fn claim_hosts(
        &self,
        _: &[String],
        _: &str,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<Vec<tidings_store::HostClaim>> {
        fail()
    }
    async fn release_hosts(
        &self,
        _: &str,
        _: &[tidings_store::Release],
        _: DateTime<Utc>,
    ) -> tidings_store::Result<u64> {
        fail()
    }
    async fn save_robots(
        &self,
        _: &str,
        _: &RobotsCache,
        _: &[RequestLogRow],
    ) -> tidings_store::Result<()> {
        fail()
    }
    async fn resume_feed(
        &self,
        _: FeedId,
        _: DateTime<Utc>,
        _: &str,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn add_block(&self, _: &NewBlock) -> tidings_store::Result<BlockAdded> {
        fail()
    }
    async fn remove_block(&self, _: &str, _: &str) -> tidings_store::Result<bool> {
        fail()
    }
    async fn blocks(&self) -> tidings_store::Result<Vec<StoredBlock>> {
        fail()
    }
    async fn blocks_version(&self) -> tidings_store::Result<i64> {
        fail()
    }
    async fn add_account(
        &self,
        _: &tidings_store::NewAccount,
    ) -> tidings_store::Result<Option<tidings_store::Account>> {
        fail()
    }
    async fn accounts(&self) -> tidings_store::Result<Vec<tidings_store::Account>> {
        fail()
    }
    async fn account_secrets(
        &self,
        _: &str,
    ) -> tidings_store::Result<Option<tidings_store::AccountSecrets>> {
        fail()
    }
    async fn set_password(
        &self,
        _: &str,
        _: &str,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn set_api_password(
        &self,
        _: &str,
        _: Option<&tidings_store::ApiPassword>,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn remove_account(&self, _: &str) -> tidings_store::Result<bool> {
        fail()
    }
    async fn account_by_fever_key(
        &self,
        _: &str,
    ) -> tidings_store::Result<Option<tidings_store::Account>> {
        fail()
    }
    async fn create_session(&self, _: &tidings_store::NewSession) -> tidings_store::Result<()> {
        fail()
    }
    async fn session_account(
        &self,
        _: &str,
        _: tidings_store::SessionKind,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<Option<tidings_store::Account>> {
        fail()
    }
    async fn end_session(&self, _: &str) -> tidings_store::Result<bool> {
        fail()
    }
    async fn subscribe_account(
        &self,
        _: &FeedUrl,
        _: i64,
        _: &tidings_store::Placement,
        _: DateTime<Utc>,
        _: &NewFeed,
    ) -> tidings_store::Result<Subscribed> {
        fail()
    }
    async fn unsubscribe_account(&self, _: i64, _: FeedId) -> tidings_store::Result<bool> {
        fail()
    }
    async fn subscriptions(
        &self,
        _: i64,
    ) -> tidings_store::Result<Vec<tidings_store::Subscription>> {
        fail()
    }
    async fn edit_subscription(
        &self,
        _: i64,
        _: FeedId,
        _: &tidings_store::SubscriptionEdit,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn rename_folder(&self, _: i64, _: &str, _: Option<&str>) -> tidings_store::Result<u64> {
        fail()
    }
    async fn set_entry_states(
        &self,
        _: i64,
        _: &[i64],
        _: tidings_store::StateChange,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<u64> {
        fail()
    }
    async fn mark_all_read(
        &self,
        _: i64,
        _: &tidings_store::ReadScope,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<u64> {
        fail()
    }
    async fn reading(
        &self,
        _: &tidings_store::ReadingQuery,
    ) -> tidings_store::Result<Vec<tidings_store::ReadEntry>> {
        fail()
    }
    async fn count_reading(&self, _: &tidings_store::ReadingQuery) -> tidings_store::Result<u64> {
        fail()
    }
    async fn recount_unread(&self, _: i64) -> tidings_store::Result<Vec<(FeedId, u64)>> {
        fail()
    }
    async fn create_key(&self, _: &NewKey) -> tidings_store::Result<ApiKey> {
        fail()
    }
    async fn key_by_hash(&self, _: &str) -> tidings_store::Result<Option<ApiKey>> {
        fail()
    }
    async fn list_keys(&self) -> tidings_store::Result<Vec<ApiKey>> {
        fail()
    }
    async fn revoke_key(&self, _: i64, _: DateTime<Utc>) -> tidings_store::Result<bool> {
        fail()
    }
    async fn touch_key(&self, _: i64, _: DateTime<Utc>) -> tidings_store::Result<()> {
        fail()
    }
    async fn read_sooner(
        &self,
        _: FeedId,
        _: &tidings_store::Sooner,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn patch_feed(
        &self,
        _: FeedId,
        _: &tidings_store::FeedPatch,
    ) -> tidings_store::Result<Option<FeedRecord>> {
        fail()
    }
    async fn feeds_of(&self, _: &str) -> tidings_store::Result<Vec<FeedRecord>> {
        fail()
    }
    async fn count_due(&self, _: DateTime<Utc>) -> tidings_store::Result<u64> {
        fail()
    }
    async fn count_feeds_by_state(
        &self,
    ) -> tidings_store::Result<Vec<(tidings_store::FeedState, u64)>> {
        fail()
    }
    async fn entry(&self, _: i64) -> tidings_store::Result<Option<StoredEntry>> {
        fail()
    }
    async fn add_bot_key(&self, _: &tidings_store::BotKeyRow) -> tidings_store::Result<bool> {
        fail()
    }
    async fn bot_keys(&self) -> tidings_store::Result<Vec<tidings_store::BotKeyRow>> {
        fail()
    }
    async fn queue_pages(
        &self,
        _: FeedId,
        _: &[tidings_store::NewPage],
        _: DateTime<Utc>,
        _: &str,
    ) -> tidings_store::Result<u64> {
        fail()
    }
    async fn queue_icons(
        &self,
        _: FeedId,
        _: &str,
        _: &[String],
        _: bool,
        _: DateTime<Utc>,
        _: &str,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn due_resources(
        &self,
        _: DateTime<Utc>,
        _: u32,
    ) -> tidings_store::Result<Vec<tidings_store::ResourceRecord>> {
        fail()
    }
    async fn next_resource_due(
        &self,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<Option<DateTime<Utc>>> {
        fail()
    }
    async fn apply_resource(
        &self,
        _: &tidings_store::ResourceApply,
    ) -> tidings_store::Result<tidings_store::ApplyReport> {
        fail()
    }
    async fn resources(
        &self,
        _: Option<tidings_model::RequestPurpose>,
        _: u32,
    ) -> tidings_store::Result<Vec<tidings_store::ResourceRecord>> {
        fail()
    }
    async fn icon(&self, _: &str) -> tidings_store::Result<Option<tidings_store::StoredIcon>> {
        fail()
    }
    async fn sites_with_icons(&self, _: &[String]) -> tidings_store::Result<Vec<String>> {
        fail()
    }
    async fn queue_images(
        &self,
        _: FeedId,
        _: &[String],
        _: DateTime<Utc>,
        _: &str,
    ) -> tidings_store::Result<u64> {
        fail()
    }
    async fn image(
        &self,
        _: &str,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<Option<tidings_store::StoredImage>> {
        fail()
    }
    async fn cached_images(&self, _: &[String]) -> tidings_store::Result<Vec<String>> {
        fail()
    }
    async fn prune_images(
        &self,
        _: tidings_store::ImageBounds,
    ) -> tidings_store::Result<(u64, u64)> {
        fail()
    }
    async fn image_cache_stats(&self) -> tidings_store::Result<tidings_store::ImageCacheStats> {
        fail()
    }
    async fn prune_request_log(&self, _: DateTime<Utc>) -> tidings_store::Result<u64> {
        fail()
    }
    async fn discard_feed(&self, _: FeedId) -> tidings_store::Result<bool> {
        fail()
    }
    async fn apply_check(&self, _: &tidings_store::CheckApply) -> tidings_store::Result<i64> {
        fail()
    }
    async fn last_checks(
        &self,
        _: &[String],
    ) -> tidings_store::Result<Vec<tidings_store::StoredCheck>> {
        fail()
    }
    async fn url_check(&self, _: i64) -> tidings_store::Result<Option<tidings_store::StoredCheck>> {
        fail()
    }
    async fn url_checks(
        &self,
        _: &str,
        _: u32,
    ) -> tidings_store::Result<Vec<tidings_store::StoredCheck>> {
        fail()
    }
    async fn held_checks(&self, _: u32) -> tidings_store::Result<Vec<tidings_store::StoredCheck>> {
        fail()
    }
    async fn add_search_query(
        &self,
        _: &str,
        _: &str,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<(tidings_store::SearchQuery, bool)> {
        fail()
    }
    async fn search_queries(&self) -> tidings_store::Result<Vec<tidings_store::SearchQuery>> {
        fail()
    }
    async fn remove_search_query(&self, _: i64) -> tidings_store::Result<bool> {
        fail()
    }
    async fn search_query_ran(
        &self,
        _: i64,
        _: DateTime<Utc>,
        _: &str,
    ) -> tidings_store::Result<()> {
        fail()
    }
    async fn feeds_with_content_hash(&self, _: &str) -> tidings_store::Result<Vec<FeedId>> {
        fail()
    }
    async fn entry_overlap(
        &self,
        _: &[String],
        _: u32,
    ) -> tidings_store::Result<Vec<tidings_store::EntryOverlap>> {
        fail()
    }
    async fn submit_page_job(
        &self,
        _: &tidings_store::NewPageJob,
    ) -> tidings_store::Result<tidings_store::PageJob> {
        fail()
    }
    async fn page_job(&self, _: i64) -> tidings_store::Result<Option<tidings_store::PageJob>> {
        fail()
    }
    async fn page_jobs(&self, _: u32) -> tidings_store::Result<Vec<tidings_store::PageJob>> {
        fail()
    }
    async fn claim_page_job(
        &self,
        _: Option<i64>,
        _: DateTime<Utc>,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<Option<tidings_store::PageJob>> {
        fail()
    }
    async fn release_page_job(&self, _: i64, _: DateTime<Utc>) -> tidings_store::Result<bool> {
        fail()
    }
    async fn page_job_frontier(&self, _: i64) -> tidings_store::Result<tidings_store::JobFrontier> {
        fail()
    }
    async fn page_job_step(
        &self,
        _: i64,
        _: &tidings_store::JobStep,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<()> {
        fail()
    }
    async fn page_job_feeds(&self, _: i64) -> tidings_store::Result<Vec<tidings_store::JobFeed>> {
        fail()
    }
    async fn finish_page_job(
        &self,
        _: i64,
        _: tidings_model::PageJobState,
        _: Option<&str>,
        _: Option<&str>,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn prune_page_jobs(&self, _: DateTime<Utc>) -> tidings_store::Result<u64> {
        fail()
    }
    async fn move_subscriptions(
        &self,
        _: FeedId,
        _: &tidings_model::FeedUrl,
        _: DateTime<Utc>,
        _: &tidings_store::NewFeed,
    ) -> tidings_store::Result<tidings_store::Subscribed> {
        fail()
    }
    async fn add_to_catalogue(
        &self,
        _: FeedId,
        _: &str,
        _: DateTime<Utc>,
    ) -> tidings_store::Result<bool> {
        fail()
    }
    async fn catalogue(&self) -> tidings_store::Result<Vec<tidings_store::CatalogueEntry>> {
        fail()
    }
    async fn remove_from_catalogue(&self, _: FeedId) -> tidings_store::Result<bool> {
        fail()
    }
    async fn remove_bot_key(&self, _: &str) -> tidings_store::Result<bool> {
        fail()
    }
}

#[tokio::test]
async fn store_failures_are_500_problems_that_leak_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Server::over(Arc::new(Broken), dir).await;
    for path in [
        "/v1/feeds",
        "/v1/feeds/1",
        "/v1/entries",
        "/v1/entries?feed=1&q=x",
        "/metrics",
    ] {
        let problem = server.problem(path, 500, "internal").await;
        assert_eq!(problem["title"], "Internal error", "{path}");
        let text = problem.to_string();
        assert!(
            !text.contains("secret") && !text.contains("corrupt") && !text.contains("entries"),
            "{path}: {text}"
        );
    }
    // Input is checked before the store is asked: a bad request stays a 400.
    server
        .problem("/v1/entries?limit=0", 400, "invalid-parameter")
        .await;
}
