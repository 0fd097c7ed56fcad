//! What Web Bot Auth signing (SR11) costs per request (`cargo bench -p tidings-fetch --bench
//! signing`): the signer's whole work for one hop (nonce, signature base, Ed25519 signature,
//! header values), and signing the key directory for a response with two keys.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::sync::Arc;
use tidings_fetch::RequestSigner;
use tidings_fetch::botkeys::{self, DatedKey};
use tidings_fetch::signing::BotKey;
use url::Url;

fn signing(c: &mut Criterion) {
    let signer = RequestSigner::new("https://bot.example", 300, Arc::new(|| 1_700_000_000));
    signer.set_key(BotKey::from_seed(&[7; 32]), 1_800_000_000);
    let target = Url::parse("https://feeds.example.com:8443/feed.xml").expect("url");
    assert!(signer.sign(&target).is_ok(), "the signer signs");
    c.bench_function("sign one request", |b| {
        b.iter(|| black_box(signer.sign(black_box(&target))))
    });

    let keys = vec![
        DatedKey {
            key: BotKey::from_seed(&[1; 32]),
            not_before: 0,
            expires: 2_000_000_000,
        },
        DatedKey {
            key: BotKey::from_seed(&[2; 32]),
            not_before: 1_000,
            expires: 2_000_000_000,
        },
    ];
    let body = botkeys::directory_json(&keys, 1_700_000_000);
    c.bench_function("sign the key directory (two keys)", |b| {
        b.iter(|| {
            black_box(botkeys::sign_directory(
                &keys,
                "bot.example",
                body.as_bytes(),
                1_700_000_000,
                3600,
            ))
        })
    });
}

criterion_group!(benches, signing);
criterion_main!(benches);
