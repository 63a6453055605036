#!/usr/bin/env python3
"""Range-scan benchmark: a 1% range query on a widecol table against the
same work done by hand on its row table, in the same run.

The table holds N payments of N/10 customers (10 each), keyed
ROWKEY(customer_id PAD 8, paid_at, payment_id PAD 9).  The query sums the
amounts of 1% of the customers:

  widecol:   ... FROM payments WHERE customer_id BETWEEN lo AND hi
  floor:     ... FROM payments_rows WHERE rowkey >= <key of lo>
                                      AND rowkey <  <key of hi + 1>
             (bounds computed with rk_pad, as a user would by hand)
  ordinary:  ... FROM plain, an ordinary WITHOUT ROWID table with
             PRIMARY KEY(customer_id, paid_at, payment_id)
  no pushdown: the widecol query with the constraint hidden from
             xBestIndex (+customer_id), i.e. a full scan

Each query runs R times; the median time is reported, with ratios to the
floor.  Times are wall clock on a shared machine: compare the ratios.

Usage: bench/range.py [--rows N] [--repeat R] [--extension ./widecol]
"""
import argparse
import os
import sqlite3
import statistics
import tempfile
import time


def timed(db, sql, repeat):
    """Median seconds of `repeat` runs of sql, and its result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = db.execute(sql).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def build(db, n, log):
    t0 = time.perf_counter()
    db.executescript("""
        CREATE VIRTUAL TABLE payments USING widecol(
          customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL,
          ROWKEY(customer_id PAD 8, paid_at, payment_id PAD 9));
        CREATE TABLE plain(customer_id INTEGER, paid_at TEXT, payment_id INTEGER,
          amount REAL, PRIMARY KEY(customer_id, paid_at, payment_id)) WITHOUT ROWID;
    """)
    src = ("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
           "SELECT x / 10, printf('2017-01-%%02d %%02d:%%02d:00', 1 + x %% 28, x %% 24, x %% 60), "
           "x, (x %% 1000) / 10.0 FROM i" % (n - 1))
    db.execute("BEGIN")
    db.execute("INSERT INTO payments " + src)
    db.execute("COMMIT")
    t1 = time.perf_counter()
    db.execute("BEGIN")
    db.execute("INSERT INTO plain " + src)
    db.execute("COMMIT")
    t2 = time.perf_counter()
    log("built %d rows: widecol %.2f s, ordinary table %.2f s" % (n, t1 - t0, t2 - t1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(os.path.join(tmp, "bench.db"), isolation_level=None)
        db.enable_load_extension(True)
        db.load_extension(args.extension)
        build(db, args.rows, print)

        customers = args.rows // 10
        lo = customers * 40 // 100
        hi = lo + customers // 100 - 1
        agg = "SELECT count(*), sum(amount) FROM "
        queries = [
            ("widecol", agg + "payments WHERE customer_id BETWEEN %d AND %d" % (lo, hi)),
            ("floor (row table, bounds by hand)",
             agg + "payments_rows WHERE rowkey >= CAST(rk_pad(%d, 8) AS BLOB) "
                   "AND rowkey < CAST(rk_pad(%d, 8) AS BLOB)" % (lo, hi + 1)),
            ("ordinary WITHOUT ROWID table",
             agg + "plain WHERE customer_id BETWEEN %d AND %d" % (lo, hi)),
            ("widecol without pushdown",
             agg + "payments WHERE +customer_id BETWEEN %d AND %d" % (lo, hi)),
        ]
        plan = db.execute("EXPLAIN QUERY PLAN " + queries[0][1]).fetchall()[0][3]
        print("widecol plan: %s" % plan)
        results = []
        for name, sql in queries:
            seconds, rows = timed(db, sql, args.repeat)
            results.append((name, seconds, rows))
        expected = results[1][2]
        for name, _, rows in results:
            if rows != expected:
                raise SystemExit("%s returned %r, the floor %r" % (name, rows, expected))
        floor = results[1][1]
        print("1%% range query (%d of %d rows), median of %d runs:"
              % (expected[0][0], args.rows, args.repeat))
        for name, seconds, _ in results:
            print("  %-36s %9.3f ms   %6.2fx floor" % (name, seconds * 1000, seconds / floor))


if __name__ == "__main__":
    main()
