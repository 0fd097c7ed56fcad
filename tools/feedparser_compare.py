#!/usr/bin/env python3
"""Compare tidings' feed parser with Python feedparser, the tolerant reference.

For every feed file under the given directories (or the given files), parse it with
feedparser and with `tidings parse --jsonl FILE...` (or read our side from a JSONL file with
`--ours-jsonl`), then report:

* parsed: the share of files each side read without error. feedparser counts as having
  parsed a file when it raised no bozo flag and recognised a format (a non-empty `version`), or
  when it found a feed title or at least one entry whatever the bozo flag says. Ours counts
  when its line says `"ok": true`. feedparser 6 reads no JSON Feed, so JSON documents are read
  on the reference side by a small built-in JSON Feed reader shaped like feedparser's output.
* field agreement, over the files both sides parsed: a fixed list of feed and entry fields
  (entries matched by position), each normalised so representation differences do not count
  (HTML unescaped, tags dropped, whitespace collapsed; dates compared as UTC RFC 3339 to the
  second). agreement = matching fields / fields where at least one side has a value.
* the same agreement with the reference's known errors set aside: a field where feedparser's
  value is one tidings deliberately does not give (docs/feed-model.md says why) is counted
  apart, as "reference error", when the script can tell from feedparser's own output that it
  is one. Only one rule is recognised (issue 18, item 2): an entry with no link whose id
  feedparser reports as its link (`guidislink`) although it may not stand for one (an Atom
  `<id>`, or an RSS `guid` that is no absolute http(s) URL), where tidings gives no link. Both
  figures are printed; nothing else is set aside.

Usage (see tools/README.md):

    python3 tools/feedparser_compare.py DIR_OR_FILE... [--tidings PATH] [--ours-jsonl FILE]
                                       [--worst N] [--json-report FILE] [--feedparser-only]
    python3 tools/feedparser_compare.py --selftest
"""

from __future__ import annotations

import argparse
import calendar
import datetime as dt
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# Files in a corpus directory that are not feeds: golden-test sidecars and generators.
SKIP_SUFFIXES = (".expected.json", ".options.json", ".py", ".md", ".orig", ".rej")

# How many paths go on one `tidings parse` command line.
BATCH = 100

FEED_FIELDS = ["title", "link", "language", "updated", "description", "author", "image"]
ENTRY_FIELDS = [
    "title",
    "link",
    "id",
    "published",
    "updated",
    "summary",
    "content",
    "author",
    "enclosures",
    "tags",
]

TAG_RE = re.compile(r"<[^>]*>")
SPACE_RE = re.compile(r"\s+")


# ---------------------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------------------


def norm_text(value):
    """Text compared modulo markup and escaping: unescape, drop tags, unescape, squeeze."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = str(value)
    text = html.unescape(value)
    text = TAG_RE.sub(" ", text)
    text = html.unescape(text)
    text = SPACE_RE.sub(" ", text).strip()
    return text or None


def norm_url(value):
    if value is None or not isinstance(value, str):
        return None
    url = html.unescape(value).strip()
    return url or None


def norm_lang(value):
    text = norm_text(value)
    return text.lower().replace("_", "-") if text else None


def struct_to_rfc3339(value):
    """feedparser's *_parsed (a UTC time.struct_time) as RFC 3339 to the second."""
    if value is None:
        return None
    try:
        seconds = calendar.timegm(value)
        return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def ours_date(value):
    """Our RFC 3339 string, normalised to UTC and whole seconds."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        return value
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    return parsed.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def norm_list(values, norm):
    out = sorted({v for v in (norm(x) for x in values or []) if v})
    return out or None


# ---------------------------------------------------------------------------------------------
# The fields of each side, as plain comparable values
# ---------------------------------------------------------------------------------------------


def raw_get(container, key):
    """A key without FeedParserDict's deprecated `updated` -> `published` fallback."""
    return dict.get(container, key) if isinstance(container, dict) else None


