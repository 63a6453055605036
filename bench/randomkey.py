#!/usr/bin/env python3
"""Writes and reads on a RANDOM(100) design against the same key without
it, measured in the same run.

Two tables get the same N rows of [userId][orderid] (each (userid,
orderid) once, so neither refuses a row): ROWKEY(userid, orderid PAD 8)
and ROWKEY(userid, orderid PAD 8, RANDOM(100)).  Times a bulk INSERT
(each RANDOM row reads its key before it is written, to find a free
number) and a read of one order by its fields (a point read on the plain
key, a range of up to 100 keys on the RANDOM one), the median of several
repetitions, and prints the ratios random / plain.

Usage: random.py [--rows N] [--extension ./widecol]
"""
import argparse
import statistics
import time
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    db = wctest.connect(args.extension, isolation_level=None)
    db.execute("CREATE TEMP TABLE src AS WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL "
               "SELECT x + 1 FROM i WHERE x < ?) SELECT printf('user%05d', x % 5000) "
               "AS userid, x AS orderid, x * 0.5 AS total FROM i", (args.rows - 1,))
    keys = {"plain": "ROWKEY(userid, orderid PAD 8)",
            "random": "ROWKEY(userid, orderid PAD 8, RANDOM(100))"}
    writes = {t: [] for t in keys}
    for rep in range(3):
        for t, key in keys.items():
            db.execute("DROP TABLE IF EXISTS %s" % t)
            db.execute("CREATE VIRTUAL TABLE %s USING widecol(userid TEXT, orderid INTEGER, "
                       "total REAL, %s)" % (t, key))
            t0 = time.perf_counter()
            db.execute("BEGIN")
            db.execute("INSERT INTO %s SELECT * FROM src" % t)
            db.execute("COMMIT")
            writes[t].append(args.rows / (time.perf_counter() - t0))
    points = db.execute("SELECT userid, orderid FROM src ORDER BY random() LIMIT 5000").fetchall()
    reads = {t: [] for t in keys}
    for rep in range(7):
        for t in keys:
            sql = "SELECT total FROM %s WHERE userid = ? AND orderid = ?" % t
            t0 = time.perf_counter()
            for p in points:
                db.execute(sql, p).fetchall()
            reads[t].append((time.perf_counter() - t0) / len(points))
    w = {t: statistics.median(v) for t, v in writes.items()}
    r = {t: statistics.median(v) for t, v in reads.items()}
    print("RANDOM(100) against the same key without it, %d rows (same run, median):"
          % args.rows)
    print("  bulk INSERT               random %8.0f rows/s   plain %8.0f rows/s   random / plain %.2fx"
          % (w["random"], w["plain"], w["random"] / w["plain"]))
    print("  one order by its fields   random %8.2f us       plain %8.2f us       random / plain %.2fx"
          % (r["random"] * 1e6, r["plain"] * 1e6, r["random"] / r["plain"]))


if __name__ == "__main__":
    main()
