#!/usr/bin/env python3
"""Write docs/policy.md: every rule of POLICY.md with the tests named after it.

POLICY.md asks that each rule ID appear in the name of a test that fails if the rule breaks.
This reads the rulebook (../shared/POLICY.md, or the path given with --rules; without it, the
rules as docs/policy.md last listed them) and every Rust file with tests, and lists per rule the test
functions whose names carry its ID as a word (`c8_...`, `..._wfm4_...`). Rules without a test
are listed as such: the gaps are part of the page.

    python3 tools/policy_index.py            # rewrite docs/policy.md
    python3 tools/policy_index.py --check    # fail if docs/policy.md is not current
"""

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "policy.md"
RULE = re.compile(r"^- ((?:C|WFM|SR|DFB|FF|PF)\d+) (.*)$")
TEST_MARK = re.compile(r"#\[(?:tokio::)?test\b|proptest!")
FN = re.compile(r"\bfn ([a-z0-9_]+)\s*[<(]")
CASE = re.compile(r"^pub async fn ([a-z0-9_]+)\s*\(", re.M)
TOKEN = re.compile(r"^(c|wfm|sr|dfb|ff|pf)(\d+)$")


PAGE_RULE = re.compile(r"^- \*\*((?:C|WFM|SR|DFB|FF|PF)\d+)\*\* (.*)$")
TAIL = "Not yet proven by a test of their own"


def rules(path, pattern=RULE):
    out = []
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            if section == TAIL:
                break
        m = pattern.match(line)
        if m:
            out.append((section, m.group(1), m.group(2)))
    return out


def tests():
    found = {}
    for path in sorted(ROOT.glob("**/*.rs")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in ("target",) or ".git" in rel.parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if "contract" in rel.parts[:-1] and rel.parts[-2:-1] == ("contract",):
            # The store's contract cases: each `pub async fn` runs once per backend through
            # the `contract!` macro of `tests/contract.rs`.
            names = CASE.findall(text)
        elif TEST_MARK.search(text):
            names = FN.findall(text)
        else:
            continue
        for name in names:
            for word in name.split("_"):
                m = TOKEN.match(word)
                if m:
                    rule = m.group(1).upper() + m.group(2)
                    found.setdefault(rule, []).append(f"`{rel}`: `{name}`")
    return found


def render(rulebook, found):
    lines = [
        "# Policy: each rule and the tests that prove it",
        "",
        "Written by `python3 tools/policy_index.py` from the rulebook (`POLICY.md`, shared with",
        "the project) and the test names; CI fails when it is not current. A test proves a rule",
        "when its name carries the rule's ID as a word (`c8_...`, `..._wfm4_...`) and it fails if",
        "the rule is broken. Where the rules are kept in code: the profile numbers in",
        "`crates/policy/profiles/*.toml` (the bot page shows them), the schedule and ladders in",
        "`crates/policy`, robots.txt in `crates/robots` and `crates/crawler/src/robots.rs`, the",
        "address guard and body caps in `crates/fetch`.",
        "",
    ]
    section = None
    missing = []
    for sec, rule, text in rulebook:
        if sec != section:
            section = sec
            lines += [f"## {sec}", ""]
        names = sorted(set(found.get(rule, [])))
        short = text if len(text) <= 160 else text[:157].rstrip() + "..."
        lines.append(f"- **{rule}** {short}")
        if names:
            for n in names:
                lines.append(f"  - {n}")
        else:
            lines.append("  - no test named after it yet")
            missing.append(rule)
        lines.append("")
    lines += [
        f"## {TAIL}",
        "",
        (", ".join(missing) if missing else "none") + ".",
        "",
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default=None, help="path of POLICY.md")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    candidates = [pathlib.Path(args.rules)] if args.rules else [
        ROOT / "docs" / "POLICY.md",
        ROOT.parent / "shared" / "POLICY.md",
    ]
    source = next((p for p in candidates if p.is_file()), None)
    if source is not None:
        rulebook = rules(source)
    elif OUT.is_file():
        # A checkout without the shared rulebook (CI's fresh clone): the rules as this page
        # last wrote them, so the check still sees every test list.
        rulebook = rules(OUT, PAGE_RULE)
    else:
        sys.exit("POLICY.md not found: pass --rules PATH")
    page = render(rulebook, tests())
    if args.check:
        if not OUT.is_file() or OUT.read_text(encoding="utf-8") != page:
            sys.exit("docs/policy.md is not current: run python3 tools/policy_index.py")
        return
    OUT.write_text(page, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
