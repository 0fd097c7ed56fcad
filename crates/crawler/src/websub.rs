//! WebSub (W3C Recommendation, 2018): a feed that names a hub is subscribed to there, when
//! this crawler has a public callback URL and its profile lists the `websub` purpose; while a
//! verified subscription runs the feed is read less often (`tidings_policy::websub`); what the
//! hub pushes is accepted only under the subscription's secret and stored as a read's entries.
//!
//! The three steps of the protocol, and who takes them:
//!
//! ```text
//! crawler: a read finds <link rel="hub">  ─►  save "requested" + POST hub.mode=subscribe
//!                                              (in the hub host's turn, logged, C3, C7)
//! hub ─► GET /websub/{token}?hub.mode=subscribe&hub.challenge=…  ─►  verify_intent: "live"
//! hub ─► POST /websub/{token} (X-Hub-Signature)                   ─►  accept_push: entries
//! ```
//!
//! The API serves the callback and calls [`verify_intent`] and [`accept_push`]; they need
//! only the store and the profile, so a `serve --no-crawl` node answers hubs too.

use crate::drive::{ahead_row, log_row_of};
use crate::{CrawlError, Crawler};
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use tidings_fetch::FetchRequest;
use tidings_model::{FeedId, RequestPurpose, SubscriptionState};
use tidings_policy::Profile;
use tidings_policy::websub::{self as rule, Ask, Standing};
use tidings_store::{FeedRecord, PushRecord, Store, WebSubRecord};
use url::Url;

/// The callback path under the configured public URL: `{callback}/websub/{token}`.
pub const CALLBACK_PATH: &str = "websub";

/// Random bytes in a callback's token (written as hex) and in a subscription's secret.
const TOKEN_BYTES: usize = 16;
const SECRET_BYTES: usize = 32;

