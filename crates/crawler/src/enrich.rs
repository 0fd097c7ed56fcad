//! Resources read for feeds (SR1, SR4, SR6, SR7): an entry's article page, read once for its
//! preview image, and a site's icon, its candidates asked one at a time. Each is a read of
//! the same machine as a feed's ([`tidings_read::Read::resource`]) with its own purpose, so
//! it passes the same rules, robots.txt (the bot's group, else `*`), host turn and floor, and
//! is logged with its purpose (C3, C6, C7, FF13).
//!
//! What to queue follows a feed's read ([`Crawler::queue_enrichment`]); the queue lives in
//! the store, and the run loop gives each due resource to its host's lane
//! ([`Crawler::read_resource`]).

use crate::drive::{Asker, log_row};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use tidings_model::{Entry, FetchOutcome, Label, ParsedFeed, RequestPurpose};
use tidings_policy::Profile;
use tidings_policy::pages::{self, PageNext};
use tidings_read::{Body, Event, Examined, Found, Need, NotSent, Purpose, Read, ResourceState};
use tidings_store::{
    FeedRecord, NewPage, QueueState, ResourceApply, ResourceFound, ResourceRead, ResourceRecord,
};
use url::Url;

/// What a feed's read asks of the page queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Enrichment {
    pages: Vec<NewPage>,
    icon: Option<IconQueue>,
    /// Thumbnails whose licence permits showing them, for the image cache (FF9).
    images: Vec<String>,
}

/// A site's icon candidates, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct IconQueue {
    site: String,
    candidates: Vec<String>,
}

/// What one read of a queued resource did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceReport {
    pub id: i64,
    pub url: String,
    pub purpose: RequestPurpose,
    pub outcome: Label,
    /// What follows, and why.
    pub next: String,
    /// When it is read again, if ever.
    pub due_at: Option<DateTime<Utc>>,
}

impl Crawler {
    /// What a feed's read asks of the page queue: the article pages of its entries without
    /// an image (SR1, newest first, at most `pages.max_pages_per_read`) and, once per site,
    /// the site's icon candidates (SR1). `None` for a profile that requests neither, or when
    /// there is nothing to ask.
    pub(crate) fn enrichment_of(
        &self,
        feed: &FeedRecord,
        parsed: Option<&ParsedFeed>,
    ) -> Option<Enrichment> {
        let requests = &self.profile.requests;
        let pages = match parsed {
            Some(parsed) if requests.allows(RequestPurpose::ArticlePage) => {
                pages_to_read(&parsed.entries, &self.profile)
            }
            _ => Vec::new(),
        };
        let images = match parsed {
            Some(parsed) if requests.allows(RequestPurpose::Image) => {
                images_to_cache(parsed, &self.profile)
            }
            _ => Vec::new(),
        };
        let icon = (requests.allows(RequestPurpose::Icon) && feed.site.is_none()).then(|| {
            let site_link = parsed
                .and_then(|p| p.feed.link.as_deref())
                .or(feed.site_link.as_deref());
            let site = site_link
                .and_then(|l| Url::parse(l).ok())
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .unwrap_or_else(|| feed.url.as_url().clone());
            let declared = parsed.and_then(|p| p.feed.icon.as_deref());
            IconQueue {
                site: tidings_model::HostKey::of(&site).to_string(),
                candidates: pages::icon_candidates(&site, declared)
                    .iter()
                    .map(Url::to_string)
                    .collect(),
            }
        });
        (!pages.is_empty() || icon.is_some() || !images.is_empty()).then_some(Enrichment {
            pages,
            icon,
            images,
        })
    }

    /// Queue what a feed's read asked for, once its entries are stored: the pages of the
    /// entries, when some were new (or on the feed's first add); the site's icon candidates,
    /// the first asked at once (without robots.txt on a first add when the profile says so,
    /// SR7). Returns whether something new was queued (due now).
    pub(crate) async fn queue_enrichment(
        &self,
        feed: &FeedRecord,
        enrichment: Enrichment,
        new_entries: u64,
        first_add: bool,
    ) -> Result<bool, CrawlError> {
        let now = self.now();
        let mut queued = false;
        if !enrichment.pages.is_empty() && (new_entries > 0 || first_add) {
            queued |= self
                .store
                .queue_pages(
                    feed.id,
                    &enrichment.pages,
                    now,
                    "preview of an entry without an image (SR1)",
                )
                .await?
                > 0;
        }
        if !enrichment.images.is_empty() && (new_entries > 0 || first_add) {
            queued |= self
                .store
                .queue_images(
                    feed.id,
                    &enrichment.images,
                    now,
                    "a thumbnail its licence lets us show (FF9)",
                )
                .await?
                > 0;
        }
        if let Some(icon) = enrichment.icon {
            queued |= self
                .store
                .queue_icons(
                    feed.id,
                    &icon.site,
                    &icon.candidates,
                    first_add,
                    now,
                    "the site's icon (SR1)",
                )
                .await?;
        }
        Ok(queued)
    }

