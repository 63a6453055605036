#!/usr/bin/env python3
"""widecol_ring against Cassandra's own token ranges (tests/stores/
cassandra.sh runs this, with WIDECOL_CASSANDRA set).

Partitions are written through CQL (text and composite keys, a few rows
each); the server's tokens are read from system.local (the node of the
tests has num_tokens 16).  widecol_ring is given those tokens, each as a
node of its own, so that every range (previous token, token] is a row of
its answer, and the partitions and rows it places in each range must be
the ones the server returns for `token(p) > previous AND token(p) <=
token` (the range past the highest token wrapping round to the lowest).

    tests/stores/cassandra_ring.py --extension ./widecol
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from cassandra_session import connect, make_keyspace, wc_args  # noqa: E402

KEYSPACE = "ring%d" % os.getpid()
PARTITIONS = 4000

# table: (partition key columns, the widecol query's column list)
TABLES = {
    "by_user": ([("user_id", "text")], "user_id"),
    "by_sensor_day": ([("sensor", "text"), ("day", "bigint")], "sensor, day"),
}


def key_of(rng, cols, i):
    return tuple("k%d" % (i * 7919 % 100003) if t == "text" else rng.randint(0, 10 ** 6)
                 for _, t in cols)


def main():
    _, db = wc_args(__doc__)
    cluster, session = connect()
    make_keyspace(session, KEYSPACE)
    session.set_keyspace(KEYSPACE)
    from cassandra.concurrent import execute_concurrent_with_args
    tokens = sorted(int(t) for t in session.execute("SELECT tokens FROM system.local").one()[0])
    peers = list(session.execute("SELECT peer FROM system.peers"))
    if peers:
        raise SystemExit("cassandra ring: the server of the tests has peers; this test "
                         "reads one node's tokens")
    ring = "; ".join(str(t) for t in tokens)
    rng = random.Random(35)
    failed = checked = 0
    for table, (cols, names) in TABLES.items():
        session.execute("CREATE TABLE %s (%s, n int, PRIMARY KEY ((%s), n))" % (
            table, ", ".join("%s %s" % c for c in cols), names))
        writes = []
        for i in range(PARTITIONS):
            key = key_of(rng, cols, i)
            writes += [key + (n,) for n in range(1 + i % 4)]
        rng.shuffle(writes)
        insert = session.prepare("INSERT INTO %s (%s, n) VALUES (%s)" % (
            table, names, ", ".join("?" for _ in range(len(cols) + 1))))
        for ok, res in execute_concurrent_with_args(session, insert, writes, concurrency=64,
                                                    raise_on_first_error=False):
            if not ok:
                raise SystemExit("cassandra ring: writing %s: %s" % (table, res))
        db.execute("CREATE TEMP TABLE w_%s(%s, n)" % (table, names))
        db.executemany("INSERT INTO w_%s VALUES (%s)" % (table, ", ".join("?" * (len(cols) + 1))),
                       writes)
        mine = db.execute("SELECT node, ranges, partitions, rows FROM widecol_ring(?, ?)",
                          ("SELECT %s FROM w_%s" % (names, table), ring)).fetchall()
        expect_ranges = ["(%d, %d]" % (tokens[i - 1], tokens[i]) for i in range(len(tokens))]
        for node, ranges, partitions, rows in mine:
            lo, hi = tokens[node - 2], tokens[node - 1]
            if ranges != expect_ranges[node - 1]:
                print("cassandra ring: %s: node %d: FAILED (widecol_ring gives the range %s, "
                      "the server's tokens make %s)" % (table, node, ranges,
                                                        expect_ranges[node - 1]))
                failed += 1
            where = ["token(%s) > %d AND token(%s) <= %d" % (names, lo, names, hi)]
            if lo > hi:     # the range that wraps round
                where = ["token(%s) > %d" % (names, lo), "token(%s) <= %d" % (names, hi)]
            got = []
            for w in where:
                got += list(session.execute("SELECT %s FROM %s WHERE %s" % (names, table, w)))
            server = (len(set(got)), len(got))
            if (partitions, rows) != server:
                print("cassandra ring: %s: range %s: FAILED (widecol_ring places %d partitions, "
                      "%d rows; the server's token() puts %d, %d there)"
                      % (table, ranges, partitions, rows, server[0], server[1]))
                failed += 1
            checked += partitions
        if len(mine) != len(tokens):
            print("cassandra ring: %s: FAILED (%d nodes for %d tokens)"
                  % (table, len(mine), len(tokens)))
            failed += 1
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra ring: %d partitions of %d tables over the server's %d token ranges, "
          "widecol_ring against the server's token(): %d failed"
          % (checked, len(TABLES), len(tokens), failed))
    return 1 if failed or checked != PARTITIONS * len(TABLES) else 0


if __name__ == "__main__":
    sys.exit(main())