/// Whether `token` could name one of our callbacks (as many hex digits as [`TOKEN_BYTES`]
/// make), before any store is asked.
pub fn is_token(token: &str) -> bool {
    token.len() == 2 * TOKEN_BYTES && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What a read found of WebSub in the feed it parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Named {
    pub hub: Url,
    /// The feed's `rel="self"` URL, else the URL read: what the hub knows the feed as.
    pub topic: String,
}

impl Named {
    /// The hub and topic `parsed` names, when its hub is an http(s) URL.
    pub(crate) fn of(parsed: &tidings_model::ParsedFeed, read: &Url) -> Option<Named> {
        let hub = Url::parse(parsed.feed.hub.as_deref()?).ok()?;
        if !matches!(hub.scheme(), "http" | "https") {
            return None;
        }
        let topic = parsed
            .feed
            .links
            .iter()
            .find(|l| l.rel == "self")
            .and_then(|l| Url::parse(&l.href).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .map_or_else(|| read.to_string(), String::from);
        Some(Named { hub, topic })
    }
}

fn standing(r: &WebSubRecord) -> Standing<'_> {
    Standing {
        hub: &r.hub,
        topic: &r.topic,
        state: r.state,
        requested_at: r.requested_at,
        lease_until: r.lease_until,
    }
}

impl Crawler {
    /// The public callback base, when this crawler subscribes at all.
    fn websub_callback(&self) -> Option<&Url> {
        self.config
            .websub_callback
            .as_ref()
            .filter(|_| self.profile.requests.allows(RequestPurpose::WebSub))
    }

    /// The feed's subscription, read before its read is stored; `None` when this crawler
    /// does not subscribe or the store could not say (the read is stored either way).
    pub(crate) async fn websub_of(&self, feed: FeedId) -> Option<WebSubRecord> {
        self.websub_callback()?;
        match self.store.websub(feed).await {
            Ok(found) => found,
            Err(e) => {
                tracing::warn!(feed_id = feed.0, error = %e, "WebSub subscription unreadable");
                None
            }
        }
    }

    /// When a successful read of a pushed feed is read next, and why: later than the policy
    /// said while the hub pushes (`None`: the policy's time stands).
    pub(crate) fn websub_stretch(
        &self,
        sub: Option<&WebSubRecord>,
        next_at: DateTime<Utc>,
    ) -> Option<(DateTime<Utc>, String)> {
        let sub = sub?;
        let settings = &self.profile.websub;
        rule::stretch(&standing(sub), next_at, self.now(), settings)
            .map(|at| (at, rule::stretch_reason(&sub.hub, settings)))
    }

    /// After a read that named a hub is stored: ask the hub for a subscription when one is
    /// due. The request waits for the hub host's turn on a task of its own, so the feed's
    /// lane goes on; a run waits for it before it ends.
    pub(crate) fn websub_after(
        &self,
        feed: &FeedRecord,
        sub: Option<WebSubRecord>,
        named: Option<Named>,
    ) {
        let (Some(callback), Some(named)) = (self.websub_callback(), named) else {
            return;
        };
        let Some(ask) = rule::ask(
            sub.as_ref().map(standing).as_ref(),
            named.hub.as_str(),
            &named.topic,
            self.now(),
            &self.profile.websub,
        ) else {
            return;
        };
        let crawler = self.clone();
        let callback = callback.clone();
        let feed = (feed.id, feed.subscribers);
        let task = tokio::spawn(async move {
            if let Err(e) = crawler.ask_hub(feed, named, sub, ask, &callback).await {
                tracing::warn!(feed_id = feed.0.0, error = %e, "WebSub subscription not asked");
            }
        });
        let mut pending = self.websub_tasks.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|t| !t.is_finished());
        pending.push(task);
    }

    /// Wait for the subscription requests under way (the end of a run).
    pub(crate) async fn websub_settle(&self) {
        let pending =
            std::mem::take(&mut *self.websub_tasks.lock().unwrap_or_else(|e| e.into_inner()));
        for task in pending {
            let _ = task.await;
        }
    }

    /// Ask `named.hub` to push `named.topic` to this feed's callback: the subscription is
    /// saved first (a hub may verify before it answers), then the request is sent in the
    /// hub's turn, and its answer saved with its log row.
    async fn ask_hub(
        &self,
        (feed, subscribers): (FeedId, i64),
        named: Named,
        known: Option<WebSubRecord>,
        ask: Ask,
        callback: &Url,
    ) -> Result<(), CrawlError> {
        let same = known
            .as_ref()
            .filter(|k| k.hub == named.hub.as_str() && k.topic == named.topic);
        let (token, secret) = match same {
            Some(k) => (k.token.clone(), k.secret.clone()),
            None => (random_hex(TOKEN_BYTES)?, random_hex(SECRET_BYTES)?),
        };
        let callback_url = callback_url(callback, &token)?;
        let budget = crate::time_limit(&self.fetcher, 1);
        let gap = tidings_policy::robots::host_gap(&self.profile, None, false);
        let turn = self.host_turn(&named.hub, gap, budget).await?;
        if let Some(rule) = self.blocked(&named.hub, Some(feed)).await? {
            turn.end(self).await;
            tracing::info!(feed_id = feed.0, hub = %named.hub, %rule, "WebSub hub not asked: a rule covers it");
            return Ok(());
        }
        let now = self.now();
        let mut record = WebSubRecord {
            feed_id: feed,
            token,
            hub: named.hub.to_string(),
            topic: named.topic.clone(),
            secret,
            // A renewal keeps the running lease until the hub verifies the new one.
            state: match same {
                Some(k) if k.state == SubscriptionState::Live => SubscriptionState::Live,
                _ => SubscriptionState::Requested,
            },
            requested_at: now,
            lease_until: same.and_then(|k| k.lease_until),
            reason: None,
            pushes: 0,
            last_push_at: None,
        };
        if let Err(e) = self.store.save_websub(&record, &[]).await {
            turn.end(self).await;
            return Err(e.into());
        }
        let lease = self.profile.websub.lease.to_string();
        let request = FetchRequest {
            follow_redirects: false,
            user_agent: self.user_agent_of(subscribers),
            form: Some(vec![
                ("hub.callback".into(), callback_url.to_string()),
                ("hub.mode".into(), "subscribe".into()),
                ("hub.topic".into(), named.topic.clone()),
                ("hub.lease_seconds".into(), lease),
                ("hub.secret".into(), record.secret.clone()),
            ]),
            ..FetchRequest::new(named.hub.clone())
        };
        let why = match ask {
            Ask::New => "websub: the feed names this hub",
            Ask::Renew => "websub: the lease ends soon",
            Ask::Again => "websub: asked again after a day",
        };
        let purpose = RequestPurpose::WebSub.as_str();
        let ahead = ahead_row(self.now(), Some(feed), &named.hub, purpose, why);
        let sent = self.send(&turn, &request, purpose, &ahead).await;
        turn.end(self).await;
        let (response, ticket) = sent?;
        let clock = &self.config.clock;
        let outcome = clock.answer_outcome(response.outcome);
        let status = outcome.status();
        let accepted = status.is_some_and(|s| (200..300).contains(&s));
        let mut row = log_row_of(
            clock.crawler_time_of(response.started_at),
            Some(feed),
            &named.hub,
            purpose,
            status,
            outcome.label(),
            response.bytes,
            response.duration,
            why,
        );
        row.ticket = Some(ticket);
        if !accepted {
            let said =
                status.map_or_else(|| outcome.label().as_str().to_owned(), |s| s.to_string());
            record.reason = Some(format!("the hub answered {said}"));
            if record.state != SubscriptionState::Live {
                record.state = SubscriptionState::Failed;
            }
        }
        tracing::info!(
            feed_id = feed.0, hub = %named.hub, topic = %named.topic, ?ask, accepted,
            "WebSub subscription asked"
        );
        self.store.save_websub(&record, &[row]).await?;
        Ok(())
    }
}

