//! Whether a URL could ever be read, asked once when it is subscribed to: a subscription the
//! address guard would refuse at every read is refused at once instead, with the reason, and
//! is never stored (it would stay active, refused again at each step of its back-off).
//!
//! Only what needs no DNS is judged here, through the guard's own [`check_target`]: the
//! scheme and an IP-literal host (`http://10.0.0.1/`, `http://[::1]/`, `http://2130706433/`).
//! A host name, `localhost` included, is left to the reads, where the guarded resolver judges
//! the addresses the connection would use: the operator's fixed resolutions (`--resolve`) may
//! point any name anywhere, and a subscription must not wait on a name server.

use crate::guard::check_target;
use url::Url;

/// The address guard would refuse every read of the URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreachable {
    /// The host is an address outside the public address space (the guard's reason), which
    /// tidings reads only when private networks are allowed.
    #[error("{0}; tidings reads it only when run with --allow-private-networks")]
    PrivateAddress(String),
    /// Refused whatever the setting (not `http`/`https`, no host).
    #[error("{0}")]
    Never(String),
}

/// Refuse `url` when no read of it could pass the address guard.
pub fn check(url: &Url, allow_private_networks: bool) -> Result<(), Unreachable> {
    match check_target(url, allow_private_networks) {
        Ok(()) => Ok(()),
        // Allowing private networks would let it through: that is the flag to name.
        Err(refusal) if check_target(url, true).is_ok() => {
            Err(Unreachable::PrivateAddress(refusal.0))
        }
        Err(refusal) => Err(Unreachable::Never(refusal.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::{Unreachable, check};
    use url::Url;

    fn verdict(url: &str, allow: bool) -> Result<(), Unreachable> {
        match Url::parse(url) {
            Ok(url) => check(&url, allow),
            Err(e) => panic!("bad test url {url}: {e}"),
        }
    }

    #[test]
    fn ip_literals_outside_the_public_space_are_refused_with_the_flag_named() {
        let refused = verdict("http://10.0.0.1/", false);
        assert_eq!(
            refused,
            Err(Unreachable::PrivateAddress(
                "address 10.0.0.1 is private".into()
            ))
        );
        let shown = refused.map_err(|e| e.to_string()).unwrap_err();
        assert!(shown.contains("--allow-private-networks"), "{shown}");
        for url in [
            "http://127.0.0.1:8080/f",
            "http://[::1]/f",
            "http://169.254.169.254/",
        ] {
            assert!(
                matches!(verdict(url, false), Err(Unreachable::PrivateAddress(_))),
                "{url}"
            );
            assert_eq!(verdict(url, true), Ok(()), "{url}");
        }
    }

    #[test]
    fn names_and_public_addresses_are_left_to_the_reads() {
        for url in [
            "https://93.184.216.34/feed",
            "http://localhost/feed",
            "http://feeds.example.test/rss",
        ] {
            assert_eq!(verdict(url, false), Ok(()), "{url}");
        }
        assert!(matches!(
            verdict("ftp://example.test/feed", true),
            Err(Unreachable::Never(_))
        ));
    }
}
