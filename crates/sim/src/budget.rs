//! What a bot that reads article pages, icons and images may ask of each one (SR1, SR4, SR6,
//! FF9), checked from the publisher's side: per URL, the waits between its requests follow
//! from the answers it got; per site, icon requests for different URLs are a window apart.
//!
//! - **SR1**: an article page that was answered 2xx is never asked again ([`Rule::PageOnce`]);
//!   nor is an image (FF9: one copy per image URL, while the cache holds it);
//!   an icon answered 2xx is asked again no sooner than [`PageBudget::icon_refresh`].
//! - **SR4**: after no answer or a 5xx (503 apart), the next request waits the retry step of
//!   the failures in a row so far, and once the steps are used up the hold; after a permanent
//!   failure (404, 410, another 4xx but 429, a redirect the bot did not follow here) the URL
//!   is left alone for [`PageBudget::remember_failure`] ([`Rule::PageRetry`]);
//! - **SR6**: after a 429 or 503, the throttle step, then the Retry-After in seconds capped at
//!   [`PageBudget::throttle_hold_max`], or that long without one;
//! - **SR1**: two icon requests for different URLs of one host are at least
//!   [`PageBudget::icon_spacing`] apart ([`Rule::IconWindow`]).
//!
//! Waits are measured on the scenario clock, from the end of one exchange (its head when the
//! client abandoned it) to the start of the next.

use crate::auditor::{Requested, Rule, Violation, violation};
use crate::recorder::{Exchange, bytes_to_string};
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

/// What the profile allows per page and icon URL (its `[pages]` numbers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageBudget {
    pub retry_steps: Vec<Duration>,
    pub hold_after_retries: Duration,
    pub throttle_steps: Vec<Duration>,
    pub throttle_hold_max: Duration,
    pub remember_failure: Duration,
    pub icon_refresh: Duration,
    pub icon_spacing: Duration,
}

/// The shortest wait the answer of `e` sets before its URL is asked again, with the rule it
/// is owed to; `failures` is the temporary failures in a row before `e` (updated).
fn wait_after(
    e: &Exchange,
    kind: Requested,
    failures: &mut usize,
    budget: &PageBudget,
) -> Option<(Duration, Rule, &'static str)> {
    let step = |steps: &[Duration], hold: Duration, failures: &mut usize| {
        let wait = steps.get(*failures).copied();
        *failures = if wait.is_some() { *failures + 1 } else { 0 };
        wait.unwrap_or(hold)
    };
    match e.status {
        Some(200..=299) => {
            *failures = 0;
            match kind {
                Requested::Icon => Some((budget.icon_refresh, Rule::PageRetry, "icon read")),
                _ => Some((Duration::MAX, Rule::PageOnce, "page read")),
            }
        }
        Some(429 | 503) => {
            let asked = e
                .response_header("retry-after")
                .and_then(|v| bytes_to_string(v).trim().parse::<u64>().ok())
                .map_or(budget.throttle_hold_max, |s| {
                    Duration::from_secs(s).min(budget.throttle_hold_max)
                });
            Some((
                step(&budget.throttle_steps, asked, failures),
                Rule::PageRetry,
                "throttled (SR6)",
            ))
        }
        None | Some(500..=599) => Some((
            step(&budget.retry_steps, budget.hold_after_retries, failures),
            Rule::PageRetry,
            "temporary failure (SR4)",
        )),
        Some(_) => {
            *failures = 0;
            Some((
                budget.remember_failure,
                Rule::PageRetry,
                "permanent failure (SR4)",
            ))
        }
    }
}

/// When the client was last surely in the exchange: its end, or its head when it left early.
fn left(e: &Exchange) -> SystemTime {
    let end = if e.abandoned() {
        e.responded.or(e.ended)
    } else {
        e.ended
    };
    end.unwrap_or(e.started).sim
}

