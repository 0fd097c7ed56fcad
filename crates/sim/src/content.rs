//! Bodies the simulated publishers serve: feeds at a given version, malformed feeds, challenge
//! pages, filler for huge and endless bodies, and gzip bombs.
//!
//! Everything here is deterministic: the same inputs give the same bytes.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use bytes::Bytes;
use flate2::{Compress, Compression, FlushCompress};

/// An RSS 2.0 document holding entries `first..first + count` of the feed `title`; entry `i`
/// was published at `published(i)`.
pub fn rss(title: &str, first: u64, count: u64, published: impl Fn(u64) -> SystemTime) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel>\
         <title>{title}</title><link>http://{title}.example/</link>\
         <description>simulated feed {title}</description>\n"
    );
    // Newest first, as most publishers do.
    for i in (first..first.saturating_add(count)).rev() {
        let date = httpdate::fmt_http_date(published(i));
        let _ = writeln!(
            s,
            "<item><title>{title} story {i}</title><link>http://{title}.example/{i}</link>\
             <guid>{title}-{i}</guid><description>Story {i} of {title}.</description>\
             <pubDate>{date}</pubDate></item>"
        );
    }
    s.push_str("</channel></rss>\n");
    s
}

/// Ways a feed body can be broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// A valid start cut off in the middle of an element.
    Truncated,
    /// Plain text, no markup at all.
    NotXml,
    /// An HTML page served as a feed.
    Html,
    /// Bytes that are no text in any encoding (including NUL and invalid UTF-8).
    Binary,
    /// Declares UTF-8 but carries Latin-1 bytes.
    WrongEncoding,
    /// Well-formed RSS whose dates are nonsense.
    BadDates,
    /// Unclosed elements and an undefined entity.
    Unbalanced,
}

impl Malformed {
    /// Every kind, for tests that walk them all.
    pub const ALL: [Malformed; 7] = [
        Malformed::Truncated,
        Malformed::NotXml,
        Malformed::Html,
        Malformed::Binary,
        Malformed::WrongEncoding,
        Malformed::BadDates,
        Malformed::Unbalanced,
    ];

    /// The body of this kind.
    pub fn body(self) -> Bytes {
        match self {
            Malformed::Truncated => Bytes::from_static(
                b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Cut</title>\
                  <item><title>Half a sto",
            ),
            Malformed::NotXml => Bytes::from_static(b"this is not a feed, just words\n"),
            Malformed::Html => Bytes::from_static(
                b"<!DOCTYPE html><html><head><title>Home</title></head>\
                  <body><p>Welcome to our site</p></body></html>",
            ),
            Malformed::Binary => {
                let bytes: Vec<u8> = (0u32..512).map(|i| (i * 151 % 256) as u8).collect();
                Bytes::from(bytes)
            }
            Malformed::WrongEncoding => {
                let mut v = b"<?xml version=\"1.0\" encoding=\"utf-8\"?><rss version=\"2.0\"><channel><title>Caf"
                    .to_vec();
                v.push(0xE9); // 'é' in Latin-1, invalid alone in UTF-8
                v.extend_from_slice(b"</title><item><title>Na\xEFve</title><guid>x</guid></item></channel></rss>");
                Bytes::from(v)
            }
            Malformed::BadDates => Bytes::from_static(
                b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Dates</title>\
                  <item><title>A</title><guid>a</guid><pubDate>Mon, 45 Foo 20x6 99:99:99 XYZ</pubDate></item>\
                  <item><title>B</title><guid>b</guid><pubDate>yesterday-ish</pubDate></item>\
                  </channel></rss>",
            ),
            Malformed::Unbalanced => Bytes::from_static(
                b"<rss version=\"2.0\"><channel><title>Open &nbsp; &bogus; end\
                  <item><title>One<item><title>Two</channel>",
            ),
        }
    }
}

/// A bot-challenge page, as CDNs serve them.
pub fn challenge_page() -> Bytes {
    Bytes::from_static(
        b"<!DOCTYPE html><html><head><title>Just a moment...</title></head>\
          <body><noscript>Enable JavaScript and cookies to continue</noscript>\
          <div id=\"challenge\">Checking your browser before accessing the site.</div></body></html>",
    )
}

/// The first bytes of a huge or endless feed.
pub fn filler_head() -> Bytes {
    Bytes::from_static(
        b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Endless</title>\n",
    )
}

