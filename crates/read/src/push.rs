//! What is kept of content a WebSub hub pushed: the removals a read of the feed makes
//! (`tidings_rights::keep`), under the feed's stored directives (FF14), and its thumbnails
//! (FF7, FF8). A push carries none of the publisher's response headers and no robots.txt copy
//! is read for it, which is why a profile that keeps excerpts (decided by robots.txt, DFB2)
//! never subscribes (`Profile` refuses `websub` with `keep.summary = "excerpt"`).

use tidings_model::ParsedFeed;
use tidings_policy::Profile;
use tidings_rights::Directives;

/// Remove from `parsed` (pushed for the feed at `feed_url`) what `profile` does not keep.
pub fn keep_pushed(
    parsed: &mut ParsedFeed,
    profile: &Profile,
    directives: &Directives,
    feed_url: &url::Url,
) {
    let directives = if profile.rights.directives {
        *directives
    } else {
        Directives::NONE
    };
    tidings_rights::keep::apply(parsed, &profile.keep, &[], &directives);
    if profile.rights.thumbnails {
        tidings_rights::thumbnail::select(parsed, Some(feed_url), &profile.rights, &profile.keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidings_model::{Entry, Feed};

    fn pushed() -> ParsedFeed {
        ParsedFeed {
            feed: Feed {
                title: Some("A feed".into()),
                ..Feed::default()
            },
            entries: vec![Entry {
                identity: "e1".into(),
                title: Some("One".into()),
                summary: Some("The whole text of one".into()),
                content: Some("<p>The whole text of one</p>".into()),
                ..Entry::default()
            }],
            format: tidings_model::FeedFormat::Atom10,
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_push_keeps_what_a_read_keeps_under_the_feeds_directives() {
        let url = url::Url::parse("https://example.org/feed").unwrap();
        let profile = Profile::embedded("default").unwrap();
        let mut everything = pushed();
        keep_pushed(&mut everything, &profile, &Directives::NONE, &url);
        assert!(everything.entries[0].content.is_some());

        // FF14: under a profile that obeys directives, a feed whose answers said `nosnippet,
        // noarchive` keeps no text of a pushed entry either; one that does not obey them keeps
        // it all.
        let nosnippet = Directives {
            nosnippet: true,
            noarchive: true,
            ..Directives::NONE
        };
        let mut ignored = pushed();
        keep_pushed(&mut ignored, &profile, &nosnippet, &url);
        assert!(ignored.entries[0].content.is_some());
        let obeys = Profile::embedded("ffbot").unwrap();
        assert!(obeys.rights.directives);
        let mut held = pushed();
        keep_pushed(&mut held, &obeys, &nosnippet, &url);
        let e = &held.entries[0];
        assert_eq!((e.summary.as_deref(), e.content.as_deref()), (None, None));
        assert_eq!(e.title.as_deref(), Some("One"));
    }
}
