//! Stable entry identities: the `identity` the store upserts by, apart from the publisher's
//! own `id` (kept as written, or `None`).
//!
//! The rule, applied to every parsed document after its format adapter:
//!
//! 1. **Natural id.** Each entry first gets a natural id from its own fields only:
//!    - the publisher's id (RSS `guid`, RDF `rdf:about`, Atom `id`, JSON Feed `id`) with
//!      surrounding whitespace trimmed, if that is not empty;
//!    - else the entry `link`, trimmed, if not empty;
//!    - else `hash:` followed by 32 lowercase hex digits: the first 16 bytes of the SHA-256 of
//!      the title, the published date (UTC RFC 3339, whole seconds, `Z`) and the URL of the
//!      first enclosure, each written as one byte `0` when absent, or one byte `1`, its length
//!      in bytes as a 64-bit little-endian integer, then its UTF-8 bytes. Length prefixes make
//!      the encoding unambiguous (no choice of separator can collide with the data).
//!
//!    A natural id depends on nothing but the entry, so it is the same on every refetch and
//!    wherever the entry sits in the document.
//! 2. **Duplicates.** When several entries of one document share a natural id `X`, each of
//!    them gets a content hash `h`: 8 lowercase hex digits, the first 4 bytes of the SHA-256 of
//!    (title, link, published, summary) in the encoding above. The group is sorted by
//!    (`h`, document position). The first entry keeps `X`. Every other entry whose `h` has not
//!    been seen yet in the group becomes `X#h`. An entry identical in all four fields to an
//!    earlier one (same `h`) takes the id of the first of its kind with `#2`, `#3`, ... appended
//!    in document order. So which entry keeps `X` and who gets which suffix depends on content,
//!    not on order, except between entries that are indistinguishable anyway. Each renamed
//!    entry adds a [`WarningKind::DuplicateId`] warning.
//! 3. **Last resort.** Should a generated id still equal another entry's id (a publisher id that
//!    happens to look like `X#h`), the later entry in document order gets `#2`, `#3`, ... until
//!    it is unique, also with a warning.
//!
//! After [`assign`], every `identity` is non-empty and unique within the document.

use chrono::{DateTime, SecondsFormat, Utc};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use tidings_model::{Entry, Warning, WarningKind};

/// The prefix of ids made from a hash of the entry's fields.
const HASH_PREFIX: &str = "hash:";

/// Give every entry a stable, unique `identity`, following the rule in the module docs.
pub fn assign(entries: &mut [Entry], warnings: &mut Vec<Warning>) {
    let natural: Vec<String> = entries.iter().map(natural_id).collect();
    if all_distinct(&natural) {
        // Nothing shares a natural id (nearly every document): steps 2 and 3 keep each one.
        for (entry, id) in entries.iter_mut().zip(natural) {
            entry.identity = id;
        }
        return;
    }

    // Groups in order of first appearance, so that warnings come out in a fixed order.
    let mut group_of: HashMap<&str, usize> = HashMap::with_capacity(natural.len());
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, id) in natural.iter().enumerate() {
        let next = groups.len();
        let g = *group_of.entry(id.as_str()).or_insert(next);
        match groups.get_mut(g) {
            Some(members) => members.push(i),
            None => groups.push(vec![i]),
        }
    }

    let mut ids = natural.clone();
    for members in groups.iter().filter(|m| m.len() > 1) {
        let mut keyed: Vec<(String, usize)> = members
            .iter()
            .filter_map(|&i| entries.get(i).map(|e| (content_hash(e), i)))
            .collect();
        keyed.sort();
        let mut previous_hash: Option<&str> = None;
        let mut first_of_kind = String::new();
        let mut ordinal = 1_usize;
        for (position, (hash, index)) in keyed.iter().enumerate() {
            let Some(id) = natural.get(*index) else {
                continue;
            };
            let new_id = if previous_hash == Some(hash.as_str()) {
                ordinal += 1;
                format!("{first_of_kind}#{ordinal}")
            } else {
                ordinal = 1;
                first_of_kind = if position == 0 {
                    id.clone()
                } else {
                    format!("{id}#{hash}")
                };
                first_of_kind.clone()
            };
            previous_hash = Some(hash.as_str());
            if let Some(slot) = ids.get_mut(*index) {
                *slot = new_id;
            }
        }
    }

    // Last resort, and the warnings, in document order.
    let mut seen: HashSet<String> = HashSet::with_capacity(ids.len());
    for ((entry, id), natural) in entries.iter_mut().zip(ids).zip(&natural) {
        let mut unique = id.clone();
        let mut n = 1_usize;
        while seen.contains(&unique) {
            n += 1;
            unique = format!("{id}#{n}");
        }
        if unique != *natural {
            warnings.push(Warning::new(
                WarningKind::DuplicateId,
                format!("another entry has the id {natural:?}; this one is renamed {unique:?}"),
            ));
        }
        seen.insert(unique.clone());
        entry.identity = unique;
    }
}

/// Whether no two of `ids` are equal.
fn all_distinct(ids: &[String]) -> bool {
    if ids.len() < 2 {
        return true;
    }
    let mut sorted: Vec<&str> = ids.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    sorted.windows(2).all(|pair| pair.first() != pair.last())
}

/// The natural id of one entry (step 1 of the rule).
fn natural_id(entry: &Entry) -> String {
    let publisher = entry.id.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if let Some(id) = publisher {
        return id.to_owned();
    }
    if let Some(link) = entry
        .link
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        return link.to_owned();
    }
    let published = entry.published.as_ref().map(rfc3339);
    let enclosure = entry.enclosures.first().map(|e| e.url.as_str());
    let digest = digest(&[entry.title.as_deref(), published.as_deref(), enclosure]);
    format!(
        "{HASH_PREFIX}{}",
        hex::encode(digest.get(..16).unwrap_or(&digest))
    )
}

/// The short content hash used to tell duplicates apart (step 2 of the rule).
fn content_hash(entry: &Entry) -> String {
    let published = entry.published.as_ref().map(rfc3339);
    let digest = digest(&[
        entry.title.as_deref(),
        entry.link.as_deref(),
        published.as_deref(),
        entry.summary.as_deref(),
    ]);
    hex::encode(digest.get(..4).unwrap_or(&digest))
}

fn rfc3339(date: &DateTime<Utc>) -> String {
    date.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// SHA-256 of optional fields, each written as `0`, or `1` + u64 LE length + bytes.
fn digest(fields: &[Option<&str>]) -> Vec<u8> {
    let mut hasher = Sha256::new();
    for field in fields {
        match field {
            None => hasher.update([0u8]),
            Some(text) => {
                hasher.update([1u8]);
                hasher.update((text.len() as u64).to_le_bytes());
                hasher.update(text.as_bytes());
            }
        }
    }
    hasher.finalize().to_vec()
}
