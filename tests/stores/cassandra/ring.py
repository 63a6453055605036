#!/usr/bin/env python3
"""widecol_ring and the wide-partition lint against Cassandra's own view
(tests/stores/cassandra/run.sh runs this, with WIDECOL_CASSANDRA set).

Partitions are written through CQL (text and composite keys, a few rows
each).  The ring is the cluster's own, read by widecol from the cluster
(widecol_cassandra_nodes: each node and its tokens, num_tokens 16 a node
in the tests) and checked against what the cluster lists (system.local
and system.peers_v2, read by the driver); widecol_ring is given it, and
the partitions and rows it places on each node must be the ones the
server returns for `token(p) > previous AND token(p) <= token` over the
ranges that node owns (the range past the highest token wrapping round
to the lowest).

Then partitions: eBay's User_By_Item on the Cassandra store, one item
gone viral (100,000 likes) among 60 of about 100 each; widecol_lint's
wide-partition finding names the partitions it calls wide, with their
bytes.  DROP TABLE flushes the table first (auto_snapshot), and Cassandra
5's partition_size guardrail (its warning threshold 1 MiB in the tests'
cassandra.yaml) logs every partition it writes past that size, on node 1
(a replica of every partition: the keyspace has 3 replicas on 3 nodes):
the partitions it names must be the lint's, and its size each within a
factor of two of the lint's bytes (the lint counts the key's and values'
bytes, the server the partition as its sstables hold it: the parts a
full memtable flushed early added up).

    tests/stores/cassandra/ring.py --extension ./widecol --cassandra ./widecol_cassandra
        [--log build/cassandra-test/node1/logs/system.log]
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
from cassandra_session import connect, endpoints, make_keyspace, node_session  # noqa: E402

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
    # From before the load: a memtable full may flush part of it early.
    start = os.path.getsize(log) if os.path.exists(log) else 0
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
    db.execute("DROP TABLE ubi")
    server = {}
    pattern = re.compile(r"Guardrail partition_size violated: Partition %s\.ubi:(\d+) on "
                         r"sstable (\S+) has size (\d+)" % re.escape(KEYSPACE))
    for _ in range(50):
        with open(log, encoding="utf-8", errors="replace") as f:
            f.seek(start)
            # A partition flushed in parts is in several sstables: its size
            # is theirs together.
            parts = {(int(m.group(1)), m.group(2)): int(m.group(3))
                     for m in pattern.finditer(f.read())}
            server = {}
            for (key, _), size in parts.items():
                server[key] = server.get(key, 0) + size
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


def server_ring():
    """{node name "address:port": sorted tokens}, as the cluster itself
    lists them: system.local and system.peers_v2 of the first node (one
    node's: system.local is the node that answers)."""
    cluster, session = node_session(*endpoints()[0])
    local = session.execute("SELECT rpc_address, rpc_port, tokens FROM system.local").one()
    ring = {"%s:%d" % (local[0], local[1]): sorted(int(t) for t in local[2])}
    for peer in session.execute("SELECT native_address, native_port, tokens FROM "
                                "system.peers_v2"):
        ring["%s:%d" % (peer[0], peer[1])] = sorted(int(t) for t in peer[2])
    cluster.shutdown()
    return ring


def ranges_of(ring):
    """{name: [(lo, hi), ...]}: the ranges (lo, hi] each node owns."""
    every = sorted((t, name) for name, tokens in ring.items() for t in tokens)
    owned = {name: [] for name in ring}
    for i, (t, name) in enumerate(every):
        owned[name].append((every[i - 1][0], t))
    return owned


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    ap.add_argument("--log", default=os.path.join(
        os.environ.get("WIDECOL_CASSANDRA_DIR", "build/cassandra"), "node1", "logs", "system.log"))
    args = ap.parse_args()
    db = wctest.connect(args.extension, isolation_level=None)
    db.load_extension(args.cassandra)
    cluster, session = connect()
    make_keyspace(session, KEYSPACE)
    session.set_keyspace(KEYSPACE)
    from cassandra.concurrent import execute_concurrent_with_args
    failed = checked = 0
    # The ring as widecol reads it from the cluster, and as the cluster says.
    nodes = db.execute("SELECT name, tokens FROM widecol_cassandra_nodes "
                       "ORDER BY node").fetchall()
    ring = "; ".join(tokens for _, tokens in nodes)
    server = server_ring()
    mine = {name: sorted(int(t) for t in tokens.split(", ")) for name, tokens in nodes}
    if mine != server:
        print("cassandra ring: FAILED (widecol_cassandra_nodes lists %s, the cluster %s)"
              % (sorted((k, len(v)) for k, v in mine.items()),
                 sorted((k, len(v)) for k, v in server.items())))
        failed += 1
    owned = ranges_of(server)
    ntokens = sum(len(t) for t in server.values())
    rng = random.Random(35)
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
        placed = db.execute("SELECT node, ranges, partitions, rows FROM widecol_ring(?, ?)",
                            ("SELECT %s FROM w_%s" % (names, table), ring)).fetchall()
        if len(placed) != len(nodes):
            print("cassandra ring: %s: FAILED (%d nodes placed, the cluster has %d)"
                  % (table, len(placed), len(nodes)))
            failed += 1
        for node, ranges, partitions, rows in placed:
            name = nodes[node - 1][0]
            want = ", ".join("(%d, %d]" % r for r in sorted(owned.get(name, []),
                                                            key=lambda r: r[1]))
            if ranges != want:
                print("cassandra ring: %s: node %s: FAILED (widecol_ring gives the ranges %s, "
                      "the cluster's tokens make %s)" % (table, name, ranges[:200], want[:200]))
                failed += 1
            got = []
            for lo, hi in owned.get(name, []):
                where = ["token(%s) > %d AND token(%s) <= %d" % (names, lo, names, hi)]
                if lo >= hi:     # the range that wraps round
                    where = ["token(%s) > %d" % (names, lo), "token(%s) <= %d" % (names, hi)]
                for w in where:
                    got += list(session.execute("SELECT %s FROM %s WHERE %s"
                                                % (names, table, w)))
            truth = (len(set(got)), len(got))
            if (partitions, rows) != truth:
                print("cassandra ring: %s: node %s: FAILED (widecol_ring places %d partitions, "
                      "%d rows; the server's token() puts %d, %d in its ranges)"
                      % (table, name, partitions, rows, truth[0], truth[1]))
                failed += 1
            checked += partitions
    failed += wide_partitions(db, session, args.log)
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra ring: %d partitions of %d tables on the cluster's %d nodes (%d tokens, "
          "read by widecol_cassandra_nodes), widecol_ring against the server's token(): "
          "%d failed" % (checked, len(TABLES), len(nodes), ntokens, failed))
    return 1 if failed or checked != PARTITIONS * len(TABLES) else 0


if __name__ == "__main__":
    sys.exit(main())
