#!/usr/bin/env python3
"""Reads of many ranges on HBase's own protocol (tests/stores/hbase/run.sh
runs this): an IN list, with and without a range on the next key field,
ascending and descending, with and without LIMIT, over a table whose
regions split the lists, each answer against an ordinary SQLite table
holding the same rows; and the calls: the ranges that fall in one region
are read by one scanner with HBase's MultiRowRangeFilter (docs/hbase.md),
so 10 of them in one region take a call a page, not one a range; and a
reader slower than a scanner's lease, whose lease widecol renews.

    tests/stores/hbase/ranges.py --extension ./widecol --hbase ./widecol_hbase
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checks import Checks  # noqa: E402
from hbase_session import connect_from_args  # noqa: E402


CHECKS = Checks("hbase ranges")
expect = CHECKS.expect


def compare(db):
    """Every query shape on the split table and on a local one."""
    lists = ["1,3,5,7", "2,9,10,11,19,20,21,29", "20", "5,25",
             ",".join(str(i) for i in range(30))]
    conds = ["", "AND b > 500", "AND b BETWEEN 300 AND 600", "AND b >= 999", "AND b = 501"]
    tails = ["", "ORDER BY a, b", "ORDER BY a DESC, b DESC", "ORDER BY a, b LIMIT 7",
             "ORDER BY a DESC, b DESC LIMIT 300"]
    wrong = []
    n = 0
    for values in lists:
        for cond in conds:
            for tail in tails:
                q = "SELECT a, b, v FROM %%s WHERE a IN (%s) %s %s" % (values, cond, tail)
                got = db.execute(q % "h").fetchall()
                want = db.execute(q % "l").fetchall()
                if "ORDER BY" not in q:
                    got, want = sorted(got), sorted(want)
                n += 1
                if got != want:
                    wrong.append("%s: %d rows, %d expected" % (q % "h", len(got), len(want)))
    expect("%d reads of IN lists across split regions answer as a local table" % n,
           not wrong, "; ".join(wrong[:3]))


def calls(db):
    """10 ranges in one region: a call a page."""
    values = ",".join(str(i) for i in range(10))
    q = "SELECT count(*) FROM h WHERE a IN (%s) AND b > 900" % values
    db.execute("SELECT widecol_stats('h', 1)").fetchone()
    got = db.execute(q).fetchone()[0]
    stats = json.loads(db.execute("SELECT widecol_stats('h')").fetchone()[0])
    want = db.execute(q.replace("FROM h", "FROM l")).fetchone()[0]
    print("hbase ranges: %s: %d rows, %d calls" % (q, got, stats["rpcs"]))
    expect("10 ranges in one region: the rows", got == want, "%d, %d expected" % (got, want))
    expect("10 ranges in one region: one scanner, calls for its pages, not one a range",
           stats["rpcs"] <= 5, "%d calls" % stats["rpcs"])


def slow_reader(db):
    """A reader that takes each row slowly, for longer than a scanner's
    lease (20 s on the tests' cluster, tests/servers/hbase.sh): widecol
    renews the lease as it gives the rows (docs/hbase.md), so the read
    goes on on its scanner, with no call made again; without renewals the
    scanner's next page would find it gone and the read would start again
    on a new one (counted in widecol_stats' retries)."""
    q = "SELECT a, b, v FROM h WHERE a < 10 ORDER BY a, b"
    want = db.execute(q.replace(" h ", " l ")).fetchall()
    db.execute("SELECT widecol_stats('h', 1)").fetchone()
    cur = db.execute(q)
    # 1,200 rows at once: the read's pages grow past one scanner page, so
    # that the scanner stays open behind the rows held.
    got = cur.fetchmany(1200)
    started = time.time()
    while time.time() - started < 30:
        got += cur.fetchmany(1)
        time.sleep(1.5)
    got += cur.fetchall()
    stats = json.loads(db.execute("SELECT widecol_stats('h')").fetchone()[0])
    expect("a reader slower than the lease: every row, in order", got == want,
           "%d rows, %d expected" % (len(got), len(want)))
    expect("a reader slower than the lease: its scanner kept (lease renewed), no call made "
           "again", stats.get("retries") == 0, stats)


def main():
    db = connect_from_args()
    t = "rgs:t%d" % os.getpid()
    # Regions: [-010), [010-020), [020-020_00500), [020_00500-): lists
    # that fall in one region, and ranges split by a region's end.
    db.execute("CREATE VIRTUAL TABLE h USING widecol(a INTEGER, b INTEGER, v TEXT, "
               "ROWKEY(a PAD 3, b PAD 5), SPLITS ('010', '020', '020_00500'), "
               "STORAGE HBASE '%s')" % t)
    db.execute("CREATE TABLE l(a INTEGER, b INTEGER, v TEXT, PRIMARY KEY(a, b))")
    rows = [(a, b, "v%d_%d" % (a, b)) for a in range(30) for b in range(0, 1000, 3)]
    started = time.time()
    db.executemany("INSERT INTO h VALUES (?, ?, ?)", rows)
    db.executemany("INSERT INTO l VALUES (?, ?, ?)", rows)
    print("hbase ranges: %d rows written in %.1f s" % (len(rows), time.time() - started))
    compare(db)
    calls(db)
    slow_reader(db)
    db.execute("DROP TABLE h")
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