def fp_person(container, prefix="author"):
    detail = container.get(prefix + "_detail") or {}
    name = detail.get("name") or container.get(prefix)
    if not name:
        name = detail.get("email")
    return norm_text(name)


def fp_feed_fields(d):
    feed = d.get("feed", {}) or {}
    image = feed.get("image") or {}
    return {
        "title": norm_text(feed.get("title")),
        "link": norm_url(feed.get("link")),
        "language": norm_lang(feed.get("language")),
        "updated": struct_to_rfc3339(raw_get(feed, "updated_parsed")),
        "description": norm_text(feed.get("subtitle")),
        "author": fp_person(feed),
        # Atom's <logo> is our image; feedparser keeps it apart as feed.logo.
        "image": norm_url((image.get("href") if hasattr(image, "get") else None) or feed.get("logo")),
    }


def fp_id_as_link(d, entry):
    """Whether feedparser took for an entry's link an id that may not stand for one (the entry
    had no link of its own): an Atom `<id>`, or an RSS `guid` that is no absolute http(s) URL.
    The one reference error this script recognises (issue 18, item 2)."""
    link = entry.get("link")
    if not entry.get("guidislink") or link is None or link != entry.get("id"):
        return False
    version = d.get("version") or ""
    return version.startswith("atom") or not re.match(r"(?i)https?://[^/\s]", link.strip())


def fp_entry_fields(entry):
    content = entry.get("content") or []
    first_content = content[0].get("value") if content else None
    return {
        "title": norm_text(entry.get("title")),
        "link": norm_url(entry.get("link")),
        "id": norm_text(entry.get("id")),
        "published": struct_to_rfc3339(entry.get("published_parsed")),
        "updated": struct_to_rfc3339(raw_get(entry, "updated_parsed")),
        "summary": norm_text(entry.get("summary")),
        "content": norm_text(first_content),
        "author": fp_person(entry),
        "enclosures": norm_list([e.get("href") for e in entry.get("enclosures") or []], norm_url),
        "tags": norm_list([t.get("term") for t in entry.get("tags") or []], norm_text),
    }


def our_person(people):
    for person in people or []:
        if isinstance(person, dict):
            name = person.get("name") or person.get("email")
            if name:
                return norm_text(name)
    return None


def our_feed_fields(line):
    feed = line.get("feed") or {}
    return {
        "title": norm_text(feed.get("title")),
        "link": norm_url(feed.get("link")),
        "language": norm_lang(feed.get("language")),
        "updated": ours_date(feed.get("updated")),
        "description": norm_text(feed.get("description")),
        "author": our_person(feed.get("authors")),
        "image": norm_url(feed.get("image")),
    }


def our_entry_fields(entry, id_field):
    enclosures = [e.get("url") for e in entry.get("enclosures") or [] if isinstance(e, dict)]
    return {
        "title": norm_text(entry.get("title")),
        "link": norm_url(entry.get("link")),
        "id": norm_text(entry.get(id_field)),
        "published": ours_date(entry.get("published")),
        "updated": ours_date(entry.get("updated")),
        "summary": norm_text(entry.get("summary")),
        "content": norm_text(entry.get("content")),
        "author": our_person(entry.get("authors")),
        "enclosures": norm_list(enclosures, norm_url),
        "tags": norm_list(entry.get("categories"), norm_text),
    }


# ---------------------------------------------------------------------------------------------
# Running both sides
# ---------------------------------------------------------------------------------------------


def collect_files(targets):
    files = []
    for target in targets:
        if os.path.isfile(target):
            files.append(target)
            continue
        for root, dirs, names in os.walk(target):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                if name.startswith(".") or name.endswith(SKIP_SUFFIXES):
                    continue
                files.append(os.path.join(root, name))
    return files


