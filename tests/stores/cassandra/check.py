#!/usr/bin/env python3
"""The Cassandra store against Cassandra's own driver, the ground truth of
what the server holds (tests/stores/cassandra/run.sh runs this, with
WIDECOL_CASSANDRA set):

- rows widecol writes (INSERT, INSERT OR REPLACE, UPDATE, DELETE) are the
  rows the driver reads from the CQL table;
- rows the driver writes (another application) are the rows widecol reads:
  a whole scan in token order, then clustering order, each partition's
  slice, and a row by its key;
- the CQL table widecol's CREATE makes is the one widecol_ddl(t, 'cql')
  writes for the design (system_schema's partition key, clustering order
  and types, both read back);
- an INDEX's CQL table holds an entry per row, in step after INSERT OR
  REPLACE, UPDATE (of a held column and of the index's field) and DELETE;
- a TTL is the table's default_time_to_live, and each cell's TTL and the
  row's rowtime are what the write's time makes them.

    tests/stores/cassandra/check.py --extension ./widecol --cassandra ./widecol_cassandra
"""
import argparse
import os
import random
import sqlite3
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402
from cassandra_session import connect, make_keyspace  # noqa: E402

KEYSPACE = "check%d" % os.getpid()


CHECKS = Checks("cassandra check", quiet=True)
expect = CHECKS.expect


def schema(session, table):
    rows = session.execute(
        "SELECT column_name, kind, position, clustering_order, type FROM "
        "system_schema.columns WHERE keyspace_name = %s AND table_name = %s",
        (KEYSPACE, table))
    return sorted((r.column_name, r.kind, r.position, r.clustering_order, r.type) for r in rows)


