#!/usr/bin/env python3
"""Salted and bucketed keys: a 1% time range against the same query on an
unsalted design of the same rows, in the same run.

N log rows, one per second from 1364248490, on 8 hosts, are stored three
ways (the guides' designs):

  unsalted  ROWKEY(ts PAD 10, hostname, event)             the baseline
  bucketed  ROWKEY(BUCKET(16, ts), ts PAD 10, hostname, event)
            Lindorm/GeminiDB [bucket][timestamp][hostname][log-event]
  salted    ROWKEY(SALT(4, ts), ts PAD 10, hostname, event)
            4 hex digits of md5(ts): up to 65,536 prefixes; a short ts
            range is enumerated, each value's salt computed
  hashed    ROWKEY(SALT(4, hostname, ts), ts PAD 10, hostname, event)
            the same prefixes, but no single field gives them: a skip
            scan would probe all 65,536 (two seeks each), so the planner
            weighs that against a full scan

The queries read 1% of the time line:

  ordered   SELECT ts, hostname, value ... WHERE ts >= lo AND ts < hi
            ORDER BY ts [LIMIT 100]: a merge of the buckets' scans
  unordered the same without ORDER BY: a skip scan, bucket after bucket
  sorted    ORDER BY +ts on the salted designs: SQLite sorts instead of
            widecol merging, for comparison
  full scan the range hidden from xBestIndex (+ts): every row read

For each query: the median time of R runs and its ratio to the same query
on the unsalted design; the rows read, rows returned, seeks and prefixes
of one run from widecol_stats(); and the high-water mark of SQLite's heap
during one run (sqlite3_status64, read through ctypes from the same
libsqlite3 the sqlite3 module uses), next to the baseline's.

Usage: bench/skip.py [--rows N] [--repeat R] [--extension ./widecol]
"""
import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402
from heap import Heap  # noqa: E402

BASE_TS = 1364248490

DESIGNS = [
    ("unsalted", "ts PAD 10, hostname, event"),
    ("bucketed", "BUCKET(16, ts), ts PAD 10, hostname, event"),
    ("salted", "SALT(4, ts), ts PAD 10, hostname, event"),
    ("hashed", "SALT(4, hostname, ts), ts PAD 10, hostname, event"),
]


def build(db, n):
    src = ("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
           "SELECT %d + x, 'web' || (x %% 8), 'load', (x %% 997) / 10.0 FROM i"
           % (n - 1, BASE_TS))
    for name, rowkey in DESIGNS:
        t0 = time.perf_counter()
        db.execute("CREATE VIRTUAL TABLE %s USING widecol(ts INTEGER, hostname TEXT, "
                   "event TEXT, value REAL, ROWKEY(%s))" % (name, rowkey))
        db.execute("BEGIN")
        db.execute("INSERT INTO %s %s" % (name, src))
        db.execute("COMMIT")
        print("built %-8s %d rows in %.2f s" % (name, n, time.perf_counter() - t0))


def stats(db, table):
    return json.loads(db.execute("SELECT widecol_stats(?)", (table,)).fetchone()[0])


def measure(db, heap, table, sql, repeat):
    """Median seconds, the counters and heap peak of one run, the rows."""
    def run():
        return db.execute(sql).fetchall()
    before = stats(db, table)
    peak, rows = heap.peak_during(run)
    after = stats(db, table)
    counts = {k: after[k] - before[k] for k in after}
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), counts, peak, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    heap = Heap()

    with tempfile.TemporaryDirectory() as tmp:
        db = wctest.connect(args.extension, os.path.join(tmp, "bench.db"),
                            isolation_level=None)
        build(db, args.rows)

        lo = BASE_TS + args.rows * 40 // 100
        hi = lo + args.rows // 100
        where = "WHERE %s >= %d AND %s < %d"
        shapes = [
            ("ordered, LIMIT 100", "ts", "ORDER BY ts LIMIT 100"),
            ("ordered", "ts", "ORDER BY ts"),
            ("unordered", "ts", ""),
            ("sorted by SQLite, LIMIT 100", "ts", "ORDER BY +ts LIMIT 100"),
            ("sorted by SQLite", "ts", "ORDER BY +ts"),
            ("full scan, ordered, LIMIT 100", "+ts", "ORDER BY ts LIMIT 100"),
        ]
        print("query: SELECT ts, hostname, value FROM <design> WHERE ts >= %d AND ts < %d ..."
              % (lo, hi))
        print("median of %d runs; counters and heap peak of one run\n" % args.repeat)
        print("%-30s %-9s %9s %8s %9s %9s %7s %8s %9s"
              % ("query", "design", "ms", "ratio", "rows_read", "returned",
                 "seeks", "prefixes", "heap KiB"))
        for label, col, tail in shapes:
            base = None
            for name, _ in DESIGNS:
                sql = ("SELECT ts, hostname, value FROM %s %s %s"
                       % (name, where % (col, lo, col, hi), tail))
                seconds, counts, peak, rows = measure(db, heap, name, sql, args.repeat)
                if base is None:
                    base = (seconds, rows)
                elif (rows if tail else sorted(rows)) != (base[1] if tail else sorted(base[1])):
                    raise SystemExit("%s on %s returned other rows than on unsalted"
                                     % (label, name))
                print("%-30s %-9s %9.2f %7.2fx %9d %9d %7d %8d %9.0f"
                      % (label, name, seconds * 1000, seconds / base[0],
                         counts["rows_read"], counts["rows_returned"],
                         counts["seeks"], counts["prefixes"], peak / 1024.0))
        print("\nplans:")
        for name, _ in DESIGNS:
            for tail in ("ORDER BY ts LIMIT 100", ""):
                sql = ("SELECT ts, hostname, value FROM %s %s %s"
                       % (name, where % ("ts", lo, "ts", hi), tail))
                plan = db.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
                print("  %-8s %-22s %s" % (name, tail or "(no ORDER BY)",
                                           " | ".join(r[3] for r in plan)))


if __name__ == "__main__":
    main()
