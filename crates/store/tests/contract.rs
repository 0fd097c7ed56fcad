//! The store contract: one suite, written once against `Arc<dyn Store>`, run on SQLite always
//! (a fresh file per test) and on PostgreSQL when `DATABASE_URL` is set (a fresh schema per
//! test, dropped afterwards).
//!
//! Each case is an async function in one of the behaviour modules below; `contract!` turns
//! every case into one `#[tokio::test]` per backend (`sqlite::name`, `postgres::name`).

#[path = "contract/support.rs"]
mod support;

#[path = "contract/accounts.rs"]
mod accounts;
#[path = "contract/blocks.rs"]
mod blocks;
#[path = "contract/checks.rs"]
mod checks;
#[path = "contract/feeds.rs"]
mod feeds;
#[path = "contract/fetch.rs"]
mod fetch;
#[path = "contract/jobs.rs"]
mod jobs;
#[path = "contract/keys.rs"]
mod keys;
#[path = "contract/leases.rs"]
mod leases;
#[path = "contract/listing.rs"]
mod listing;
#[path = "contract/log.rs"]
mod log;
#[path = "contract/reading.rs"]
mod reading;
#[path = "contract/resources.rs"]
mod resources;
#[path = "contract/websub.rs"]
mod websub;

macro_rules! contract {
    ($($module:ident::$case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    crate::support::on_sqlite(crate::$module::$case).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    crate::support::on_postgres(crate::$module::$case).await;
                }
            )*
        }
    };
}

