//! The golden corpus: every input under `tests/fixtures/<group>/` is parsed and its JSON
//! compared with the `<case>.expected.json` beside it.
//!
//! Inputs are the files ending in `.xml` or `.json` that are not `.expected.json` or
//! `.options.json`; anything else (such as `encoding/make.py`) is ignored. An optional
//! `<case>.options.json` holds `{"base_url": ..., "charset": ..., "content_type": ...}`; without
//! it the base URL is `https://example.test/<group>/<case>` so relative links resolve the same
//! way everywhere.
//!
//! The expected file is `{"ok": true, "result": <ParsedFeed>}` or `{"ok": false, "error": "..."}`,
//! pretty-printed. After an intended change, regenerate them all with
//! `UPDATE_EXPECT=1 cargo test -p tidings-feed --test golden` and review the diff.
//!
//! Environment: `UPDATE_EXPECT=1` rewrites instead of comparing; `GOLDEN_FILTER=text` runs only
//! the cases whose name contains `text`; `GOLDEN_FIXTURES=dir` reads another tree (used to try
//! the runner on a scratch copy).

use std::fmt::Write as _;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tidings_feed::{ParseOptions, ParsedFeed, parse};

/// How many differing lines a mismatch report shows at most.
const DIFF_LINES: usize = 24;

/// Lines of unchanged context shown before the first difference.
const DIFF_CONTEXT: usize = 3;

/// The optional `<case>.options.json` sidecar.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct CaseOptions {
    base_url: Option<String>,
    charset: Option<String>,
    content_type: Option<String>,
}