/// `{callback}/websub/{token}`.
fn callback_url(callback: &Url, token: &str) -> Result<Url, CrawlError> {
    let mut url = callback.clone();
    url.path_segments_mut()
        .map_err(|()| CrawlError::Internal(format!("{callback} cannot take a path")))?
        .pop_if_empty()
        .push(CALLBACK_PATH)
        .push(token);
    Ok(url)
}

fn random_hex(bytes: usize) -> Result<String, CrawlError> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| CrawlError::Internal(format!("no randomness: {e}")))?;
    Ok(hex::encode(buf))
}

/// What a hub's verification request asks (`hub.*` query parameters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verification {
    pub mode: String,
    pub topic: Option<String>,
    pub challenge: Option<String>,
    pub lease_seconds: Option<u64>,
    /// Why a subscription was denied (`hub.mode=denied`).
    pub reason: Option<String>,
}

/// The answer to a verification: the challenge to echo (200), or not ours (404).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    Echo(String),
    /// A denial noted.
    Noted,
    NotOurs,
}

/// A hub verifies the intent of the subscription named by `token` (or says it denied it).
/// Only a subscription this crawler asked for, for its topic, is confirmed; we never ask to
/// unsubscribe, so an unsubscription is never ours.
pub async fn verify_intent(
    store: &dyn Store,
    profile: &Profile,
    token: &str,
    asked: &Verification,
    now: DateTime<Utc>,
) -> Result<Verified, CrawlError> {
    let Some(mut record) = store.websub_by_token(token).await? else {
        return Ok(Verified::NotOurs);
    };
    let topic_matches = asked.topic.as_deref() == Some(record.topic.as_str());
    match asked.mode.as_str() {
        "subscribe" if topic_matches => {
            let Some(challenge) = asked.challenge.clone().filter(|c| !c.is_empty()) else {
                return Ok(Verified::NotOurs);
            };
            record.state = SubscriptionState::Live;
            record.lease_until = Some(rule::lease_end(asked.lease_seconds, now, &profile.websub));
            record.reason = None;
            store.save_websub(&record, &[]).await?;
            tracing::info!(feed_id = record.feed_id.0, hub = %record.hub, lease_until = ?record.lease_until, "WebSub subscription verified");
            Ok(Verified::Echo(challenge))
        }
        "denied" if topic_matches || asked.topic.is_none() => {
            record.state = SubscriptionState::Denied;
            record.lease_until = None;
            record.reason = Some(
                asked
                    .reason
                    .as_deref()
                    .map_or_else(|| "denied by the hub".to_owned(), bounded),
            );
            store.save_websub(&record, &[]).await?;
            tracing::info!(feed_id = record.feed_id.0, hub = %record.hub, "WebSub subscription denied");
            Ok(Verified::Noted)
        }
        _ => Ok(Verified::NotOurs),
    }
}

/// A hub's text, bounded for the store.
fn bounded(text: &str) -> String {
    text.chars().take(500).collect()
}

/// What became of content a hub pushed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// Stored: entries new and changed.
    Stored { new: u64, updated: u64 },
    /// Accepted and dropped, with why (a bad signature, a body that is no feed, the daily
    /// bound): the hub is told 2xx either way, as the protocol asks.
    Ignored(String),
    /// No subscription of ours: the hub should stop (410 Gone).
    Gone,
    /// Longer than the profile's `websub.max_push_bytes`.
    TooLarge,
}

