"""Timing the games database (figures for docs/measurements/benchmarks.md):

    python -m tuong.tools.db.bench --db games.sqlite [--import FOLDER...] [--repeat 7]

--import times an import of FOLDER into a new database beside --db's (which
it then measures), on --workers processes. The queries are timed inside the
process, the best and the median of --repeat runs each.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from tuong.tools import db

QUERIES: list[tuple[str, Callable[[sqlite3.Connection], object]]] = [
    ("explore: the start", lambda c: db.explore(c)),
    ("explore: after h2e2 h9g7", lambda c: db.explore(c, moves=["h2e2", "h9g7"])),
    ("search: by position after h2e2 h9g7 (100 games)",
     lambda c: db.search(c, db.Search(position=(None, ["h2e2", "h9g7"])))),
    ("count: by position after h2e2",
     lambda c: db.count(c, db.Search(position=(None, ["h2e2"])))),
    ("search: a player, simplified for traditional (100 games)",
     lambda c: db.search(c, db.Search(player="胡荣华"))),
]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the import's time (with --import) and each query's."""
    parser = argparse.ArgumentParser(prog="python -m tuong.tools.db.bench",
                                     description="Times the games database.")
    parser.add_argument("--db", required=True, help="the database (made by --import if given)")
    parser.add_argument("--import", dest="folders", nargs="*", default=[],
                        help="import these first, into a new --db")
    parser.add_argument("--workers", type=int, default=None, help="import processes")
    parser.add_argument("--repeat", type=int, default=7, help="runs of each query")
    args = parser.parse_args(argv)
    if args.folders:
        if os.path.exists(args.db):
            parser.error(f"--db {args.db} exists: --import times a new database")
        connection = db.connect(args.db)
        started = time.perf_counter()
        report = db.import_files(connection, args.folders, workers=args.workers)
        took = time.perf_counter() - started
        print(f"import: {took:.1f} s, {report.files:,} files read, {report.same_bytes:,} the "
              f"same as another, {report.games:,} games, {report.duplicates:,} copies, "
              f"{os.path.getsize(args.db) / 1e6:.0f} MB")
        connection.close()
    connection = db.connect(args.db, create=False)
    for label, query in QUERIES:
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            query(connection)
            times.append(time.perf_counter() - started)
        print(f"{label}: best {min(times) * 1000:.1f} ms, median "
              f"{statistics.median(times) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
