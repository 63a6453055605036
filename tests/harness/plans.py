#!/usr/bin/env python3
"""100,000 distinct query shapes prepared on one connection.

Each statement carries its own plan (idxStr), so preparing many shapes must
leave nothing behind on the connection: memory after 100,000 different
plans is what it was after 10,000 (within the page cache's own drift), and
every statement still answers as the same query on an ordinary table does.
Before issue 14 the plans piled up in a per-table list, about 300 bytes
each, and the search for a free plan number looped forever once 65,536
were taken.

Usage: plans.py [--extension ./widecol] [--shapes 100000]
"""
import argparse
import ctypes
import ctypes.util
import sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

NCOL = 64


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--shapes", type=int, default=100000)
    args = ap.parse_args()
    lib = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
    lib.sqlite3_memory_used.restype = ctypes.c_int64

    db = wctest.connect(args.extension, isolation_level=None)
    cols = ["c%d" % i for i in range(NCOL)]
    db.execute("CREATE VIRTUAL TABLE w USING widecol(k INTEGER, %s, "
               "ROWKEY(k PAD 6))" % ", ".join(c + " INTEGER" for c in cols))
    db.execute("CREATE TABLE o(k INTEGER PRIMARY KEY, %s)" % ", ".join(cols))
    for k in range(20):
        row = [k] + [k * 100 + i for i in range(NCOL)]
        for t in ("w", "o"):
            db.execute("INSERT INTO %s VALUES (%s)" % (t, ", ".join("?" * len(row))), row)

    base = None
    for n in range(args.shapes):
        # Shape n reads the columns whose bits n has set, and c63 (which
        # shares colUsed's last bit with every column after it): a
        # different colUsed, so a different plan, for each n.
        pick = [cols[j] for j in range(17) if (n >> j) & 1] + ["c63"]
        sql = "SELECT %s FROM %%s WHERE k = ?" % ", ".join(pick)
        k = n % 20
        got = db.execute(sql % "w", (k,)).fetchall()
        if n % 997 == 0 and got != db.execute(sql % "o", (k,)).fetchall():
            print("plans: shape %d answers %r, the ordinary table %r" % (
                n, got, db.execute(sql % "o", (k,)).fetchall()))
            return 1
        if n == 10000:
            base = lib.sqlite3_memory_used()
    grown = lib.sqlite3_memory_used() - base
    print("plans: %d distinct shapes prepared on one connection; memory "
          "after the last 90%% grew by %d bytes" % (args.shapes, grown))
    # The statement cache and the page cache stay within their own limits;
    # a plan kept per shape would be 90,000 * ~300 bytes = 27 MB.
    if grown > 1000000:
        print("plans: FAILED, memory grows with the number of plans")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