def json_text(data):
    """The document as text when it looks like JSON (after any BOM and blank space), else None."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            data = data[len(bom):].decode(codec, "replace")
            break
    else:
        data = data.decode("utf-8", "replace")
    return data if data.lstrip().startswith("{") else None


def json_date(value):
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=dt.timezone.utc)
    return parsed.astimezone(dt.timezone.utc).utctimetuple()


def json_reference(text):
    """JSON Feed read into feedparser's shape (feedparser 6 has no JSON Feed reader).

    Only values of the documented type are taken, except that a numeric item id is
    stringified; the feed must be a JSON object with a JSON Feed `version` or an `items` list.
    """

    def string(obj, key):
        value = obj.get(key) if isinstance(obj, dict) else None
        return value if isinstance(value, str) else None

    def first_author(obj):
        authors = obj.get("authors")
        if isinstance(authors, list):
            for author in authors:
                if isinstance(author, dict) and string(author, "name"):
                    return {"name": string(author, "name")}
        author = obj.get("author")
        if isinstance(author, dict) and string(author, "name"):
            return {"name": string(author, "name")}
        return None

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        return False, None, f"invalid json: {e}"
    if not isinstance(doc, dict):
        return False, None, "json is not an object"
    version = string(doc, "version") or ""
    items = doc.get("items")
    if "jsonfeed.org" not in version and not isinstance(items, list):
        return False, None, "json is not a json feed"
    feed = {
        "title": string(doc, "title"),
        "link": string(doc, "home_page_url"),
        "language": string(doc, "language"),
        "subtitle": string(doc, "description"),
        "author_detail": first_author(doc),
        "image": {"href": string(doc, "icon")} if string(doc, "icon") else None,
    }
    entries = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        raw_id = item.get("id")
        content = string(item, "content_html") or string(item, "content_text")
        attachments = item.get("attachments") if isinstance(item.get("attachments"), list) else []
        tags = item.get("tags") if isinstance(item.get("tags"), list) else []
        entries.append({
            "title": string(item, "title"),
            "link": string(item, "url"),
            "id": str(raw_id) if isinstance(raw_id, (str, int, float)) and not isinstance(raw_id, bool) else None,
            "published_parsed": json_date(item.get("date_published")),
            "updated_parsed": json_date(item.get("date_modified")),
            "summary": string(item, "summary"),
            "content": [{"value": content}] if content else [],
            "author_detail": first_author(item),
            "enclosures": [{"href": a.get("url")} for a in attachments if isinstance(a, dict) and string(a, "url")],
            "tags": [{"term": t} for t in tags if isinstance(t, str)],
        })
    return True, {"feed": feed, "entries": entries, "json": True}, None


def run_feedparser(path):
    """(parsed, result-or-None, error text). Never raises.

    JSON documents go to `json_reference`, since feedparser 6 reads only XML."""
    import feedparser  # imported late so --help works without it

    try:
        with open(path, "rb") as f:
            data = f.read()
        text = json_text(data)
        if text is not None:
            return json_reference(text)
        d = feedparser.parse(data)
    except Exception as e:  # feedparser itself should not raise, but be safe
        return False, None, f"exception: {e!r}"
    has_feed = bool(d.get("feed", {}).get("title")) or bool(d.get("entries"))
    if not d.get("bozo"):
        # No error, but no recognised format either (empty input, OPML, ...) is no feed.
        if d.get("version") or has_feed:
            return True, d, None
        return False, d, f"no feed recognised (version {d.get('version')!r})"
    error = repr(d.get("bozo_exception"))
    return has_feed, d, error


def find_tidings(explicit):
    if explicit:
        return explicit
    if os.environ.get("TIDINGS_BIN"):
        return os.environ["TIDINGS_BIN"]
    on_path = shutil.which("tidings")
    if on_path:
        return on_path
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo, "target"))
    for profile in ("release", "debug"):
        candidate = os.path.join(target, profile, "tidings")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def run_ours(binary, files, warn=True):
    """Run `tidings parse --jsonl` in batches; returns the list of decoded lines."""
    lines = []
    for start in range(0, len(files), BATCH):
        batch = files[start : start + BATCH]
        proc = subprocess.run(
            [binary, "parse", "--jsonl", *batch],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            check=False,
        )
        got = decode_jsonl(proc.stdout.decode("utf-8", "replace"), f"{binary} parse", warn)
        lines.extend(got)
        if warn and len(got) < len(batch):
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            sys.stderr.write(
                f"warning: {binary} parse --jsonl printed {len(got)} lines for {len(batch)} files "
                f"(exit {proc.returncode}){': ' + err[-1] if err else ''}\n"
            )
    return lines


def decode_jsonl(text, origin, warn=True):
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            if warn:
                sys.stderr.write(f"warning: {origin} line {number} is not JSON: {e}\n")
            continue
        if isinstance(value, dict) and "path" in value:
            out.append(value)
    return out


def index_ours(lines, roots):
    """Map our lines by real path, and by path relative to each corpus root."""
    index = {}
    for line in lines:
        path = str(line.get("path"))
        index[os.path.realpath(path)] = line
        for root in roots:
            index.setdefault(os.path.realpath(os.path.join(root, path)), line)
    return index


# ---------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------


def compare_file(fp_result, ours_line, id_field):
    """[(field, fp value, our value, agree, reference error)] for every field where one side
    has a value; `reference error` marks a disagreement that is feedparser's known error."""
    rows = []

    def add(field, a, b, known=False):
        if a is None and b is None:
            return
        rows.append((field, a, b, a == b, a != b and known))

    fp_feed = fp_feed_fields(fp_result)
    our_feed = our_feed_fields(ours_line)
    for field in FEED_FIELDS:
        add("feed." + field, fp_feed[field], our_feed[field])

    fp_entries = fp_result.get("entries") or []
    our_entries = [e for e in ours_line.get("entries") or [] if isinstance(e, dict)]
    empty = dict.fromkeys(ENTRY_FIELDS)
    for i in range(max(len(fp_entries), len(our_entries))):
        a = fp_entry_fields(fp_entries[i]) if i < len(fp_entries) else empty
        b = our_entry_fields(our_entries[i], id_field) if i < len(our_entries) else empty
        id_as_link = i < len(fp_entries) and fp_id_as_link(fp_result, fp_entries[i])
        for field in ENTRY_FIELDS:
            known = field == "link" and id_as_link and b["link"] is None
            add("entry." + field, a[field], b[field], known)
    return rows


