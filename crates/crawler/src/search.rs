//! Search-engine queries as a discovery source (FF18): an operator keeps query definitions in
//! the store, each naming the provider that runs it; a connected provider answers a query with
//! page URLs, and each is discovered ([`Crawler::discover`], every rule of a read applying).
//! No provider is connected by default, and everything works without one: a query whose
//! provider is not connected is kept and reported as not run, and nothing is requested.

use crate::discover::{Checked, Reach};
use crate::{CrawlError, Crawler};
use std::sync::Arc;
use tidings_model::FeedUrl;
use tidings_store::SearchQuery;

/// A search engine, as discovery asks it: page URLs for a query, at most `limit`.
#[async_trait::async_trait]
pub trait SearchProvider: Send + Sync {
    /// The name query definitions use to pick it.
    fn name(&self) -> &str;

    /// The result pages of `query`, best first, at most `limit`; an error says why none.
    async fn search(&self, query: &str, limit: u32) -> Result<Vec<String>, String>;
}

/// What one run of a query did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryRun {
    pub query: SearchQuery,
    /// `None` when it was not run (no provider of its name is connected).
    pub ran: Option<Ran>,
    /// What happened, in words (stored as the query's last result when it ran).
    pub said: String,
}

/// What a run found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub results: usize,
    /// Feeds found (offered: not held for review).
    pub feeds: Vec<FeedUrl>,
}

impl Crawler {
    /// This crawler with `providers` connected (FF18).
    pub fn with_search_providers(mut self, providers: Vec<Arc<dyn SearchProvider>>) -> Crawler {
        self.providers = providers.into();
        self
    }

    /// The names of the providers connected.
    pub fn search_providers(&self) -> Vec<String> {
        self.providers.iter().map(|p| p.name().to_owned()).collect()
    }

    /// Run every stored query whose provider is connected: its results (at most the profile's
    /// `discovery.search_results_per_query`) are discovered one after another. A query whose
    /// provider is not connected is reported and left as it was.
    pub async fn run_search_queries(
        &self,
        progress: &(dyn Fn(&Checked) + Send + Sync),
    ) -> Result<Vec<QueryRun>, CrawlError> {
        let limit = self.profile.discovery.search_results_per_query;
        let mut runs = Vec::new();
        for query in self.store.search_queries().await? {
            let Some(provider) = self.providers.iter().find(|p| p.name() == query.provider) else {
                let said = format!(
                    "not run: no search provider named {:?} is connected",
                    query.provider
                );
                runs.push(QueryRun {
                    query,
                    ran: None,
                    said,
                });
                continue;
            };
            let (ran, said) = match provider.search(&query.query, limit).await {
                Err(why) => (None, format!("the provider answered no results: {why}")),
                Ok(results) => {
                    let results: Vec<String> = results.into_iter().take(limit as usize).collect();
                    let mut feeds: Vec<FeedUrl> = Vec::new();
                    let mut unusable = 0;
                    for result in &results {
                        let Ok(url) = FeedUrl::parse(result) else {
                            unusable += 1;
                            continue;
                        };
                        let found = self.discover(&url, Reach::Thorough, progress).await?;
                        for f in found.offered() {
                            if !feeds.contains(&f.url) {
                                feeds.push(f.url.clone());
                            }
                        }
                    }
                    let said = format!(
                        "{} results{}, {} feeds found",
                        results.len(),
                        if unusable > 0 {
                            format!(" ({unusable} of them no http(s) URL)")
                        } else {
                            String::new()
                        },
                        feeds.len()
                    );
                    (
                        Some(Ran {
                            results: results.len(),
                            feeds,
                        }),
                        said,
                    )
                }
            };
            self.store
                .search_query_ran(query.id, self.now(), &said)
                .await?;
            runs.push(QueryRun { query, ran, said });
        }
        Ok(runs)
    }
}
