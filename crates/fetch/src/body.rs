//! Reading a body under the cap.
//!
//! The cap is applied twice: an announced `Content-Length` above it ends the read before a
//! byte of body is taken, and the decompressed stream (reqwest decodes gzip, deflate and brotli
//! chunk by chunk) is counted as it arrives and dropped at the first chunk that would pass the
//! cap. A decompression bomb therefore costs at most the cap plus one decoded chunk of memory.

use crate::classify::BodyError;
use crate::transport::error_text;
use futures_util::StreamExt;
use reqwest::Response;
use reqwest::header::CONTENT_LENGTH;

/// Largest up-front allocation, whatever Content-Length announces.
const PREALLOCATE_AT_MOST: u64 = 1024 * 1024;

/// Read the body of `response`, at most `cap` bytes after decompression; `received` counts the
/// bytes taken so far (also when the read fails or is cut short by the caller's timeout).
///
/// With `prefix`, a longer body is no error: its first `cap` bytes are kept and the rest is
/// not read (the head of an article page holds what is looked for, SR1).
pub async fn read_capped(
    response: Response,
    cap: u64,
    prefix: bool,
    received: &mut u64,
) -> Result<Vec<u8>, BodyError> {
    // The raw header, not `content_length()`: a compressed answer announces its wire size,
    // which is already too much if it passes the cap.
    let announced = response
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if announced.is_some_and(|len| len > cap) && !prefix {
        return Err(BodyError::TooLarge { limit: cap });
    }
    let capacity = announced.unwrap_or(0).min(cap).min(PREALLOCATE_AT_MOST);
    let mut body = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(e) if e.is_timeout() => return Err(BodyError::TimedOut),
            Err(e) => return Err(BodyError::Broken(error_text(&e))),
        };
        let total = received.saturating_add(chunk.len() as u64);
        if total > cap && prefix {
            let room = usize::try_from(cap.saturating_sub(*received)).unwrap_or(0);
            body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            *received = cap;
            break;
        }
        if total > cap {
            return Err(BodyError::TooLarge { limit: cap });
        }
        *received = total;
        body.extend_from_slice(&chunk);
    }
    // The vector grew by doubling: give back the unused part before the body is parsed, so
    // the read holds the body once, not up to twice (C8).
    body.shrink_to_fit();
    Ok(body)
}
