//! FF6: what is recorded of an inspected page. Its bounded metadata, the licence and terms
//! links it declares and the directives it carries for the bot; never its text.

use crate::directive::{self, Directives};
use tidings_model::RightsHeaders;
use tidings_page::Page;

/// What tidings records of an HTML page it inspected (FF6): bounded metadata, the licence and
/// terms links the page declares and the directives it carries for the bot. Never the page's
/// text: tidings keeps none.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct PageRecord {
    pub title: Option<String>,
    pub description: Option<String>,
    /// The page's declared language (`<html lang>`, `og:locale`, `content-language`).
    pub language: Option<String>,
    /// `rel=license` links, absolute, in page order.
    pub licences: Vec<String>,
    /// Terms-of-use links, absolute, in page order.
    pub terms: Vec<String>,
    /// The directives for the bot from the page's `<meta>` tags and its `X-Robots-Tag`
    /// headers.
    pub directives: Directives,
    /// A TDMRep reservation the page declares (`1`: rights reserved), from its meta tag or
    /// its header.
    pub tdm_reservation: Option<String>,
    /// The page filled the bytes read (SR1's cap) and may go on: what is recorded comes from
    /// its start.
    pub truncated: bool,
}

/// The record of `page` as read by `bot`, with the `X-Robots-Tag` and TDMRep headers of the
/// answer that carried it (`None`: it sent none). The page crate has already bounded every
/// list and text ([`tidings_page::Limits`]).
pub fn of(page: &Page, headers: Option<&RightsHeaders>, bot: &str) -> PageRecord {
    let meta = directive::from_meta(
        page.directives
            .iter()
            .map(|d| (d.name.as_str(), d.content.as_str())),
        bot,
    );
    let sent = headers.map_or(Directives::NONE, |h| {
        directive::from_headers(h.x_robots_tag.iter().map(String::as_str), bot)
    });
    // The header speaks for the answer, the tag for the page: both apply (FF14).
    let directives = meta.union(sent);
    let tdm_reservation = headers
        .and_then(|h| h.tdm_reservation.first().cloned())
        .or_else(|| page.tdm.reservation.clone());
    PageRecord {
        title: page.title.clone(),
        description: page.description.clone(),
        language: page.language.clone(),
        licences: page.licences.iter().map(ToString::to_string).collect(),
        terms: page.terms.iter().map(ToString::to_string).collect(),
        directives,
        tdm_reservation,
        truncated: page.truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidings_page::{Context, Limits, inspect};
    use url::Url;

    fn read(html: &str, max_bytes: usize) -> Page {
        let url = Url::parse("https://news.example/a/b.html").unwrap();
        inspect(
            html.as_bytes(),
            &Context {
                url: &url,
                content_type: Some("text/html; charset=utf-8"),
                bots: &["FFBot"],
                limits: Limits {
                    max_bytes,
                    ..Limits::default()
                },
            },
        )
    }

    fn headers(x_robots_tag: &[&str], tdm: &[&str]) -> RightsHeaders {
        RightsHeaders {
            x_robots_tag: x_robots_tag.iter().map(|s| (*s).to_owned()).collect(),
            tdm_reservation: tdm.iter().map(|s| (*s).to_owned()).collect(),
            tdm_policy: Vec::new(),
        }
    }

    const PAGE: &str = r#"<!doctype html><html lang="pt-BR"><head>
        <title>Chuva no Recife</title>
        <meta name="description" content="Alerta para a Região Metropolitana.">
        <meta name="robots" content="noarchive">
        <meta name="OtherBot" content="noindex">
        <meta name="FFBot" content="nosnippet">
        <meta name="tdm-reservation" content="1">
        <link rel="license" href="/licenca">
        </head><body><p>Texto do artigo que nunca é guardado.</p>
        <a rel="terms-of-service" href="https://news.example/termos">Termos</a>
        </body></html>"#;

    #[test]
    fn ff6_a_page_is_recorded_by_its_metadata_links_and_directives_never_its_text() {
        let cases: [(&str, Option<RightsHeaders>, &str, Option<&str>); 4] = [
            ("tags only", None, "nosnippet, noarchive", Some("1")),
            (
                "a header for the bot adds to the tags",
                Some(headers(&["FFBot: noindex"], &[])),
                "noindex, nosnippet, noarchive",
                Some("1"),
            ),
            (
                "a header for another bot does not apply",
                Some(headers(&["OtherBot: nofollow"], &["0"])),
                "nosnippet, noarchive",
                Some("0"),
            ),
            (
                "a generic header applies",
                Some(headers(&["none"], &[])),
                "noindex, nofollow, nosnippet, noarchive",
                Some("1"),
            ),
        ];
        let page = read(PAGE, usize::MAX);
        for (name, headers, words, tdm) in cases {
            let record = of(&page, headers.as_ref(), "FFBot");
            assert_eq!(record.title.as_deref(), Some("Chuva no Recife"), "{name}");
            assert_eq!(
                record.description.as_deref(),
                Some("Alerta para a Região Metropolitana."),
                "{name}"
            );
            assert_eq!(record.language.as_deref(), Some("pt-BR"), "{name}");
            assert_eq!(record.licences, ["https://news.example/licenca"], "{name}");
            assert_eq!(record.terms, ["https://news.example/termos"], "{name}");
            assert_eq!(
                record.directives,
                Directives::parse_list(words),
                "{name}: {}",
                record.directives
            );
            assert_eq!(record.tdm_reservation.as_deref(), tdm, "{name}");
            assert!(!record.truncated, "{name}");
            let json = serde_json::to_string(&record).unwrap();
            assert!(
                !json.contains("nunca"),
                "{name}: page text recorded: {json}"
            );
        }
    }

    #[test]
    fn ff6_a_page_cut_at_its_byte_budget_says_so_and_records_only_its_start() {
        let page = read(PAGE, 120);
        let record = of(&page, None, "FFBot");
        assert!(record.truncated);
        assert_eq!(record.title.as_deref(), Some("Chuva no Recife"));
        assert!(record.licences.is_empty(), "{record:?}");
        assert!(record.directives.is_empty(), "{record:?}");
    }
}