def check_external(db, session):
    """EXTERNAL over a CQL table another application made: a design whose
    clustering order or types are not the table's is refused (it would
    read wrong answers); the design that is the table's reads it, and
    widecol adds its _stamp column, which the application's own writes
    never see."""
    session.execute("CREATE TABLE theirs (u text, k bigint, v text, PRIMARY KEY ((u), k)) "
                    "WITH CLUSTERING ORDER BY (k ASC)")
    for k in (1, 2, 3):
        session.execute("INSERT INTO theirs (u, k, v) VALUES ('a', %s, %s)", (k, "v%d" % k))
    storage = "STORAGE CASSANDRA '%s.theirs' EXTERNAL" % KEYSPACE
    for design, differs in (
            ("u TEXT, k INTEGER, v TEXT, PRIMARY KEY ((u), k DESC)",
             '"k" is bigint clustering 0 asc there, the design\'s is bigint clustering 0 desc'),
            ("u TEXT, k TEXT, v TEXT, PRIMARY KEY ((u), k)",
             '"k" is bigint clustering 0 asc there, the design\'s is text clustering 0 asc')):
        try:
            db.execute("CREATE VIRTUAL TABLE theirs USING widecol(%s, %s)" % (design, storage))
            got = "accepted"
            db.execute("DROP TABLE theirs")
        except sqlite3.Error as e:
            got = str(e)
        expect("EXTERNAL refuses a design that is not the CQL table's: %s" % differs,
               "is not the table of this design; %s;" % differs in got, got)
    db.execute("CREATE VIRTUAL TABLE theirs USING widecol(u TEXT, k INTEGER, v TEXT, "
               "PRIMARY KEY ((u), k), %s)" % storage)
    latest = db.execute("SELECT k, v FROM theirs WHERE u = 'a' ORDER BY k DESC LIMIT 1").fetchall()
    db.execute("UPDATE theirs SET v = 'w' WHERE u = 'a' AND k = 2")
    cols = [r.column_name for r in session.execute(
        "SELECT column_name FROM system_schema.columns WHERE keyspace_name = %s "
        "AND table_name = 'theirs'", (KEYSPACE,))]
    held = sorted((r.k, r.v) for r in session.execute("SELECT k, v FROM theirs"))
    expect("EXTERNAL over the CQL table's own design: the latest row, an UPDATE the driver "
           "reads, and _stamp added",
           latest == [(3, "v3")] and held == [(1, "v1"), (2, "w"), (3, "v3")]
           and "_stamp" in cols, (latest, held, cols))
    db.execute("DROP TABLE theirs")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    args = ap.parse_args()
    cluster, session = connect()
    make_keyspace(session, KEYSPACE)
    db = wctest.connect(args.extension, isolation_level=None)
    db.load_extension(args.cassandra)
    design = ("sensor TEXT, day INTEGER, ts INTEGER, v REAL, note TEXT, "
              "PRIMARY KEY ((sensor, day), ts DESC)")
    db.execute("CREATE VIRTUAL TABLE r USING widecol(%s, STORAGE CASSANDRA '%s.r')"
               % (design, KEYSPACE))

    # The store's table is widecol_ddl's.
    db.execute("CREATE VIRTUAL TABLE plain USING widecol(%s)" % design)
    ddl = db.execute("SELECT widecol_ddl('plain', 'cql')").fetchone()[0]
    session.set_keyspace(KEYSPACE)
    session.execute("\n".join(line for line in ddl.splitlines()
                               if not line.startswith("--")).strip().rstrip(";"))
    # ... with widecol's own column: the stamps of a row's last write,
    # which its UPDATE and DELETE are conditional on.
    expect("the CQL table of STORAGE CASSANDRA is widecol_ddl's, _stamp and all",
           schema(session, "r") == schema(session, "plain")
           and ("_stamp", "regular", -1, "none", "blob") in schema(session, "r"),
           "%s against %s" % (schema(session, "r"), schema(session, "plain")))

    # widecol writes, the driver reads.
    rng = random.Random(36)
    rows = {}
    for _ in range(2000):
        k = ("s%d" % rng.randint(0, 30), rng.randint(20151220, 20151229), rng.randint(0, 10 ** 6))
        rows[k] = (rng.uniform(-5, 5), rng.choice([None, "n", "x\u00e9"]))
    db.executemany("INSERT INTO r VALUES (?, ?, ?, ?, ?)", [k + v for k, v in rows.items()])
    for k in list(rows)[:100]:
        rows[k] = (1.0, "replaced")
        db.execute("INSERT OR REPLACE INTO r VALUES (?, ?, ?, ?, ?)", k + rows[k])
    for k in list(rows)[100:200]:
        del rows[k]
        db.execute("DELETE FROM r WHERE sensor = ? AND day = ? AND ts = ?", k)
    db.execute("UPDATE r SET note = 'u' WHERE sensor = 's3'")
    for k in rows:
        if k[0] == "s3":
            rows[k] = (rows[k][0], "u")
    got = {(r.sensor, r.day, r.ts): (r.v, r.note) for r in session.execute("SELECT * FROM r")}
    expect("the driver reads the rows widecol wrote", got == rows,
           "%d rows read, %d written; first difference %s" % (
               len(got), len(rows),
               next((k for k in set(got) ^ set(rows)), None) or
               next((k for k in rows if got.get(k) != rows[k]), None)))

    # The driver writes, widecol reads.
    insert = session.prepare("INSERT INTO r (sensor, day, ts, v, note) VALUES (?, ?, ?, ?, ?)")
    for _ in range(500):
        k = ("d%d" % rng.randint(0, 9), rng.randint(1, 3), rng.randint(-100, 100))
        rows[k] = (float(rng.randint(0, 9)), None)
        session.execute(insert, k + rows[k])
    want_order = [k for k in sorted(rows, key=lambda k: (
        db.execute("SELECT rk_token(?, ?)", k[:2]).fetchone()[0], k[0], k[1], -k[2]))]
    seen = [tuple(r[:3]) for r in db.execute("SELECT sensor, day, ts FROM r")]
    expect("widecol reads every row, in token order then ts DESC", seen == want_order,
           "%d rows read, %d held; first out of place at %s" % (
               len(seen), len(want_order),
               next((i for i, (a, b) in enumerate(zip(seen, want_order)) if a != b), None)))
    for sensor, day in {k[:2] for k in rows if k[0].startswith("d")}:
        part = [k[2] for k in sorted(rows, key=lambda k: -k[2]) if k[:2] == (sensor, day)]
        mine = [r[0] for r in db.execute("SELECT ts FROM r WHERE sensor = ? AND day = ?",
                                         (sensor, day))]
        expect("partition %s/%d as a slice" % (sensor, day), mine == part, "%s against %s"
               % (mine, part))
        lo, hi = sorted(part)[len(part) // 3], sorted(part)[2 * len(part) // 3]
        mine = [r[0] for r in db.execute(
            "SELECT ts FROM r WHERE sensor = ? AND day = ? AND ts BETWEEN ? AND ?",
            (sensor, day, lo, hi))]
        expect("partition %s/%d ts from %d to %d" % (sensor, day, lo, hi),
               mine == [t for t in part if lo <= t <= hi], mine)
    k = next(k for k in rows if k[0].startswith("d"))
    got = db.execute("SELECT v, note FROM r WHERE sensor = ? AND day = ? AND ts = ?", k).fetchall()
    expect("a row the driver wrote, by its key", got == [rows[k]], got)

    # An INDEX is a CQL table kept in step: the driver reads its entries.
    db.execute("CREATE VIRTUAL TABLE lk USING widecol(user_id TEXT, liked_at INTEGER, "
               "item_id INTEGER, title TEXT, PRIMARY KEY ((user_id), liked_at DESC, item_id), "
               "INDEX by_item(TOKEN(item_id), item_id, liked_at DESC) INCLUDE (title), "
               "STORAGE CASSANDRA '%s.lk')" % KEYSPACE)
    likes = {}
    for i in range(500):
        k = ("u%d" % rng.randint(0, 40), rng.randint(0, 10 ** 6), rng.randint(0, 20))
        likes[k] = rng.choice([None, "t", "u"])
    db.executemany("INSERT OR REPLACE INTO lk VALUES (?, ?, ?, ?)",
                   [k + (v,) for k, v in likes.items()])
    db.execute("UPDATE lk SET title = 'hot' WHERE item_id = 7")
    db.execute("UPDATE lk SET item_id = item_id + 100 WHERE item_id = 3")
    db.execute("DELETE FROM lk WHERE item_id = 5")
    want = set()
    for (u, t, item), title in likes.items():
        if item == 5:
            continue
        want.add((item + 100 if item == 3 else item, t, u, "hot" if item == 7 else title))
    got = {(r.item_id, r.liked_at, r.user_id, r.title)
           for r in session.execute("SELECT item_id, liked_at, user_id, title FROM lk_idx_by_item")}
    expect("the driver reads the INDEX's CQL table in step with its rows", got == want,
           "%d entries, %d rows; e.g. %s" % (len(got), len(want), next(iter(got ^ want), None)))
    db.execute("DROP TABLE lk")

    # A TTL: the table's default_time_to_live, each cell's TTL from its
    # rowtime (now: the TTL, and the second widecol adds), rowtime kept.
    db.execute("CREATE VIRTUAL TABLE tt USING widecol(a TEXT, b INTEGER, v TEXT, "
               "PRIMARY KEY ((a), b), TTL 3600, STORAGE CASSANDRA '%s.tt')" % KEYSPACE)
    before = time.time()
    db.execute("INSERT INTO tt VALUES ('x', 1, 'v')")
    table_ttl = session.execute(
        "SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = %s "
        "AND table_name = 'tt'", (KEYSPACE,)).one()[0]
    cell = session.execute("SELECT TTL(v), rowtime FROM tt WHERE a = 'x' AND b = 1").one()
    expect("a TTL table as Cassandra holds it", table_ttl == 3600 and cell is not None
           and 3590 <= cell[0] <= 3601 and before - 1 <= cell[1] / 1e6 <= time.time() + 1,
           "default_time_to_live %s, TTL(v) and rowtime %s" % (table_ttl, cell))
    db.execute("DROP TABLE tt")

    check_external(db, session)

    db.execute("DROP TABLE r")
    left = list(session.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (KEYSPACE,)))
    expect("DROP TABLE drops the CQL table widecol made, not another",
           [t.table_name for t in left] == ["plain", "theirs"], left)
    db.close()
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra check: %d rows written by widecol read by the driver, and by the driver "
          "read by widecol (scan, slices, keys); the CQL table is widecol_ddl's"
          % len(rows))
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
