//! How the read machine names the modelled web's resources: a compact, copyable
//! [`Locator`] with no allocation per read.

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
/// The path comes first, on an 8-byte boundary: the UTF-8 check that hands it out as a `str`
/// (once per read, for robots.txt) then reads it a word at a time from its first byte.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, align(8))]
pub struct Target {
    path: [u8; PATH_CAP],
    len: u8,
    host: u32,
}

impl Target {
    /// `path` on `host`; a path longer than the cap is cut (the model's are never longer).
    pub fn new(host: u32, path: &str) -> Target {
        let mut buf = [0u8; PATH_CAP];
        // Cut at a character boundary; the model's paths are ASCII.
        let mut len = path.len().min(PATH_CAP);
        while !path.is_char_boundary(len) {
            len -= 1;
        }
        buf[..len].copy_from_slice(&path.as_bytes()[..len]);
        Target {
            host,
            len: len as u8,
            path: buf,
        }
    }

    /// The URL of a feed of the model: `/feeds/ID.xml`, or under `/private/`.
    pub fn feed(host: u32, id: u32, private: bool) -> Target {
        let mut t = Target {
            host,
            len: 0,
            path: [0; PATH_CAP],
        };
        t.push(if private { "/private/" } else { "/feeds/" });
        let mut digits = [0u8; 10];
        let mut n = id;
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        t.push_bytes(&digits[i..]);
        t.push(".xml");
        t
    }

    pub fn host_id(&self) -> u32 {
        self.host
    }

    pub fn is_robots_txt(&self) -> bool {
        self.path_and_query() == "/robots.txt"
    }

    fn push(&mut self, s: &str) {
        self.push_bytes(s.as_bytes());
    }

    fn push_bytes(&mut self, b: &[u8]) {
        let at = usize::from(self.len);
        let n = b.len().min(PATH_CAP - at);
        self.path[at..at + n].copy_from_slice(&b[..n]);
        self.len += n as u8;
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
        // Only whole ASCII or UTF-8 pieces are ever written.
        std::str::from_utf8(&self.path[..usize::from(self.len)]).unwrap_or("/")
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