    /// Read one queued resource and store what it gave.
    pub async fn read_resource(&self, job: &ResourceRecord) -> Result<ResourceReport, CrawlError> {
        self.keep_signing_key().await;
        let purpose = match job.purpose {
            RequestPurpose::ArticlePage => Purpose::ArticlePage,
            RequestPurpose::Icon => Purpose::Icon {
                first_add: job.first_add,
            },
            RequestPurpose::Image => Purpose::Image,
            other => {
                return Err(CrawlError::Internal(format!(
                    "a queued resource cannot be read for {other}"
                )));
            }
        };
        let Ok(target) = Url::parse(&job.url) else {
            // Never queued by tidings; kept as a failure rather than asked.
            let apply = ResourceApply {
                id: job.id,
                at: self.now(),
                state: QueueState::Held,
                due_at: None,
                reason: "not a URL".into(),
                retries: 0,
                read: None,
                found: ResourceFound::Nothing,
                next_candidate_at: None,
                log: Vec::new(),
                host_floor: None,
                fence: None,
            };
            self.store.apply_resource(&apply).await?;
            return Ok(report(job, Label::Blocked, "not a URL".into(), None));
        };
        // The host whose lease the read is made under (its result is fenced by it).
        let lease_host = crate::gate::host_of(&target);
        // PF10: a profile whose User-Agent counts subscribers counts the feed's.
        let user_agent = match job.feed_id {
            Some(id) if self.profile.counts_subscribers() => self
                .store
                .feed(id)
                .await?
                .and_then(|f| self.user_agent_of(f.subscribers)),
            _ => None,
        };
        let state = ResourceState {
            target,
            why: job.reason.clone(),
            retries: job.retries,
            user_agent,
        };
        let asker = Asker {
            feed: job.feed_id,
            egress: None,
            max_body: None,
        };
        let read = Read::resource(&state, purpose, &self.profile);
        let out = self.drive_resource(read, &asker, &mut |_| None).await?;
        let now = self.now();
        let settings = &self.profile.pages;
        let set_aside = matches!(out.not_sent, Some(NotSent::HostFloor | NotSent::CrawlDelay));
        let (state, due_at, reason) = match &out.next {
            PageNext::Done => match purpose {
                // A site's icon is read again now and then; a page never.
                Purpose::Icon { .. } => (
                    QueueState::Done,
                    Some(pages::later(now, settings.icon_refresh)),
                    format!("icon kept; read again in {}s", settings.icon_refresh),
                ),
                _ => (QueueState::Done, None, "read".to_owned()),
            },
            PageNext::Retry { at, reason, .. } => (QueueState::Due, Some(*at), reason.clone()),
            PageNext::Hold { until, reason } => (QueueState::Held, Some(*until), reason.clone()),
        };
        // One icon request per site per window: a candidate that failed for good makes the
        // next one due only after the window (SR1).
        let next_candidate_at = (matches!(purpose, Purpose::Icon { .. })
            && matches!(out.next, PageNext::Hold { .. })
            && !set_aside)
            .then(|| pages::later(now, settings.icon_spacing));
        let headers = match &out.outcome {
            FetchOutcome::Fetched(f) => f.rights.as_deref(),
            _ => None,
        };
        let found = match (out.found, &job.site) {
            (Some(Found::Page(page)), _) => ResourceFound::Page {
                preview: tidings_rights::thumbnail::preview(&page),
                record: Box::new(tidings_rights::record::of(
                    &page,
                    headers,
                    &self.profile.robots.token,
                )),
            },
            (Some(Found::Image { bytes, media_type }), Some(site))
                if matches!(purpose, Purpose::Icon { .. }) =>
            {
                ResourceFound::Icon {
                    site: site.clone(),
                    media_type,
                    body: bytes,
                }
            }
            (Some(Found::Image { bytes, media_type }), _) if purpose == Purpose::Image => {
                ResourceFound::Image {
                    media_type,
                    body: bytes,
                }
            }
            _ => ResourceFound::Nothing,
        };
        let cached = matches!(found, ResourceFound::Image { .. });
        tracing::info!(
            url = %job.url,
            purpose = job.purpose.as_str(),
            status = out.outcome.status(),
            outcome = %out.label,
            reason = %reason,
            "resource read"
        );
        let apply = ResourceApply {
            id: job.id,
            at: now,
            state,
            due_at,
            reason: reason.clone(),
            retries: out.retries,
            read: (!set_aside).then(|| ResourceRead {
                status: out.outcome.status().map(i32::from),
                outcome: out.label,
                error: out.error.clone(),
            }),
            found,
            next_candidate_at,
            log: out
                .sent
                .iter()
                .map(|s| log_row(job.feed_id, None, s))
                .collect(),
            host_floor: out
                .host_floor
                .map(|(host, until)| (host.to_string(), until)),
            fence: self.leases.fence(&lease_host),
        };
        if self.store.apply_resource(&apply).await?.fenced_out {
            // Another process claimed the host while this read was under way: the resource
            // is as that process left it, this read only logged.
            tracing::warn!(
                url = %job.url,
                "host lease lost during the read; its result was not stored"
            );
        }
        if cached {
            self.prune_images(now).await?;
        }
        Ok(report(job, out.label, reason, due_at))
    }

