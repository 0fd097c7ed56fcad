//! `tidings parse FILE...`: the parser's model as JSON, for inspection and comparison.

use super::args::ParseArgs;
use anyhow::Result;
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;
use tidings_feed::ParseOptions;

/// Parse each file; pretty JSON per file, or one line per file with `--jsonl`. Exits non-zero
/// when any file could not be read or parsed.
pub fn run(args: &ParseArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let mut all_ok = true;
    for path in &args.files {
        let shown = path.display().to_string();
        let value = match std::fs::read(path) {
            Err(e) => failure(&shown, format!("cannot read: {e}")),
            Ok(bytes) => {
                let options = ParseOptions {
                    base_url: args.base_url.as_deref(),
                    charset: args.charset.as_deref(),
                    content_type: None,
                    ..ParseOptions::default()
                };
                match tidings_feed::parse(&bytes, &options) {
                    Ok(parsed) => {
                        let mut v = serde_json::to_value(&parsed)?;
                        if let Value::Object(map) = &mut v {
                            map.insert("path".into(), json!(shown));
                            map.insert("ok".into(), json!(true));
                            map.insert("error".into(), Value::Null);
                        }
                        v
                    }
                    Err(e) => failure(&shown, e.to_string()),
                }
            }
        };
        all_ok &= value["ok"] == json!(true);
        // The feed's own text, made inert on a terminal; still the same JSON.
        let text = if args.jsonl {
            serde_json::to_string(&value)?
        } else {
            serde_json::to_string_pretty(&value)?
        };
        writeln!(out, "{}", super::terminal::json(&text))?;
    }
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The line for a file that gave no feed: the same keys as a success, empty.
fn failure(path: &str, error: String) -> Value {
    json!({
        "path": path,
        "ok": false,
        "error": error,
        "warnings": [],
        "format": null,
        "feed": null,
        "entries": [],
    })
}
