#!/usr/bin/env python3
"""widecol_ring over N partition keys: time and memory, against baselines
measured in the same run.

Places N text keys ('user<i>', write order) on a ring of 6 nodes of 16
vnodes and reports its time against two baselines over the same keys:
reading them with their tokens (SELECT count(rk_token(k))), and
widecol_regions (HBase's splitting, the same kind of replay).  Memory is
the growth of the process's peak resident set during the ring's call
(ru_maxrss; the keys' table is made before).

Usage: ring.py [--rows N] [--extension ./widecol]
"""
import argparse
import resource
import time
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402


def timed(db, sql):
    t0 = time.perf_counter()
    rows = db.execute(sql).fetchall()
    return time.perf_counter() - t0, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    db = wctest.connect(args.extension)
    db.execute("CREATE TABLE k(u TEXT)")
    db.execute("INSERT INTO k WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
               "FROM i WHERE x < ?) SELECT 'user' || x FROM i", (args.rows,))
    t_hash, _ = timed(db, "SELECT count(rk_token(u)) FROM k")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t_ring, rows = timed(db, "SELECT node, rows, skew FROM widecol_ring('SELECT u FROM k', 6)")
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t_reg, _ = timed(db, "SELECT count(*) FROM widecol_regions('SELECT u FROM k', %d)"
                     % max(2, args.rows // 8))
    skew = [r[2] for r in rows]
    print("widecol_ring over %d keys, 6 nodes x 16 vnodes (same run):" % args.rows)
    print("  tokens alone (count(rk_token(k)))  %7.3f s" % t_hash)
    print("  widecol_ring                        %7.3f s   %.2fx the tokens alone" % (
        t_ring, t_ring / t_hash))
    print("  widecol_regions (8 regions)         %7.3f s   ring / regions %.2fx" % (
        t_reg, t_ring / t_reg))
    print("  peak memory growth during the ring  %7.1f MB (%.1f bytes a key)" % (
        (rss1 - rss0) / 1024.0, (rss1 - rss0) * 1024.0 / args.rows))
    print("  nodes' skew (rows against an even share): %.3f to %.3f" % (min(skew), max(skew)))


if __name__ == "__main__":
    main()