/// A push for the subscription named by `token`: checked against its secret
/// (`X-Hub-Signature: sha1=|sha256=|sha384=|sha512=<hex HMAC of the body>`), parsed as a
/// read's body is, kept as the profile keeps a read's entries, bounded by C8, and stored.
pub async fn accept_push(
    store: &dyn Store,
    profile: &Profile,
    token: &str,
    signature: Option<&str>,
    content_type: Option<&str>,
    body: Vec<u8>,
    now: DateTime<Utc>,
) -> Result<Pushed, CrawlError> {
    if u64::try_from(body.len()).unwrap_or(u64::MAX) > profile.websub.max_push_bytes {
        return Ok(Pushed::TooLarge);
    }
    let Some(record) = store.websub_by_token(token).await? else {
        return Ok(Pushed::Gone);
    };
    if record.state != SubscriptionState::Live {
        return Ok(Pushed::Gone);
    }
    let Some(feed) = store.feed(record.feed_id).await? else {
        return Ok(Pushed::Gone);
    };
    // Nobody reads it any more: the hub is told to stop, as for a subscription not ours.
    if feed.subscribers == 0 {
        return Ok(Pushed::Gone);
    }
    if !matches!(feed.state, tidings_store::FeedState::Active) {
        return Ok(Pushed::Ignored(format!(
            "the feed is {}, not read",
            feed.state.as_str()
        )));
    }
    if let Err(why) = check_signature(&record.secret, signature, &body) {
        tracing::warn!(feed_id = feed.id.0, hub = %record.hub, %why, "WebSub push ignored");
        return Ok(Pushed::Ignored(why));
    }
    let base = Url::parse(&record.topic).unwrap_or_else(|_| feed.url.as_url().clone());
    let read = tidings_read::Body {
        bytes: body,
        content_type: content_type.map(str::to_owned),
    };
    let limits = profile.entries;
    let base_text = base.to_string();
    let verdict = tokio::task::spawn_blocking(move || {
        crate::refresh::judge_body(None, &read, &base_text, &limits)
    })
    .await
    .map_err(|e| CrawlError::Internal(format!("reading a pushed body failed: {e}")))?;
    let Some(mut parsed) = verdict.parsed else {
        let why = verdict
            .error
            .unwrap_or_else(|| "the pushed body is not a feed".to_owned());
        tracing::warn!(feed_id = feed.id.0, %why, "WebSub push ignored");
        return Ok(Pushed::Ignored(why));
    };
    tidings_read::keep_pushed(&mut parsed, profile, &feed.directives, feed.url.as_url());
    // C8: the same bound on new entries per day as a read's; a push over it is dropped (the
    // next read decides whether the feed is held).
    let ids: Vec<&str> = parsed.entries.iter().map(|e| e.identity.as_str()).collect();
    let since = tidings_policy::volume::window_start(now);
    let counts = store.new_entry_counts(feed.id, &ids, since).await?;
    if let Some(why) =
        tidings_policy::volume::over_daily_bound(counts.first_seen_since, counts.unseen, profile)
    {
        tracing::warn!(feed_id = feed.id.0, %why, "WebSub push ignored");
        return Ok(Pushed::Ignored(why));
    }
    let report = store
        .apply_push(PushRecord {
            feed_id: feed.id,
            received_at: now,
            entries: parsed.entries,
        })
        .await?;
    tracing::info!(
        feed_id = feed.id.0, hub = %record.hub, new = report.new_entries,
        updated = report.updated_entries, "WebSub push stored"
    );
    Ok(Pushed::Stored {
        new: report.new_entries,
        updated: report.updated_entries,
    })
}

/// Whether `signature` (an `X-Hub-Signature` value) is the HMAC of `body` under `secret`.
fn check_signature(secret: &str, signature: Option<&str>, body: &[u8]) -> Result<(), String> {
    let Some(signature) = signature else {
        return Err("the push carries no X-Hub-Signature".to_owned());
    };
    let (method, hex_sig) = signature
        .trim()
        .split_once('=')
        .ok_or_else(|| "X-Hub-Signature is not method=signature".to_owned())?;
    let given = hex::decode(hex_sig.trim())
        .map_err(|_| "X-Hub-Signature's signature is not hexadecimal".to_owned())?;
    let key = secret.as_bytes();
    let matches = match method.trim().to_ascii_lowercase().as_str() {
        "sha1" => verify::<Hmac<sha1::Sha1>>(key, body, &given),
        "sha256" => verify::<Hmac<sha2::Sha256>>(key, body, &given),
        "sha384" => verify::<Hmac<sha2::Sha384>>(key, body, &given),
        "sha512" => verify::<Hmac<sha2::Sha512>>(key, body, &given),
        other => {
            return Err(format!(
                "X-Hub-Signature uses {other:?}, not an HMAC we accept"
            ));
        }
    };
    if matches {
        Ok(())
    } else {
        Err("X-Hub-Signature does not match the subscription's secret".to_owned())
    }
}