def group_of(path, roots):
    """The first directory under the corpus root that holds `path` (`.` when none)."""
    real = os.path.realpath(path)
    for root in roots:
        rel = os.path.relpath(real, os.path.realpath(root))
        if not rel.startswith(".."):
            head = rel.split(os.sep, 1)
            return head[0] if len(head) > 1 else "."
    return "."


def evaluate(files, ours_index, id_field, feedparser_only, roots=()):
    report = {
        "groups": {},
        "files": len(files),
        "fp_parsed": 0,
        "ours_parsed": 0,
        "both_parsed": 0,
        "fields": {},
        "reference_errors": {},
        "per_file": [],
        "only_fp": [],
        "only_ours": [],
        "fp_failed": [],
        "fp_seconds": 0.0,
        "json_reference": 0,
    }
    for path in files:
        started = time.perf_counter()
        fp_ok, fp_result, fp_error = run_feedparser(path)
        report["fp_seconds"] += time.perf_counter() - started
        report["json_reference"] += bool(fp_result and fp_result.get("json"))
        line = ours_index.get(os.path.realpath(path))
        ours_ok = bool(line and line.get("ok") is True)
        report["fp_parsed"] += fp_ok
        group = report["groups"].setdefault(group_of(path, roots), [0, 0, 0])
        group[0] += 1
        group[1] += fp_ok
        group[2] += ours_ok
        if not fp_ok:
            report["fp_failed"].append((path, fp_error or ""))
        report["ours_parsed"] += ours_ok
        if fp_ok and not ours_ok and not feedparser_only:
            reason = (line or {}).get("error") or "no output line"
            report["only_fp"].append((path, str(reason)))
        if ours_ok and not fp_ok:
            report["only_ours"].append((path, fp_error or ""))
        if not (fp_ok and ours_ok):
            continue
        report["both_parsed"] += 1
        rows = compare_file(fp_result, line, id_field)
        for field, _, _, agree, known in rows:
            stats = report["fields"].setdefault(field, [0, 0])
            stats[0] += agree
            stats[1] += 1
            if known:
                report["reference_errors"][field] = report["reference_errors"].get(field, 0) + 1
        matched = sum(1 for r in rows if r[3])
        report["per_file"].append((path, matched, len(rows), [r for r in rows if not r[3]]))
    return report