/// What an expected file holds, in this field order: `ok` first, then `result` or `error`.
#[derive(Serialize)]
struct Outcome {
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<ParsedFeed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// One input document of the corpus.
struct Case {
    /// `<group>/<case>`, the name reported on failure.
    name: String,
    input: PathBuf,
    expected: PathBuf,
    options: PathBuf,
}

fn fixtures_root() -> PathBuf {
    match std::env::var_os("GOLDEN_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
    }
}

fn is_input(file_name: &str) -> bool {
    if file_name.ends_with(".expected.json") || file_name.ends_with(".options.json") {
        return false;
    }
    file_name.ends_with(".xml") || file_name.ends_with(".json")
}

/// All cases under `root`, sorted by name so runs are reproducible.
fn collect_cases(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read fixture directory {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if !is_input(file_name) {
                continue;
            }
            let stem = file_name
                .rsplit_once('.')
                .map_or(file_name, |(stem, _)| stem)
                .to_string();
            let relative_dir = dir.strip_prefix(root).unwrap_or(&dir);
            let name = relative_dir
                .join(&stem)
                .to_string_lossy()
                .replace('\\', "/");
            cases.push(Case {
                name,
                expected: dir.join(format!("{stem}.expected.json")),
                options: dir.join(format!("{stem}.options.json")),
                input: path,
            });
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

fn load_options(case: &Case) -> CaseOptions {
    if !case.options.exists() {
        return CaseOptions::default();
    }
    let text = std::fs::read_to_string(&case.options)
        .unwrap_or_else(|e| panic!("{}: cannot read options: {e}", case.name));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: bad options file: {e}", case.name))
}

/// Parse one case and render the result exactly as the expected file stores it, or say how
/// the parser panicked (a bug on any input, reported as a failure of this case alone).
fn render(case: &Case) -> Result<String, String> {
    let bytes = std::fs::read(&case.input)
        .unwrap_or_else(|e| panic!("{}: cannot read input: {e}", case.name));
    let options = load_options(case);
    let default_base = format!("https://example.test/{}", case.name);
    let base_url = options.base_url.as_deref().unwrap_or(&default_base);
    let parse_options = ParseOptions {
        base_url: Some(base_url),
        charset: options.charset.as_deref(),
        content_type: options.content_type.as_deref(),
        max_entries: None,
        max_text_bytes: None,
    };
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| parse(&bytes, &parse_options)))
        .map_err(|payload| {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            format!("parser panicked: {message}")
        })?;
    let outcome = match result {
        Ok(parsed) => Outcome {
            ok: true,
            result: Some(parsed),
            error: None,
        },
        Err(error) => Outcome {
            ok: false,
            result: None,
            error: Some(error.to_string()),
        },
    };
    let mut text = serde_json::to_string_pretty(&outcome).expect("a parsed feed serialises");
    text.push('\n');
    Ok(text)
}

/// A short report of where `actual` departs from `expected`: a few lines of context, then the
/// differing lines side by side (`-` expected, `+` actual).
fn diff(expected: &str, actual: &str) -> String {
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    let first = expected_lines
        .iter()
        .zip(&actual_lines)
        .position(|(e, a)| e != a)
        .unwrap_or(expected_lines.len().min(actual_lines.len()));
    let mut out = String::new();
    for line in first.saturating_sub(DIFF_CONTEXT)..first {
        if let Some(text) = expected_lines.get(line) {
            let _ = writeln!(out, "  {:>5}   {text}", line + 1);
        }
    }
    let mut shown = 0;
    let mut line = first;
    let end = expected_lines.len().max(actual_lines.len());
    while line < end && shown < DIFF_LINES {
        let e = expected_lines.get(line);
        let a = actual_lines.get(line);
        if e != a {
            if let Some(e) = e {
                let _ = writeln!(out, "  {:>5} - {e}", line + 1);
            }
            if let Some(a) = a {
                let _ = writeln!(out, "  {:>5} + {a}", line + 1);
            }
            shown += 1;
        }
        line += 1;
    }
    if line < end {
        let _ = writeln!(
            out,
            "  ... (expected {} lines, actual {} lines)",
            expected_lines.len(),
            actual_lines.len()
        );
    }
    out
}

#[test]
fn golden_corpus() {
    let root = fixtures_root();
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let filter = std::env::var("GOLDEN_FILTER").ok();
    let cases: Vec<Case> = collect_cases(&root)
        .into_iter()
        .filter(|c| filter.as_deref().is_none_or(|f| c.name.contains(f)))
        .collect();
    assert!(
        !cases.is_empty(),
        "no golden cases found under {}",
        root.display()
    );

    let mut failures = Vec::new();
    let mut written = 0;
    for case in &cases {
        let actual = match render(case) {
            Ok(actual) => actual,
            Err(panic) => {
                eprintln!("--- {}: {panic}", case.name);
                failures.push(format!("{} ({panic})", case.name));
                continue;
            }
        };
        if update {
            let current = std::fs::read_to_string(&case.expected).ok();
            if current.as_deref() != Some(actual.as_str()) {
                std::fs::write(&case.expected, &actual)
                    .unwrap_or_else(|e| panic!("{}: cannot write expected: {e}", case.name));
                written += 1;
            }
            continue;
        }
        match std::fs::read_to_string(&case.expected) {
            Err(_) => {
                eprintln!(
                    "--- {}: no expected file (run with UPDATE_EXPECT=1)",
                    case.name
                );
                failures.push(format!("{} (missing expected)", case.name));
            }
            Ok(expected) if expected != actual => {
                eprintln!(
                    "--- {}: output differs from {}\n{}",
                    case.name,
                    case.expected.display(),
                    diff(&expected, &actual)
                );
                failures.push(case.name.clone());
            }
            Ok(_) => {}
        }
    }

    if update {
        eprintln!(
            "golden: {} cases, {written} expected files written",
            cases.len()
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden cases failed (regenerate after an intended change with \
         UPDATE_EXPECT=1 cargo test -p tidings-feed --test golden):\n  {}",
        failures.len(),
        cases.len(),
        failures.join("\n  ")
    );
}

#[test]
fn diff_points_at_the_first_differing_line() {
    let report = diff("a\nb\nc\nd\n", "a\nb\nX\nd\n");
    assert!(report.contains("    3 - c"), "{report}");
    assert!(report.contains("    3 + X"), "{report}");
    assert!(!report.contains("4 -"), "{report}");
}

#[test]
fn only_documents_are_inputs() {
    assert!(is_input("enclosure_multiple.xml"));
    assert!(is_input("minimal.json"));
    assert!(!is_input("minimal.expected.json"));
    assert!(!is_input("koi8r_declared.options.json"));
    assert!(!is_input("make.py"));
}
