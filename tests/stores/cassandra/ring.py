#!/usr/bin/env python3
"""widecol_ring and the wide-partition lint against Cassandra's own view
(tests/stores/cassandra/run.sh runs this, with WIDECOL_CASSANDRA set).

Partitions are written through CQL (text and composite keys, a few rows
each); the server's tokens are read from system.local (the node of the
tests has num_tokens 16).  widecol_ring is given those tokens, each as a
node of its own, so that every range (previous token, token] is a row of
its answer, and the partitions and rows it places in each range must be
the ones the server returns for `token(p) > previous AND token(p) <=
token` (the range past the highest token wrapping round to the lowest).

Then partitions: eBay's User_By_Item on the Cassandra store, one item
gone viral (100,000 likes) among 60 of about 100 each; widecol_lint's
wide-partition finding names the partitions it calls wide, with their
bytes.  DROP TABLE flushes the table first (auto_snapshot), and Cassandra
5's partition_size guardrail (its warning threshold 1 MiB in the tests'
cassandra.yaml) logs every partition it writes past that size: the
partitions it names must be the lint's, and its size each within a factor
of two of the lint's bytes (the lint counts the key's and values' bytes,
the server the partition as its sstable holds it).

    tests/stores/cassandra/ring.py --extension ./widecol --cassandra ./widecol_cassandra
        [--log build/cassandra-test/data/logs/system.log]
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import argparse  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

import wctest  # noqa: E402
from cassandra_session import connect, make_keyspace  # noqa: E402

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


def wide_partitions(db, session, log):
    """The wide-partition check (above); returns the failures."""
    failed = 0
    db.execute("CREATE VIRTUAL TABLE ubi USING widecol(item_id INTEGER, liked_at INTEGER, "
               "user_id INTEGER, user_name TEXT, PRIMARY KEY ((item_id), liked_at DESC, user_id), "
               "STORAGE CASSANDRA '%s.ubi')" % KEYSPACE)
    db.execute("INSERT OR REPLACE INTO ubi WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL "
               "SELECT x + 1 FROM i WHERE x < 105999) SELECT CASE WHEN x < 6000 THEN x % 60 "
               "ELSE 7 END + CASE WHEN x < 6000 AND x % 60 = 7 THEN 100 ELSE 0 END, "
               "1364248490 + x, x, 'user ' || x FROM i")
    mine = {}
    for element, finding in db.execute("SELECT element, finding FROM widecol_lint('ubi') "
                                       "WHERE rule = 'wide-partition'"):
        m = re.search(r"\(item_id = (\d+)\) holds .* and (\d+) bytes", finding)
        if m:
            mine[int(m.group(1))] = int(m.group(2))
        else:
            print("cassandra ring: FAILED (a wide-partition finding the test cannot read: %s)"
                  % finding)
            failed += 1
    start = os.path.getsize(log) if os.path.exists(log) else 0
    db.execute("DROP TABLE ubi")
    server = {}
    pattern = re.compile(r"Guardrail partition_size violated: Partition %s\.ubi:(\d+) .*has size "
                         r"(\d+)" % re.escape(KEYSPACE))
    for _ in range(50):
        with open(log, encoding="utf-8", errors="replace") as f:
            f.seek(start)
            server = {int(m.group(1)): int(m.group(2)) for m in pattern.finditer(f.read())}
        if server:
            break
        time.sleep(0.2)
    if set(server) != set(mine) or not mine:
        print("cassandra ring: wide partitions: FAILED (widecol_lint calls %s wide, Cassandra's "
              "guardrail logged %s)" % (sorted(mine), sorted(server)))
        return failed + 1
    for key, size in server.items():
        if not mine[key] / 2 <= size <= mine[key] * 2:
            print("cassandra ring: wide partition %d: FAILED (widecol_lint's %d bytes, "
                  "Cassandra's %d)" % (key, mine[key], size))
            failed += 1
    print("cassandra ring: wide partitions: widecol_lint and Cassandra's partition_size "
          "guardrail name the same (%s; lint %s bytes, server %s)"
          % (", ".join("item_id %d" % k for k in sorted(mine)),
             ", ".join(str(mine[k]) for k in sorted(mine)),
             ", ".join(str(server[k]) for k in sorted(server))))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    ap.add_argument("--log", default=os.path.join(
        os.environ.get("WIDECOL_CASSANDRA_DIR", "build/cassandra"), "data", "logs", "system.log"))
    args = ap.parse_args()
    db = wctest.connect(args.extension, isolation_level=None)
    db.load_extension(args.cassandra)
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
    failed += wide_partitions(db, session, args.log)
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra ring: %d partitions of %d tables over the server's %d token ranges, "
          "widecol_ring against the server's token(): %d failed"
          % (checked, len(TABLES), len(tokens), failed))
    return 1 if failed or checked != PARTITIONS * len(TABLES) else 0


if __name__ == "__main__":
    sys.exit(main())
