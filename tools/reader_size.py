#!/usr/bin/env python3
"""Store the same feeds with lemon24/reader and print its database's size per entry.

    python3 tools/reader_size.py XML_DIR DB

XML_DIR holds the documents `entry_bytes` wrote (`cargo run --release -p tidings-crawler
--example entry_bytes -- DB FEEDS XML_DIR`); DB must not exist. Needs `pip install reader`.
The file is vacuumed before it is measured, as entry_bytes does with its own.
"""

import os
import sqlite3
import sys

from reader import make_reader


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    xml_dir, db = sys.argv[1], sys.argv[2]
    if os.path.exists(db):
        print(f"{db} exists: give a new file", file=sys.stderr)
        return 2
    reader = make_reader(db, feed_root=os.path.abspath(xml_dir))
    names = sorted(n for n in os.listdir(xml_dir) if n.endswith(".xml"))
    for name in names:
        reader.add_feed(name)
    reader.update_feeds()
    entries = reader.get_entry_counts().total
    reader.close()
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.execute("VACUUM")
    size = os.path.getsize(db)
    print(f"reader {__import__('reader').__version__}: {len(names)} feeds, {entries} entries, "
          f"{size} bytes, {size // max(entries, 1)} bytes per entry")
    return 0


if __name__ == "__main__":
    sys.exit(main())