def pct(part, whole):
    return 100.0 * part / whole if whole else 0.0


def short(value, width=60):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def print_report(report, worst, feedparser_only, out=sys.stdout):
    n = report["files"]
    w = out.write
    w(f"files: {n}\n")
    w(f"feedparser parsed: {report['fp_parsed']}/{n} = {pct(report['fp_parsed'], n):.1f}%"
      f"  ({report['fp_seconds']:.2f}s; {report['json_reference']} JSON Feed files read by the "
      "built-in JSON reference)\n")
    if len(report["groups"]) > 1:
        w("by directory (files, feedparser parsed" + ("" if feedparser_only else ", ours parsed") + "):\n")
        for name, (count, fp, ours) in sorted(report["groups"].items()):
            ours_col = "" if feedparser_only else f" {pct(ours, count):6.1f}%"
            w(f"  {name:<18} {count:>6} {pct(fp, count):6.1f}%{ours_col}\n")
    if feedparser_only:
        w("ours: skipped (--feedparser-only)\n")
        if report["fp_failed"]:
            w(f"\nnot parsed by feedparser ({len(report['fp_failed'])}):\n")
            for path, reason in report["fp_failed"]:
                w(f"  {path}: {short(reason, 100)}\n")
        return
    w(f"ours parsed:       {report['ours_parsed']}/{n} = {pct(report['ours_parsed'], n):.1f}%\n")
    w(f"both parsed:       {report['both_parsed']}\n\n")
    total_match = sum(s[0] for s in report["fields"].values())
    total = sum(s[1] for s in report["fields"].values())
    w("field agreement (matching / fields where either side has a value):\n")
    order = [f"feed.{f}" for f in FEED_FIELDS] + [f"entry.{f}" for f in ENTRY_FIELDS]
    for field in order:
        if field in report["fields"]:
            m, t = report["fields"][field]
            w(f"  {field:<18} {m:>6}/{t:<6} {pct(m, t):6.1f}%\n")
    w(f"  {'overall':<18} {total_match:>6}/{total:<6} {pct(total_match, total):6.1f}%\n")
    known = sum(report["reference_errors"].values())
    w(f"  {'overall, reference errors set aside':<18} {total_match:>6}/{total - known:<6} "
      f"{pct(total_match, total - known):6.1f}%  ({known} fields where feedparser took for a "
      "link an Atom id or a guid that is no URL, docs/feed-model.md)\n")

    if report["only_fp"]:
        w(f"\nparsed by feedparser only ({len(report['only_fp'])}):\n")
        for path, reason in report["only_fp"][:worst]:
            w(f"  {path}: {short(reason, 100)}\n")
    if report["only_ours"]:
        w(f"\nparsed by ours only ({len(report['only_ours'])}):\n")
        for path, reason in report["only_ours"][:worst]:
            w(f"  {path}: {short(reason, 100)}\n")

    ranked = sorted(
        (f for f in report["per_file"] if f[2] and f[1] < f[2]),
        key=lambda f: (f[1] / f[2], -f[2], f[0]),
    )
    if ranked:
        w(f"\nworst files (of {len(ranked)} with any disagreement):\n")
        for path, matched, total_rows, misses in ranked[:worst]:
            w(f"  {pct(matched, total_rows):5.1f}% {matched}/{total_rows}  {path}\n")
            for field, a, b, _, _ in misses[:4]:
                w(f"        {field}: feedparser={short(a)} ours={short(b)}\n")


