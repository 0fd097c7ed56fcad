//! FF18: search-engine query definitions as a discovery source. With no provider connected
//! (the default) a query is kept and reported as not run, and nothing is requested; with one,
//! its results are discovered under every rule of a read.

mod sim_support;

use bytes::Bytes;
use sim_support::start;
use std::sync::Arc;
use tidings_crawler::search::SearchProvider;
use tidings_sim::{Behaviour, FeedSpec, HostSpec, Resource};

/// A provider that answers every query with the same pages.
struct Fixed {
    pages: Vec<String>,
}

#[async_trait::async_trait]
impl SearchProvider for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }

    async fn search(&self, _query: &str, limit: u32) -> Result<Vec<String>, String> {
        Ok(self.pages.iter().take(limit as usize).cloned().collect())
    }
}

fn site() -> HostSpec {
    HostSpec::new("found.test")
        .at("/robots.txt", Resource::robots("User-agent: *\nAllow: /\n"))
        .at(
            "/",
            Resource::new(Behaviour::Body {
                content_type: "text/html".into(),
                body: Bytes::from_static(
                    b"<html><head><link rel=alternate type=application/rss+xml \
                      href=/news.xml></head></html>",
                ),
            }),
        )
        .at("/news.xml", Resource::feed(FeedSpec::fixed("news")))
}

fn ffbot(p: &mut tidings_policy::Profile) {
    *p = tidings_policy::Profile::embedded("ffbot").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff18_a_query_without_a_connected_provider_is_kept_and_nothing_is_requested() {
    let sim = start(vec![site()], ffbot).await;
    sim.store
        .add_search_query("websearch", "local news feeds", sim.start)
        .await
        .unwrap();
    assert!(sim.crawler.search_providers().is_empty(), "none by default");
    let runs = sim.crawler.run_search_queries(&|_| {}).await.unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].ran, None);
    assert!(
        runs[0]
            .said
            .contains("no search provider named \"websearch\""),
        "{}",
        runs[0].said
    );
    assert!(sim.exchanges().await.is_empty());
    let kept = sim.store.search_queries().await.unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].last_run_at, None, "not run");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ff18_a_connected_providers_results_are_discovered() {
    let sim = start(vec![site()], ffbot).await;
    let home = sim.web.url("found.test", "/").unwrap();
    let crawler = sim
        .crawler
        .clone()
        .with_search_providers(vec![Arc::new(Fixed {
            pages: vec![home, "mailto:someone@found.test".into()],
        })]);
    sim.store
        .add_search_query("fixed", "news", sim.start)
        .await
        .unwrap();
    sim.store
        .add_search_query("elsewhere", "news", sim.start)
        .await
        .unwrap();
    let runs = crawler.run_search_queries(&|_| {}).await.unwrap();
    let ran = runs[0]
        .ran
        .as_ref()
        .expect("the fixed provider's query ran");
    assert_eq!(ran.results, 2);
    assert_eq!(
        ran.feeds
            .iter()
            .map(|f| f.as_str().to_owned())
            .collect::<Vec<_>>(),
        [sim.web.url("found.test", "/news.xml").unwrap()]
    );
    assert!(
        runs[0].said.contains("1 of them no http(s) URL"),
        "{}",
        runs[0].said
    );
    assert_eq!(runs[1].ran, None, "its provider is not connected");
    let kept = sim.store.search_queries().await.unwrap();
    assert!(kept[0].last_run_at.is_some());
    assert_eq!(kept[0].last_result.as_deref(), Some(runs[0].said.as_str()));
    assert_eq!(sim.requests("found.test", "/robots.txt").await.len(), 1);
}