/// A constant-time check of `given` against the HMAC of `body` under `key`.
fn verify<M: Mac + hmac::digest::KeyInit>(key: &[u8], body: &[u8], given: &[u8]) -> bool {
    let Ok(mut mac) = <M as hmac::digest::KeyInit>::new_from_slice(key) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(given).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign<M: Mac + hmac::digest::KeyInit>(key: &str, body: &[u8]) -> String {
        let mut mac = <M as hmac::digest::KeyInit>::new_from_slice(key.as_bytes()).unwrap();
        mac.update(body);
        hex::encode(mac.finalize().into_bytes())
    }

    #[test]
    fn a_push_is_accepted_only_under_its_secret() {
        let body = b"<rss version=\"2.0\"><channel/></rss>";
        let good256 = format!("sha256={}", sign::<Hmac<sha2::Sha256>>("k", body));
        let good1 = format!("sha1={}", sign::<Hmac<sha1::Sha1>>("k", body));
        let good512 = format!("SHA512={}", sign::<Hmac<sha2::Sha512>>("k", body));
        let other_key = format!("sha256={}", sign::<Hmac<sha2::Sha256>>("x", body));
        let cases: [(Option<&str>, bool); 8] = [
            (Some(&good256), true),
            (Some(&good1), true),
            (Some(&good512), true),
            (Some(&other_key), false),
            (None, false),
            (Some("sha256"), false),
            (Some("md5=00ff"), false),
            (Some("sha256=zz"), false),
        ];
        for (signature, ok) in cases {
            assert_eq!(
                check_signature("k", signature, body).is_ok(),
                ok,
                "{signature:?}"
            );
        }
        // A body changed after signing is refused.
        assert!(check_signature("k", Some(&good256), b"<rss/>").is_err());
    }

    #[test]
    fn callbacks_are_under_the_configured_url() {
        let at = |base: &str| {
            callback_url(&Url::parse(base).unwrap(), "abc")
                .unwrap()
                .to_string()
        };
        assert_eq!(at("https://r.example/"), "https://r.example/websub/abc");
        assert_eq!(
            at("https://r.example/tidings"),
            "https://r.example/tidings/websub/abc"
        );
        assert_eq!(
            at("https://r.example/tidings/"),
            "https://r.example/tidings/websub/abc"
        );
    }

    #[test]
    fn the_topic_is_the_feeds_self_url_else_the_url_read() {
        use tidings_model::{Feed, FeedFormat, Link, ParsedFeed};
        let read = Url::parse("https://example.org/feed?x=1").unwrap();
        let parsed = |hub: Option<&str>, links: Vec<Link>| ParsedFeed {
            format: FeedFormat::Atom10,
            feed: Feed {
                hub: hub.map(str::to_owned),
                links,
                ..Feed::default()
            },
            entries: Vec::new(),
            warnings: Vec::new(),
        };
        let link = |rel: &str, href: &str| Link {
            rel: rel.into(),
            href: href.into(),
            media_type: None,
            title: None,
            length: None,
            hreflang: None,
        };
        assert_eq!(Named::of(&parsed(None, vec![]), &read), None);
        assert_eq!(Named::of(&parsed(Some("ftp://hub/"), vec![]), &read), None);
        let own = Named::of(&parsed(Some("https://hub.example/"), vec![]), &read).unwrap();
        assert_eq!(
            (own.hub.as_str(), own.topic.as_str()),
            ("https://hub.example/", read.as_str())
        );
        let selfed = Named::of(
            &parsed(
                Some("https://hub.example/"),
                vec![
                    link("alternate", "https://example.org/"),
                    link("self", "https://example.org/atom"),
                ],
            ),
            &read,
        )
        .unwrap();
        assert_eq!(selfed.topic, "https://example.org/atom");
    }
}