def summary_json(report):
    total_match = sum(s[0] for s in report["fields"].values())
    total = sum(s[1] for s in report["fields"].values())
    return {
        "files": report["files"],
        "feedparser_parsed_pct": round(pct(report["fp_parsed"], report["files"]), 2),
        "ours_parsed_pct": round(pct(report["ours_parsed"], report["files"]), 2),
        "both_parsed": report["both_parsed"],
        "groups": {k: {"files": n, "feedparser_parsed": fp, "ours_parsed": o}
                   for k, (n, fp, o) in sorted(report["groups"].items())},
        "overall_agreement_pct": round(pct(total_match, total), 2),
        "reference_errors": dict(sorted(report["reference_errors"].items())),
        "agreement_without_reference_errors_pct": round(
            pct(total_match, total - sum(report["reference_errors"].values())), 2),
        "fields": {
            k: {"match": m, "total": t, "pct": round(pct(m, t), 2)}
            for k, (m, t) in sorted(report["fields"].items())
        },
        "worst": [
            {"path": p, "match": m, "total": t}
            for p, m, t, _ in sorted(report["per_file"], key=lambda f: (f[1] / f[2] if f[2] else 1.0))[:50]
        ],
    }


# ---------------------------------------------------------------------------------------------
# Self test
# ---------------------------------------------------------------------------------------------

SELFTEST_RSS = """<?xml version="1.0"?>
<rss version="2.0"><channel>
<title>Selftest &amp; Co</title><link>https://selftest.example/</link>
<description>A &lt;b&gt;tiny&lt;/b&gt; feed</description><language>en-GB</language>
<lastBuildDate>Mon, 06 May 2024 10:00:00 +0200</lastBuildDate>
<item><title>One</title><link>https://selftest.example/1</link><guid>st-1</guid>
<pubDate>Mon, 06 May 2024 09:00:00 GMT</pubDate><description>First   item</description>
<category>a</category><category>b</category>
<enclosure url="https://selftest.example/1.mp3" length="1" type="audio/mpeg"/></item>
</channel></rss>
"""

