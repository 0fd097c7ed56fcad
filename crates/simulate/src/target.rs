//! How the read machine names the modelled web's resources: a compact, copyable
//! [`Locator`] with no allocation per read.

use arrayvec::ArrayString;
use std::fmt;
use tidings_read::Locator;

/// The longest path a target holds: `/private/4294967295.xml` is 23 bytes.
const PATH_CAP: usize = 23;

/// A modelled host, as the unit of robots.txt and Retry-After floors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin(pub u32);

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://host{}.test", self.0)
    }
}

/// A feed's URL or its host's robots.txt.
///
/// The path is a string already (checked as it is written), so handing it out costs nothing:
/// the machine asks for it once per read, for robots.txt.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Target {
    path: ArrayString<PATH_CAP>,
    host: u32,
}

impl Target {
    /// `path` on `host`; a path longer than the cap is cut (the model's are never longer).
    pub fn new(host: u32, path: &str) -> Target {
        let mut t = Target {
            host,
            path: ArrayString::new(),
        };
        t.push(path);
        t
    }

    /// The URL of a feed of the model: `/feeds/ID.xml`, or under `/private/`.
    pub fn feed(host: u32, id: u32, private: bool) -> Target {
        let mut t = Target {
            host,
            path: ArrayString::new(),
        };
        t.push(if private { "/private/" } else { "/feeds/" });
        t.push(itoa::Buffer::new().format(id));
        t.push(".xml");
        t
    }

    pub fn host_id(&self) -> u32 {
        self.host
    }

    pub fn is_robots_txt(&self) -> bool {
        self.path_and_query() == "/robots.txt"
    }

    /// Append `s`, cut at a character boundary where the cap is reached.
    fn push(&mut self, s: &str) {
        let mut len = s.len().min(self.path.remaining_capacity());
        while !s.is_char_boundary(len) {
            len -= 1;
        }
        self.path.push_str(&s[..len]);
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", Origin(self.host), self.path_and_query())
    }
}

impl fmt::Debug for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Locator for Target {
    type Host = Origin;

    fn host(&self) -> Origin {
        Origin(self.host)
    }

    fn robots_txt(&self) -> Target {
        Target::new(self.host, "/robots.txt")
    }

    fn path_and_query(&self) -> &str {
        &self.path
    }

    /// The model answers no redirects: none is followed.
    fn follow(&self, _status: u16, _location: &str) -> Option<Target> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_name_the_models_paths_without_allocating() {
        let cases = [
            (Target::feed(3, 0, false), "http://host3.test/feeds/0.xml"),
            (
                Target::feed(7, u32::MAX, true),
                "http://host7.test/private/4294967295.xml",
            ),
            (
                Target::feed(7, 1234, false).robots_txt(),
                "http://host7.test/robots.txt",
            ),
        ];
        for (target, want) in cases {
            assert_eq!(target.to_string(), want);
        }
        assert!(Target::feed(1, 2, false).robots_txt().is_robots_txt());
        assert!(!Target::feed(1, 2, false).is_robots_txt());
        assert_eq!(Target::feed(9, 5, true).host(), Origin(9));
        assert_eq!(Target::new(1, "/é").path_and_query(), "/é");
    }
}