/// 64 KiB of repeated, well-formed feed items: the unit huge and endless bodies are made of.
pub fn filler_unit() -> Bytes {
    static UNIT: OnceLock<Bytes> = OnceLock::new();
    UNIT.get_or_init(|| {
        let item = b"<item><title>more</title><guid>same</guid></item>\n";
        let mut v = Vec::with_capacity(FILLER_UNIT_LEN);
        while v.len() < FILLER_UNIT_LEN {
            v.extend_from_slice(item);
        }
        v.truncate(FILLER_UNIT_LEN);
        Bytes::from(v)
    })
    .clone()
}

/// Length of [`filler_unit`].
pub const FILLER_UNIT_LEN: usize = 64 * 1024;

const MIB: u64 = 1024 * 1024;

/// A gzip file (one member) that inflates to `decompressed` zero bytes, rounded up to whole MiB
/// (at least one). It is about a thousandth of that size. Built from one compressed MiB repeated,
/// so even a GiB costs milliseconds; cached per size.
pub fn gzip_bomb(decompressed: u64) -> Bytes {
    static CACHE: OnceLock<Mutex<HashMap<u64, Bytes>>> = OnceLock::new();
    let mib = decompressed.div_ceil(MIB).max(1);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(b) = cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&mib)
    {
        return b.clone();
    }
    let bomb = build_gzip_bomb(mib);
    cache
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(mib, bomb.clone());
    bomb
}

fn build_gzip_bomb(mib: u64) -> Bytes {
    let zeros = vec![0u8; MIB as usize];
    let mut deflate = Compress::new(Compression::best(), false);
    // A full flush byte-aligns the output and resets the dictionary, so after the first block
    // every further MiB of zeros compresses to the same bytes.
    let first = deflate_all(&mut deflate, &zeros, FlushCompress::Full);
    let repeat = deflate_all(&mut deflate, &zeros, FlushCompress::Full);
    let tail = deflate_all(&mut deflate, &[], FlushCompress::Finish);

    let mut one = crc32fast::Hasher::new();
    one.update(&zeros);
    let mut crc = crc32fast::Hasher::new();
    for _ in 0..mib {
        crc.combine(&one);
    }
    let total = mib.saturating_mul(MIB);

    let repeats = usize::try_from(mib.saturating_sub(1)).unwrap_or(0);
    let mut out = Vec::with_capacity(18 + first.len() + repeat.len() * repeats + tail.len());
    // Header: magic, deflate, no flags, mtime 0, no extra flags, OS unknown.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    out.extend_from_slice(&first);
    for _ in 0..repeats {
        out.extend_from_slice(&repeat);
    }
    out.extend_from_slice(&tail);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    // ISIZE is the length modulo 2^32.
    out.extend_from_slice(&((total & 0xffff_ffff) as u32).to_le_bytes());
    Bytes::from(out)
}

fn deflate_all(c: &mut Compress, input: &[u8], flush: FlushCompress) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    let mut consumed = 0usize;
    loop {
        if out.capacity() - out.len() < 1024 {
            out.reserve(4096);
        }
        let before_in = c.total_in();
        let rest = input.get(consumed..).unwrap_or_default();
        if c.compress_vec(rest, &mut out, flush).is_err() {
            break;
        }
        consumed += usize::try_from(c.total_in() - before_in).unwrap_or(0);
        // Done once all input is taken and the compressor left spare room in the buffer.
        if consumed >= input.len() && out.capacity() - out.len() >= 1024 {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_gzip_bomb_inflates_to_the_promised_size_with_a_valid_checksum() {
        let bomb = gzip_bomb(16 * MIB);
        assert!(bomb.len() < 64 * 1024, "compressed {} bytes", bomb.len());
        let mut decoder = flate2::read::GzDecoder::new(&bomb[..]);
        let mut buf = vec![0u8; 1 << 20];
        let mut total = 0u64;
        loop {
            let n = decoder.read(&mut buf).expect("valid gzip");
            if n == 0 {
                break;
            }
            assert!(buf[..n].iter().all(|&b| b == 0));
            total += n as u64;
        }
        assert_eq!(total, 16 * MIB);
    }

    #[test]
    fn every_malformed_kind_is_distinct_and_not_empty() {
        let bodies: Vec<Bytes> = Malformed::ALL.iter().map(|m| m.body()).collect();
        for (i, a) in bodies.iter().enumerate() {
            assert!(!a.is_empty());
            for b in &bodies[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert!(std::str::from_utf8(&Malformed::WrongEncoding.body()).is_err());
    }
}