SELFTEST_ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom selftest</title>
<id>urn:selftest</id><updated>2024-05-06T08:00:00Z</updated>
<link href="https://selftest.example/atom"/>
<entry><title>E</title><id>urn:selftest:1</id><updated>2024-05-06T08:00:00+01:00</updated>
<link href="https://selftest.example/atom/1"/><summary>Short</summary>
<content type="html">&lt;p&gt;Body&lt;/p&gt;</content><author><name>Ann</name></author></entry>
</feed>
"""

SELFTEST_OURS = [
    {
        "path": "one.xml",
        "ok": True,
        "error": None,
        "warnings": [],
        "format": "rss20",
        "feed": {
            "title": "Selftest & Co",
            "link": "https://selftest.example/",
            "description": "A <b>tiny</b> feed",
            "language": "en-gb",
            "updated": "2024-05-06T08:00:00Z",
            "authors": [],
        },
        "entries": [
            {
                "identity": "st-1",
                "id": "st-1",
                "title": "One",
                "link": "https://selftest.example/1",
                "published": "2024-05-06T09:00:00Z",
                "summary": "First item",
                "categories": ["b", "a"],
                "enclosures": [{"url": "https://selftest.example/1.mp3", "type": "audio/mpeg", "length": 1}],
                "authors": [],
            }
        ],
    },
    {
        "path": "two.xml",
        "ok": True,
        "error": None,
        "warnings": [],
        "format": "atom10",
        "feed": {
            "title": "Atom selftest",
            "link": "https://selftest.example/atom",
            "updated": "2024-05-06T08:00:00Z",
        },
        "entries": [
            {
                "identity": "urn:selftest:1",
                "id": "urn:selftest:1",
                "title": "E",
                "link": "https://selftest.example/atom/1",
                "updated": "2024-05-06T07:00:00+00:00",
                "summary": "Short",
                "content": "<p>Body</p>",
                "authors": [{"name": "Ann", "email": None, "uri": None}],
            }
        ],
    },
    {"path": "three.xml", "ok": False, "error": "not a feed: html", "warnings": []},
]


def selftest():
    failures = []

    def check(name, got, want):
        if got != want:
            failures.append(f"{name}: got {got!r}, want {want!r}")

    check("norm_text", norm_text("  <p>Fish &amp;amp; chips</p>\n "), "Fish & chips")
    check("norm_text empty", norm_text("   "), None)
    check("ours_date offset", ours_date("2024-05-06T10:00:00+02:00"), "2024-05-06T08:00:00Z")
    check("ours_date fraction", ours_date("2024-05-06T08:00:00.250Z"), "2024-05-06T08:00:00Z")
    check("struct date", struct_to_rfc3339(time.gmtime(0)), "1970-01-01T00:00:00Z")
    check("norm_list", norm_list([" b", "a", "", None, "b"], norm_text), ["a", "b"])

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in [("one.xml", SELFTEST_RSS), ("two.xml", SELFTEST_ATOM),
                           ("three.xml", "<html><body>no feed</body></html>")]:
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        files = collect_files([tmp])
        index = index_ours(SELFTEST_OURS, [tmp])
        report = evaluate(files, index, "id", False)
        summary = summary_json(report)
        check("files", summary["files"], 3)
        check("ours parsed", report["ours_parsed"], 2)
        check("both parsed", report["both_parsed"], 2)
        check("agreement", summary["overall_agreement_pct"], 100.0)

        # Break one field on our side: agreement must drop by exactly one field.
        broken = json.loads(json.dumps(SELFTEST_OURS))
        broken[0]["entries"][0]["title"] = "Uno"
        report2 = evaluate(files, index_ours(broken, [tmp]), "id", False)
        title = report2["fields"].get("entry.title")
        check("broken title", title, [1, 2])
        total = sum(s[1] for s in report2["fields"].values())
        match = sum(s[0] for s in report2["fields"].values())
        check("broken overall", match, total - 1)

        # Our side through a binary: a stand-in `tidings` that answers from SELFTEST_OURS
        # by file name, called in batches, with one junk line to skip.
        fake = os.path.join(tmp, "fake-tidings")
        with open(fake, "w", encoding="utf-8") as f:
            f.write(
                "#!" + sys.executable + "\n"
                "import json, os, sys\n"
                f"ours = {{o['path']: o for o in json.loads({json.dumps(json.dumps(SELFTEST_OURS))})}}\n"
                "assert sys.argv[1:3] == ['parse', '--jsonl'], sys.argv\n"
                "print('debug noise')\n"
                "for path in sys.argv[3:]:\n"
                "    line = dict(ours[os.path.basename(path)], path=path)\n"
                "    print(json.dumps(line))\n"
            )
        os.chmod(fake, 0o755)
        global BATCH
        saved, BATCH = BATCH, 2
        try:
            lines = run_ours(fake, files, warn=False)
        finally:
            BATCH = saved
        check("binary lines", sorted(os.path.basename(l["path"]) for l in lines),
              ["one.xml", "three.xml", "two.xml"])
        report3 = evaluate(files, index_ours(lines, [tmp]), "id", False)
        check("binary agreement", summary_json(report3)["overall_agreement_pct"], 100.0)

        # An Atom entry with an id and no link: feedparser takes the id for the link, tidings
        # gives none (issue 18, item 2). The disagreement is counted, and counted apart as the
        # reference's error; an RSS guid that is a URL, taken for a link, is not (tidings must
        # take it too), and one that is no URL is.
        atom_no_link = SELFTEST_ATOM.replace('<link href="https://selftest.example/atom/1"/>', "")
        rss_guid_link = SELFTEST_RSS.replace(
            "<link>https://selftest.example/1</link><guid>st-1</guid>",
            "<guid>https://selftest.example/1</guid>")
        for name, text in [("two.xml", atom_no_link), ("one.xml", rss_guid_link)]:
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                f.write(text)
        no_link = json.loads(json.dumps(SELFTEST_OURS))
        no_link[1]["entries"][0]["link"] = None
        no_link[0]["entries"][0]["link"] = None
        report4 = evaluate(files, index_ours(no_link, [tmp]), "id", False)
        summary4 = summary_json(report4)
        check("id as link: disagreements", report4["fields"].get("entry.link"), [0, 2])
        check("id as link: reference errors", summary4["reference_errors"], {"entry.link": 1})
        total4 = sum(s[1] for s in report4["fields"].values())
        match4 = sum(s[0] for s in report4["fields"].values())
        check("id as link: set aside", summary4["agreement_without_reference_errors_pct"],
              round(pct(match4, total4 - 1), 2))
        with open(os.path.join(tmp, "one.xml"), "w", encoding="utf-8") as f:
            f.write(rss_guid_link.replace("<guid>https://selftest.example/1</guid>", "<guid>st-1</guid>"))
        report5 = evaluate(files, index_ours(no_link, [tmp]), "id", False)
        check("guid as link", summary_json(report5)["reference_errors"], {"entry.link": 2})

        # The JSONL reader skips junk lines and keeps objects with a path.
        lines = decode_jsonl('{"path": "a", "ok": true}\nnot json\n\n{"x": 1}\n', "selftest", warn=False)
        check("jsonl", [l["path"] for l in lines], ["a"])

    if failures:
        for failure in failures:
            print("FAIL", failure)
        return 1
    print("selftest ok")
    return 0


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", help="feed files or directories (searched recursively)")
    ap.add_argument("--tidings", help="path of the tidings binary (default: $TIDINGS_BIN, PATH, target/)")
    ap.add_argument("--ours-jsonl", help="read our side from this JSONL file instead of running tidings")
    ap.add_argument("--feedparser-only", action="store_true", help="run feedparser alone (baseline)")
    ap.add_argument("--id-field", default="id", choices=["id", "identity"],
                    help="our entry field compared with feedparser's id: the publisher's id "
                         "(default) or the identity tidings derives")
    ap.add_argument("--worst", type=int, default=10, help="how many worst files to list")
    ap.add_argument("--show", metavar="FIELD",
                    help="also list every disagreement on FIELD (e.g. entry.link): file, feedparser, ours")
    ap.add_argument("--json-report", help="also write a machine-readable summary here")
    ap.add_argument("--selftest", action="store_true", help="run the built-in checks and exit")
    args = ap.parse_args(argv)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into `head`

    if args.selftest:
        return selftest()
    if not args.targets:
        ap.error("give at least one directory or file")

    files = collect_files(args.targets)
    if not files:
        ap.error("no feed files found")
    roots = [t for t in args.targets if os.path.isdir(t)] + [os.getcwd()]

    if args.feedparser_only:
        lines = []
    elif args.ours_jsonl:
        with open(args.ours_jsonl, encoding="utf-8") as f:
            lines = decode_jsonl(f.read(), args.ours_jsonl)
    else:
        binary = find_tidings(args.tidings)
        if not binary:
            sys.stderr.write(
                "error: no tidings binary found (build it with `cargo build --bin tidings`, "
                "pass --tidings PATH, or use --ours-jsonl / --feedparser-only)\n"
            )
            return 2
        lines = run_ours(binary, files)

    report = evaluate(files, index_ours(lines, roots), args.id_field, args.feedparser_only, roots)
    if args.show:
        for path, _, _, differing in report["per_file"]:
            for field, theirs, ours, _, known in differing:
                if field == args.show:
                    mark = "\treference error" if known else ""
                    print(f"{args.show}\t{os.path.relpath(path)}\tfeedparser {short(theirs)}\tours {short(ours)}{mark}")
    print_report(report, args.worst, args.feedparser_only)
    if args.json_report:
        with open(args.json_report, "w", encoding="utf-8") as f:
            json.dump(summary_json(report), f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