contract! {
    websub::websub_a_subscription_is_kept_per_feed_and_found_by_its_token,
    websub::websub_pushed_entries_join_the_feed_and_leave_its_schedule,
    reading::ff1_a_pages_subscribers_move_to_its_feed,
    jobs::ff4_a_spider_job_goes_on_where_it_stopped,
    jobs::ff1_discovery_jobs_are_taken_in_order,
    jobs::ff4_a_stopped_job_is_given_back_and_taken_by_its_id,
    jobs::sr2_the_catalogue_lists_its_feeds_once,
    jobs::ff17_finished_jobs_are_dropped_after_their_retention,
    log::ff17_the_request_log_is_pruned_by_its_retention_period,
    checks::ff2_a_recheck_adds_a_result_and_keeps_the_earlier_one,
    checks::ff3_held_matches_wait_for_review_until_decided,
    checks::c7_a_checks_requests_are_logged_with_it,
    checks::ff3_stored_feeds_are_found_by_body_and_by_entry_ids,
    checks::ff1_a_page_subscribed_by_mistake_is_discarded_once_nobody_holds_it,
    checks::ff18_search_queries_are_kept_as_a_discovery_source,
    keys::an_accounts_key_names_it_and_goes_with_it,
    accounts::sessions_live_until_they_expire_or_their_password_changes,
    reading::c2_one_read_serves_every_account_and_a_new_subscription_starts_with_its_newest_unread,
    reading::ff16_an_accounts_reading_leaves_out_expired_entries,
    reading::reading_marks_and_stars_are_per_account_and_move_the_counts,
    reading::reading_mark_all_read_stops_at_its_time_and_keeps_stars,
    reading::reading_folders_and_titles_are_the_accounts_own,
    reading::reading_counts_stay_exact_under_any_sequence,
    leases::c3_a_host_has_one_holder_until_it_is_released_or_expires,
    leases::c3_racing_claimers_get_one_lease,
    leases::c3_hosts_are_claimed_and_given_back_in_one_go,
    leases::c3_a_host_given_back_goes_to_the_one_waiting,
    leases::c3_a_write_under_a_lost_lease_keeps_only_its_log,
    blocks::ff13_blocks_are_added_once_listed_and_removed,
    blocks::c10_wfm10_a_removed_feed_is_never_due_and_cannot_come_back,
    blocks::ff13_the_rules_version_moves_with_every_change,
    feeds::subscribe_is_idempotent_and_one_feed_per_url,
    feeds::unsubscribe_keeps_the_feed_and_its_entries,
    feeds::due_feeds_are_active_subscribed_and_most_overdue_first,
    feeds::next_due_is_the_earliest_active_subscribed_feed,
    feeds::due_feeds_after_pages_through_everything_due_once,
    feeds::redirect_moves_the_url_and_the_old_url_still_finds_the_feed,
    feeds::moving_onto_another_feeds_url_fails_whole,
    feeds::pending_move_round_trips,
    feeds::paused_feeds_wait_for_an_operator,
    feeds::an_operators_patch_pauses_resumes_and_sets_overrides,
    feeds::read_sooner_only_moves_a_quiet_feeds_next_read_earlier,
    feeds::wfm8_the_egress_refusal_record_is_stored_and_kept_when_not_given,
    feeds::pf5_the_failure_record_is_stored_as_decided_and_a_resume_clears_it,
    feeds::ff13_a_hold_names_its_rule_until_a_resume,
    feeds::ff14_directives_are_kept_with_their_history_and_noindex_leaves_search,
    feeds::ff7_a_feeds_thumbnail_is_stored_and_decided_again_on_each_full_read,
    feeds::due_and_state_counts_match_the_feeds,
    fetch::first_fetch_stores_entries_feed_state_and_log,
    fetch::same_body_again_changes_no_entry,
    fetch::new_entry_counts_are_per_feed_and_since_a_time,
    fetch::changed_entry_is_updated_and_keeps_first_seen,
    fetch::not_modified_keeps_validators_and_entries,
    fetch::ff5_entries_that_leave_the_feed_are_kept,
    fetch::counters_follow_outcomes,
    fetch::unknown_feed_is_refused_and_leaves_nothing,
    fetch::failure_mid_transaction_leaves_nothing,
    fetch::validators_round_trip_exactly,
    fetch::unicode_round_trips,
    fetch::concurrent_writers_all_commit,
    fetch::concurrent_failures_fail_no_other_fetch,
    fetch::concurrent_reads_of_one_feed_store_each_entry_once,
    fetch::repeated_identity_in_one_fetch,
    fetch::huge_identities_and_texts_are_stored,
    fetch::missing_metadata_keeps_what_was_known,
    fetch::c6_host_floor_only_moves_later,
    accounts::accounts_are_unique_by_name_ignoring_case_and_keep_only_hashes,
    keys::keys_are_found_by_hash_listed_and_revoked,
    keys::sr11_bot_keys_round_trip_and_are_listed_by_start,
    listing::search_finds_title_and_summary_words,
    listing::search_reads_summary_and_content_text_never_markup,
    listing::hostile_search_input_is_just_words,
    listing::since_until_and_feed_filters,
    listing::keyset_pages_return_each_entry_once_despite_inserts,
    listing::limit_defaults_and_caps,
    listing::sort_time_prefers_published_then_updated_and_never_the_future,
    listing::category_filter_matches_whole_categories_case_folded,
    listing::ff16_expired_entries_and_feeds_leave_current_listings,
    listing::subscriber_filter_lists_only_that_subscribers_feeds,
    listing::one_entry_by_id_is_the_listed_entry,
    log::request_log_filters_and_orders_newest_first,
    log::robots_cache_round_trips_and_logs_its_fetch,
    log::a_held_robots_copy_is_not_read_again,
    log::c7_a_request_is_logged_before_it_is_sent_and_closed_by_its_answer,
    resources::sr1_an_article_page_is_queued_once_and_its_preview_serves_every_entry,
    resources::sr4_sr6_a_resources_failure_is_remembered_with_its_log_and_floor,
    resources::sr7_a_sites_icon_candidates_are_asked_one_at_a_time_and_the_icon_is_kept,
    resources::wfm10_a_removed_feeds_resources_are_never_due,
    resources::c3_a_resource_read_under_a_lost_lease_keeps_only_its_log,
    resources::ff9_the_image_cache_keeps_one_copy_per_url_within_its_bounds,
    resources::sr1_the_sites_with_an_icon_kept_are_known,
}