    /// Drive a resource's read to its end: the needs every read has, and the examination of
    /// its body off the async threads. `first` sees each need before it is answered, and may
    /// answer it itself (a spider's spent budget refuses a request, FF4).
    pub(crate) async fn drive_resource(
        &self,
        mut read: Read<'_, Url>,
        asker: &Asker,
        first: &mut (dyn FnMut(&Need<'_, Url>) -> Option<Event> + Send),
    ) -> Result<Box<tidings_read::ResourceOutcome<Url>>, CrawlError> {
        let mut need = read.start();
        loop {
            if let Some(event) = first(&need) {
                need = read.step(event, self.now());
                continue;
            }
            let event = match self.answer_shared(&need, asker).await? {
                Some(event) => event,
                None => match need {
                    Need::Examine {
                        body,
                        base,
                        purpose,
                    } => Event::Examined(Box::new(self.examine(body, base, purpose).await?)),
                    Need::Done => break,
                    other => {
                        return Err(CrawlError::Internal(format!(
                            "a resource's read asked for {other:?}"
                        )));
                    }
                },
            };
            need = read.step(event, self.now());
        }
        read.finish_resource()
            .ok_or_else(|| CrawlError::Internal("the read ended without an outcome".into()))
    }

    /// Keep the image cache within the profile's bounds (FF9): copies unused for
    /// `images.expire_unused` go, then the least recently used until the total fits.
    pub async fn prune_images(&self, now: DateTime<Utc>) -> Result<(), CrawlError> {
        let images = &self.profile.images;
        let unused_before = images.unused_before(now);
        let (expired, over_total) = self
            .store
            .prune_images(tidings_store::ImageBounds {
                unused_before,
                max_total_bytes: images.max_total_bytes,
            })
            .await?;
        if expired + over_total > 0 {
            tracing::info!(expired, over_total, "image cache pruned (FF9)");
        }
        Ok(())
    }

    /// Examine a body off the async threads (CPU work).
    pub(crate) async fn examine(
        &self,
        body: Body,
        base: &Url,
        purpose: Purpose,
    ) -> Result<Examined, CrawlError> {
        let profile = self.profile.clone();
        let base = base.clone();
        tokio::task::spawn_blocking(move || examine(body, &base, purpose, &profile))
            .await
            .map_err(|e| match e.try_into_panic() {
                Ok(panic) => std::panic::resume_unwind(panic),
                Err(e) => CrawlError::Internal(format!("examining the body was cancelled: {e}")),
            })
    }
}

fn report(
    job: &ResourceRecord,
    outcome: Label,
    next: String,
    due_at: Option<DateTime<Utc>>,
) -> ResourceReport {
    ResourceReport {
        id: job.id,
        url: job.url.clone(),
        purpose: job.purpose,
        outcome,
        next,
        due_at,
    }
}

/// SR1: the article pages to read: each entry without an image of its own that links an
/// http(s) page, newest first, at most `pages.max_pages_per_read`, each page once.
fn pages_to_read(entries: &[Entry], profile: &Profile) -> Vec<NewPage> {
    let html_bytes = usize::try_from(profile.rights.thumbnail_html_bytes).unwrap_or(usize::MAX);
    let mut candidates: Vec<(&Entry, Url)> = entries
        .iter()
        .filter_map(|e| {
            let link = Url::parse(e.link.as_deref()?).ok()?;
            matches!(link.scheme(), "http" | "https").then_some((e, link))
        })
        .filter(|(e, link)| !tidings_rights::thumbnail::has_image(e, Some(link), html_bytes))
        .collect();
    candidates.sort_by_key(|(e, _)| std::cmp::Reverse(e.published.or(e.updated)));
    let mut pages: Vec<NewPage> = Vec::new();
    for (entry, link) in candidates {
        if pages.len() >= profile.pages.max_pages_per_read as usize {
            break;
        }
        let url = link.to_string();
        pages.push(NewPage {
            entry_key: entry.identity.clone(),
            url,
        });
    }
    pages
}

/// FF9: the thumbnails to cache: the feed's own and each entry's, when the licence decision
/// shows it and it is an http(s) URL, newest entries first, each once, at most
/// `images.max_per_read`.
fn images_to_cache(parsed: &ParsedFeed, profile: &Profile) -> Vec<String> {
    let mut entries: Vec<&Entry> = parsed.entries.iter().collect();
    entries.sort_by_key(|e| std::cmp::Reverse(e.published.or(e.updated)));
    let shown = std::iter::once(parsed.feed.selected_image.as_ref())
        .chain(entries.iter().map(|e| e.selected_image.as_ref()))
        .flatten()
        .filter(|i| i.shown);
    let mut urls: Vec<String> = Vec::new();
    for image in shown {
        if urls.len() >= profile.images.max_per_read as usize {
            break;
        }
        let Ok(url) = Url::parse(&image.url) else {
            continue;
        };
        let web = matches!(url.scheme(), "http" | "https");
        let url = url.to_string();
        if web && !urls.contains(&url) {
            urls.push(url);
        }
    }
    urls
}

/// What a body holds for its purpose: an article page's facts, or an icon's or image's bytes
/// with their sniffed media type; why it is not what was asked for otherwise.
fn examine(body: Body, base: &Url, purpose: Purpose, profile: &Profile) -> Examined {
    let unusable = |why: &str| Examined {
        usable: Err(why.to_owned()),
        found: None,
    };
    match purpose {
        Purpose::ArticlePage => {
            if !crate::refresh::looks_like_html(body.content_type.as_deref(), &body.bytes) {
                return unusable("not an HTML page");
            }
            let max_bytes = usize::try_from(profile.pages.max_page_bytes).unwrap_or(usize::MAX);
            let mut page = inspect_page(&body, base, profile, max_bytes);
            // The fetch stops at the cap (SR1): a body that fills it may go on (FF6).
            page.truncated |= body.bytes.len() >= max_bytes;
            Examined {
                usable: Ok(()),
                found: Some(Found::Page(Box::new(page))),
            }
        }
        Purpose::Icon { .. } | Purpose::Image => match image_type(&body.bytes) {
            Some(media_type) => Examined {
                usable: Ok(()),
                found: Some(Found::Image {
                    bytes: body.bytes,
                    media_type: media_type.to_owned(),
                }),
            },
            None if crate::refresh::looks_like_html(body.content_type.as_deref(), &body.bytes) => {
                unusable("not an image: an HTML page")
            }
            None => unusable("not an image of a type tidings keeps"),
        },
        Purpose::Discovery { .. } => discovered(body, base, profile),
        Purpose::FirstAdd | Purpose::Scheduled => unusable("a feed is judged, not examined"),
    }
}

/// FF1: what a URL read by discovery is: a feed (parsed, with its body's hash), else an HTML
/// page (its first `discovery.max_page_bytes` inspected for the feeds it names), else neither.
fn discovered(body: Body, base: &Url, profile: &Profile) -> Examined {
    let verdict = crate::refresh::judge_body(None, &body, base.as_str(), &profile.entries);
    if let (Some(parsed), Some(hash)) = (verdict.parsed, verdict.hash) {
        return Examined {
            usable: Ok(()),
            found: Some(Found::Feed { parsed, hash }),
        };
    }
    if crate::refresh::looks_like_html(body.content_type.as_deref(), &body.bytes) {
        let max_bytes = usize::try_from(profile.discovery.max_page_bytes).unwrap_or(usize::MAX);
        return Examined {
            usable: Ok(()),
            found: Some(Found::Page(Box::new(inspect_page(
                &body, base, profile, max_bytes,
            )))),
        };
    }
    Examined {
        usable: Err(format!(
            "neither a feed nor an HTML page: {}",
            verdict.error.as_deref().unwrap_or("unreadable")
        )),
        found: None,
    }
}

/// The facts of an HTML page: its first `max_bytes`, with the `<meta>` directives for the
/// profile's bot.
pub(crate) fn inspect_page(
    body: &Body,
    base: &Url,
    profile: &Profile,
    max_bytes: usize,
) -> tidings_page::Page {
    let token = profile.robots.token.as_str();
    let context = tidings_page::Context {
        url: base,
        content_type: body.content_type.as_deref(),
        bots: &[token],
        limits: tidings_page::Limits {
            max_bytes,
            ..tidings_page::Limits::default()
        },
    };
    tidings_page::inspect(&body.bytes, &context)
}

/// The media type of an image by its first bytes, for the types tidings keeps and serves.
/// SVG is not kept: served from tidings' own origin, a script in it would run there.
pub fn image_type(bytes: &[u8]) -> Option<&'static str> {
    const TYPES: [(&[u8], usize, &str); 7] = [
        (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
        (b"\xff\xd8\xff", 0, "image/jpeg"),
        (b"GIF87a", 0, "image/gif"),
        (b"GIF89a", 0, "image/gif"),
        (b"\x00\x00\x01\x00", 0, "image/x-icon"),
        (b"BM", 0, "image/bmp"),
        (b"ftypavif", 4, "image/avif"),
    ];
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    TYPES.iter().find_map(|(magic, at, kind)| {
        bytes
            .get(*at..*at + magic.len())
            .is_some_and(|b| b == *magic)
            .then_some(*kind)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_known_by_their_first_bytes_and_svg_and_html_are_not_kept() {
        let cases: [(&[u8], Option<&str>); 10] = [
            (b"\x89PNG\r\n\x1a\n\0\0", Some("image/png")),
            (b"\xff\xd8\xff\xe0JFIF", Some("image/jpeg")),
            (b"GIF89a\x01\0", Some("image/gif")),
            (b"\0\0\x01\0\x01\0", Some("image/x-icon")),
            (b"RIFF\x10\0\0\0WEBPVP8 ", Some("image/webp")),
            (b"\0\0\0\x1cftypavif", Some("image/avif")),
            (b"BM\x36\0", Some("image/bmp")),
            (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
            (b"<!doctype html><html>", None),
            (b"", None),
        ];
        for (bytes, want) in cases {
            assert_eq!(image_type(bytes), want, "{bytes:?}");
        }
    }

    #[test]
    fn sr1_pages_are_read_for_entries_without_an_image_newest_first_and_bounded() {
        let mut profile = Profile::embedded("serenereader").unwrap();
        profile.pages.max_pages_per_read = 2;
        let at = |s: i64| DateTime::from_timestamp(s, 0);
        let entry = |id: &str, link: Option<&str>, published, content: Option<&str>| Entry {
            identity: id.into(),
            link: link.map(Into::into),
            published,
            content: content.map(Into::into),
            ..Entry::default()
        };
        let entries = vec![
            entry("old", Some("https://a.example/old"), at(10), None),
            entry(
                "pictured",
                Some("https://a.example/pic"),
                at(50),
                Some("<p><img src='/i.jpg'></p>"),
            ),
            entry("new", Some("https://a.example/new"), at(40), None),
            entry("mid", Some("https://a.example/mid"), at(20), None),
            entry("nolink", None, at(60), None),
            entry("mailto", Some("mailto:x@a.example"), at(60), None),
        ];
        let pages: Vec<String> = pages_to_read(&entries, &profile)
            .into_iter()
            .map(|p| p.entry_key)
            .collect();
        assert_eq!(pages, ["new", "mid"]);
    }
}
