#!/usr/bin/env python3
"""Many-way joins on a store read what the local plan reads (a store's
tests/stores/<engine>/run.sh runs this with the engine up).

The shape of SQLite's sqllogictest select5.test: N tables t<i>(a<i> the
key, b<i> a permutation of 1..10, x<i> text), 10 rows each, joined in a
chain a<j> = b<i> through every table in a shuffled order, one a<k> fixed
to a constant.  The local plan looks each table up by its key, one seek a
table and a few more; priced by its calls, the store's plan must make at
most twice the local plan's seeks (and 10 more) in calls, with the same
answer.  Before calls were priced by the pages a read makes, a read of a
10-row table cost as much as a lookup, and the same join made 4,000 to
100,000 calls on Bigtable against 28 to 217 local seeks.

    tests/stores/joins.py --extension ./widecol --store ./widecol_bigtable \\
        --storage "STORAGE BIGTABLE 'projects/p/instances/i/tables/{name}'"
        [--tables N] [--seeds N] [--cql: keys in Cassandra's form]
"""
import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402


CHECKS = Checks("joins")
expect = CHECKS.expect


def design(n, seed):
    """The tables' rows and the query, from seed."""
    rnd = random.Random(seed)
    rows = []
    for _ in range(n):
        perm = list(range(1, 11))
        rnd.shuffle(perm)
        rows.append(perm)
    order = list(range(1, n + 1))
    rnd.shuffle(order)
    conds = []
    for k in range(n - 1):
        x, y = order[k], order[k + 1]
        conds.append("a%d=b%d" % (y, x) if rnd.random() < 0.5 else "b%d=a%d" % (x, y))
    conds.append("a%d=%d" % (order[rnd.randrange(n)], rnd.randint(1, 10)))
    rnd.shuffle(conds)
    names = list(range(1, n + 1))
    rnd.shuffle(names)
    query = "SELECT %s FROM %s WHERE %s" % (
        ",".join("x%d" % i for i in names), ",".join("t%d" % i for i in names),
        " AND ".join(conds))
    return rows, query


def run(db, n, seed, storage, prefix, cql):
    """(the answer, seeks or calls summed over the tables, full scans);
    the key in Cassandra's form where cql."""
    rows, query = design(n, seed)
    for i in range(1, n + 1):
        where = (", " + storage.format(name="%sj%d_%d" % (prefix, seed, i))) if storage else ""
        key = "PRIMARY KEY ((a%d))" % i if cql else "ROWKEY(a%d PAD 3)" % i
        db.execute("CREATE VIRTUAL TABLE t%d USING widecol(a%d INTEGER, b%d INTEGER, x%d TEXT, "
                   "%s%s)" % (i, i, i, i, key, where))
        db.execute("INSERT INTO t%d VALUES %s" % (i, ", ".join(
            "(%d, %d, 'table t%d row %d')" % (r, rows[i - 1][r - 1], i, r) for r in range(1, 11))))
    # The planner's figures first (a store counts or samples the rows once).
    plan = db.execute("EXPLAIN QUERY PLAN " + query).fetchall()
    for i in range(1, n + 1):
        db.execute("SELECT widecol_stats('t%d', 1)" % i)
    answer = sorted(db.execute(query).fetchall())
    total = 0
    for i in range(1, n + 1):
        st = json.loads(db.execute("SELECT widecol_stats('t%d')" % i).fetchone()[0])
        total += st["rpcs"] if storage else st["seeks"]
    for i in range(1, n + 1):
        db.execute("DROP TABLE t%d" % i)
    return answer, total, sum("FULL SCAN" in p[3] for p in plan)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--extension", required=True)
    ap.add_argument("--store", required=True, help="the store's library, as --extension")
    ap.add_argument("--storage", required=True,
                    help="the STORAGE clause, {name} where the table's name goes")
    ap.add_argument("--tables", type=int, default=28)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--cql", action="store_true", help="keys in Cassandra's form")
    args = ap.parse_args()
    local = wctest.connect(args.extension, isolation_level=None)
    remote = wctest.connect(args.extension, bigtable=args.store, isolation_level=None)
    prefix = "p%d" % os.getpid()
    for seed in range(1, args.seeds + 1):
        want, seeks, _ = run(local, args.tables, seed, None, prefix, args.cql)
        got, calls, scans = run(remote, args.tables, seed, args.storage, prefix, args.cql)
        expect("a %d-table join (seed %d): %d calls on the store, %d seeks locally, "
               "%d full scans" % (args.tables, seed, calls, seeks, scans),
               got == want and calls <= 2 * seeks + 10,
               "the answers differ" if got != want else "too many calls")
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