pub(crate) fn pages(
    ordered: &[&Exchange],
    kinds: &HashMap<u64, Requested>,
    budget: &PageBudget,
    out: &mut Vec<Violation>,
) {
    // Per URL: when it may be asked again, why, and the failures in a row.
    let mut next: HashMap<(&str, &str), (SystemTime, Rule, &'static str, u64)> = HashMap::new();
    let mut failures: HashMap<(&str, &str), usize> = HashMap::new();
    // Per host: the last icon request, for the window.
    let mut last_icon: HashMap<&str, &Exchange> = HashMap::new();
    for e in ordered {
        let Some(&kind) = kinds.get(&e.id) else {
            continue;
        };
        if !matches!(kind, Requested::Page | Requested::Icon | Requested::Image) {
            continue;
        }
        let key = (e.host.as_str(), e.target.as_str());
        if let Some(&(at, rule, why, given_by)) = next.get(&key)
            && e.started.sim < at
        {
            let early = at
                .duration_since(e.started.sim)
                .map_or_else(|_| "early".to_owned(), |d| format!("{d:?} early"));
            out.push(violation(
                rule,
                vec![given_by, e.id],
                format!(
                    "{} {} on {} asked again after a {why}: {}",
                    e.method,
                    e.target,
                    e.host,
                    if rule == Rule::PageOnce {
                        "a page is read once".to_owned()
                    } else {
                        early
                    }
                ),
            ));
        }
        if kind == Requested::Icon {
            if let Some(last) = last_icon.get(e.host.as_str())
                && last.target != e.target
                && e.started.sim < left(last) + budget.icon_spacing
            {
                out.push(violation(
                    Rule::IconWindow,
                    vec![last.id, e.id],
                    format!(
                        "icon {} on {} asked within {:?} of icon {}",
                        e.target, e.host, budget.icon_spacing, last.target
                    ),
                ));
            }
            last_icon.insert(e.host.as_str(), e);
        }
        let count = failures.entry(key).or_default();
        if let Some((wait, rule, why)) = wait_after(e, kind, count, budget) {
            let at = left(e)
                .checked_add(wait)
                .unwrap_or(SystemTime::UNIX_EPOCH + Duration::from_secs(u64::MAX / 4));
            next.insert(key, (at, rule, why, e.id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::{Header, Stamp};

    fn at(secs: u64) -> Stamp {
        Stamp {
            mono: Duration::from_secs(secs),
            wall: SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
            sim: SystemTime::UNIX_EPOCH + Duration::from_secs(secs),
        }
    }

    fn exchange(id: u64, target: &str, secs: u64, status: Option<u16>) -> Exchange {
        Exchange {
            id,
            host: "pub.test".into(),
            local: "127.0.0.2:80".parse().unwrap(),
            peer: "127.0.0.1:5000".parse().unwrap(),
            method: "GET".into(),
            target: target.into(),
            headers: Vec::<Header>::new(),
            status,
            response_headers: Vec::new(),
            body_bytes: 0,
            started: at(secs),
            responded: status.map(|_| at(secs)),
            ended: Some(at(secs + 1)),
            completed: true,
        }
    }

    fn budget() -> PageBudget {
        let s = Duration::from_secs;
        PageBudget {
            retry_steps: vec![s(30), s(60), s(120)],
            hold_after_retries: s(3600),
            throttle_steps: vec![s(30), s(60), s(120)],
            throttle_hold_max: s(7 * 86_400),
            remember_failure: s(30 * 86_400),
            icon_refresh: s(30 * 86_400),
            icon_spacing: s(86_400),
        }
    }

    /// The rules broken by a run of `(target, start second, status)` exchanges, with the
    /// kind of each (icons and images by their path).
    fn broken(run: &[(&str, u64, Option<u16>)]) -> Vec<Rule> {
        let exchanges: Vec<Exchange> = run
            .iter()
            .enumerate()
            .map(|(i, (t, s, st))| exchange(i as u64, t, *s, *st))
            .collect();
        let kinds = exchanges
            .iter()
            .map(|e| {
                let kind = if e.target.contains("icon") {
                    Requested::Icon
                } else if e.target.ends_with(".png") {
                    Requested::Image
                } else {
                    Requested::Page
                };
                (e.id, kind)
            })
            .collect();
        let ordered: Vec<&Exchange> = exchanges.iter().collect();
        let mut out = Vec::new();
        pages(&ordered, &kinds, &budget(), &mut out);
        out.into_iter().map(|v| v.rule).collect()
    }

    /// A request in a table row: its path, seconds from the start, and the status answered.
    type Asked<'a> = (&'a str, u64, Option<u16>);

    #[test]
    fn sr1_sr4_sr6_ff9_page_icon_and_image_budgets() {
        let rows: [(&str, &[Asked], &[Rule]); 11] = [
            ("read once", &[("/p", 0, Some(200))], &[]),
            (
                "FF9 an image read twice",
                &[("/i.png", 0, Some(200)), ("/i.png", 86_400, Some(200))],
                &[Rule::PageOnce],
            ),
            (
                "FF9 an image retried at the SR4 steps",
                &[("/i.png", 0, Some(500)), ("/i.png", 40, Some(200))],
                &[],
            ),
            (
                "SR1 a page read twice",
                &[("/p", 0, Some(200)), ("/p", 90_000, Some(200))],
                &[Rule::PageOnce],
            ),
            (
                "SR4 retries at their steps, then the hold",
                &[
                    ("/p", 0, Some(500)),
                    ("/p", 31, None),
                    ("/p", 92, Some(502)),
                    ("/p", 213, Some(500)),
                    ("/p", 3814, Some(200)),
                ],
                &[],
            ),
            (
                "SR4 a retry too soon",
                &[("/p", 0, Some(500)), ("/p", 20, Some(500))],
                &[Rule::PageRetry],
            ),
            (
                "SR4 the fourth retry before the hold",
                &[
                    ("/p", 0, Some(500)),
                    ("/p", 31, Some(500)),
                    ("/p", 92, Some(500)),
                    ("/p", 213, Some(500)),
                    ("/p", 600, Some(500)),
                ],
                &[Rule::PageRetry],
            ),
            (
                "SR4 a 404 asked again within 30 days",
                &[("/p", 0, Some(404)), ("/p", 86_400, Some(404))],
                &[Rule::PageRetry],
            ),
            (
                "SR6 a throttled page at its steps",
                &[
                    ("/p", 0, Some(429)),
                    ("/p", 31, Some(429)),
                    ("/p", 92, Some(200)),
                ],
                &[],
            ),
            (
                "SR1 two icons of a site on one day",
                &[
                    ("/favicon.ico", 0, Some(404)),
                    ("/apple-touch-icon.png", 60, Some(200)),
                ],
                &[Rule::IconWindow],
            ),
            (
                "SR1 the next icon a day later",
                &[
                    ("/favicon.ico", 0, Some(404)),
                    ("/apple-touch-icon.png", 86_402, Some(200)),
                ],
                &[],
            ),
        ];
        for (name, run, want) in rows {
            assert_eq!(broken(run), want, "{name}");
        }
    }
}
