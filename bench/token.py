#!/usr/bin/env python3
"""Reads on a TOKEN design against the same design without the token,
measured in the same run.

Two tables hold the same N likes of eBay's Item_By_User: one in
Cassandra's form, PRIMARY KEY ((user_id), liked_at DESC, item_id) (the
token of user_id first), one as ROWKEY(user_id, liked_at DESC, item_id),
ENCODING BINARY.  Times a point read (the whole key) and a partition read
(a user's likes, about N / users rows) on each, the median of several
repetitions of a batch of reads, and prints the ratio token / plain.

Usage: token.py [--rows N] [--users U] [--extension ./widecol]
"""
import argparse
import random
import statistics
import time
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402


def batch(db, sql, args):
    t0 = time.perf_counter()
    for a in args:
        db.execute(sql, a).fetchall()
    return (time.perf_counter() - t0) / len(args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--users", type=int, default=2000)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    db = wctest.connect(args.extension)
    cols = "user_id INTEGER, liked_at INTEGER, item_id INTEGER, title TEXT"
    db.execute("CREATE VIRTUAL TABLE tok USING widecol(%s, PRIMARY KEY ((user_id), liked_at DESC, "
               "item_id))" % cols)
    db.execute("CREATE VIRTUAL TABLE plain USING widecol(%s, ROWKEY(user_id, liked_at DESC, "
               "item_id), ENCODING BINARY)" % cols)
    db.execute("CREATE TEMP TABLE src AS WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 "
               "FROM i WHERE x < ?) SELECT x %% %d AS user_id, 1364248490 + x AS liked_at, "
               "x * 7 %% 1000 AS item_id, 'item ' || x AS title FROM i" % args.users,
               (args.rows - 1,))
    for t in ("tok", "plain"):
        db.execute("INSERT INTO %s SELECT * FROM src" % t)
    rng = random.Random(1)
    points = db.execute("SELECT user_id, liked_at, item_id FROM src ORDER BY random() "
                        "LIMIT 2000").fetchall()
    users = [(rng.randrange(args.users),) for _ in range(200)]
    res = {}
    for name, sql, a in [
            ("point read (whole key)", "SELECT title FROM %s WHERE user_id = ? AND liked_at = ? "
             "AND item_id = ?", points),
            ("partition read (a user's likes)", "SELECT count(*), max(title) FROM %s WHERE "
             "user_id = ?", users)]:
        times = {"tok": [], "plain": []}
        for _ in range(7):
            for t in ("tok", "plain"):
                times[t].append(batch(db, sql % t, a))
        res[name] = (statistics.median(times["tok"]), statistics.median(times["plain"]))
    print("TOKEN design against the same key without the token, %d rows, %d users "
          "(same run, median of 7):" % (args.rows, args.users))
    for name, (t_tok, t_plain) in res.items():
        print("  %-32s token %8.1f us   plain %8.1f us   token / plain %.2fx" % (
            name, t_tok * 1e6, t_plain * 1e6, t_tok / t_plain))


if __name__ == "__main__":
    main()
