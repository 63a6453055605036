#!/usr/bin/env python3
"""widecol_ddl(table, 'cql') round trips through widecol's own grammar.

For each design: make the widecol table, write rows, take the CQL that
widecol_ddl() emits, and read it back the way a user would paste it: its
columns (CQL types mapped back to SQLite's), its PRIMARY KEY and its WITH
CLUSTERING ORDER BY, as a CREATE VIRTUAL TABLE ... USING widecol(...,
PRIMARY KEY (...) WITH CLUSTERING ORDER BY (...)).  The new table must
emit the same CREATE TABLE again, and for a design already in Cassandra's
form (a leading TOKEN of the partition key, then its columns, then the
clustering columns), hold the same rows under the same row keys.  A RANDOM
design's CQL has one column more, RANDOM's number, filled from the keys.

Usage: cql_check.py [--extension ./widecol]
"""
import argparse
import random
import re
import sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

BACK = {"bigint": "INTEGER", "double": "REAL", "text": "TEXT", "blob": "BLOB",
        "decimal": "NUMERIC"}

DESIGNS = [
    # (columns, key, Cassandra's form)
    ("user_id TEXT, liked_at INTEGER, item_id INTEGER, note TEXT",
     "PRIMARY KEY ((user_id), liked_at DESC, item_id)", True),
    ("item_id INTEGER, liked_at INTEGER, user_id TEXT",
     "PRIMARY KEY (item_id, liked_at DESC, user_id)", True),
    ("sensor TEXT, day INTEGER, ts INTEGER, v REAL",
     "ROWKEY(TOKEN(sensor, day), sensor, day, ts DESC), ENCODING BINARY", True),
    ("sensor TEXT, day INTEGER, v REAL", "PRIMARY KEY ((sensor, day))", True),
    # A double partition key, with a text one.
    ("lat REAL, cell TEXT, ts INTEGER, v TEXT",
     "PRIMARY KEY ((lat, cell), ts DESC)", True),
    ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL",
     "ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9)", False),
    ("userid TEXT, orderid INTEGER, b BLOB",
     "ROWKEY(SALT(4, userid), userid, orderid PAD 6 REVERSE)", False),
    # RANDOM's number becomes a column of its own, "random": filled here
    # from the row key's last two digits, as the application would fill it.
    ("userid TEXT, orderid INTEGER", "ROWKEY(userid, orderid PAD 6, RANDOM(100))",
     False),
]


def value(r, sqltype):
    if sqltype == "INTEGER":
        return r.choice([0, 7, 99999, r.randint(0, 100)])
    if sqltype == "REAL":
        return r.choice([0.5, -2.25, r.random()])
    if sqltype == "BLOB":
        return bytes(r.randrange(256) for _ in range(r.randint(1, 3)))
    return r.choice(["u1", "u2", "\u00e9t\u00e9", "x y"])


def parse_cql(cql):
    """The columns, PRIMARY KEY and CLUSTERING ORDER BY of emitted CQL."""
    cql = "\n".join(l for l in cql.splitlines() if not l.startswith("--"))
    cql = cql[:cql.index(";")]   # the row table (an INDEX's table follows)
    # "_stamp" is widecol's own column (each write's stamps), not the design's.
    cols = [c for c in re.findall(r'^  "((?:[^"]|"")+)" (\w+),$', cql, re.M) if c[0] != "_stamp"]
    pk = re.search(r"^  (PRIMARY KEY \(.*\))$", cql, re.M).group(1)
    order = re.search(r"WITH (CLUSTERING ORDER BY \([^)]*\))", cql)
    return cols, pk, order.group(1) if order else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    db = wctest.connect(args.extension)
    r = random.Random(17)
    failed = 0
    for n, (cols, key, cassandra) in enumerate(DESIGNS):
        db.execute("CREATE VIRTUAL TABLE t%d USING widecol(%s, %s)" % (n, cols, key))
        types = [c.split()[1] for c in cols.split(", ")]
        rows = {tuple(value(r, t) for t in types) for _ in range(40)}
        db.executemany("INSERT OR REPLACE INTO t%d VALUES (%s)" % (n, ", ".join("?" * len(types))),
                       sorted(rows, key=repr))
        cql = db.execute("SELECT widecol_ddl('t%d', 'cql')" % n).fetchone()[0]
        parsed, pk, order = parse_cql(cql)
        back = ", ".join('"%s" %s' % (name, BACK[t]) for name, t in parsed)
        key2 = pk + (" WITH " + order if order else "")
        db.execute("CREATE VIRTUAL TABLE u%d USING widecol(%s, %s)" % (n, back, key2))
        extra = len(parsed) - len(types)
        db.execute("INSERT INTO u%d SELECT *%s FROM t%d" % (
            n, ", CAST(substr(rowkey, -2) AS INTEGER)" * extra, n))
        cql2 = db.execute("SELECT widecol_ddl('u%d', 'cql')" % n).fetchone()[0]
        # The nearest CQL table of a design STORAGE CASSANDRA refuses reads
        # back as one it takes, whose tables gain widecol's "_stamp".
        body = lambda c: c[c.index("CREATE TABLE"):].replace('"t%d"' % n, "T").replace(
            '"u%d"' % n, "T").replace('  "_stamp" blob,\n', "")
        same_ddl = body(cql) == body(cql2)
        same_keys = not cassandra or db.execute(
            "SELECT count(*) FROM (SELECT rowkey FROM t%d EXCEPT SELECT rowkey FROM u%d) "
            "UNION ALL SELECT count(*) FROM (SELECT rowkey FROM u%d EXCEPT SELECT rowkey "
            "FROM t%d)" % (n, n, n, n)).fetchall() == [(0,), (0,)]
        ok = same_ddl and same_keys
        failed += not ok
        print("cql check: %s -> %s%s: %s" % (
            key, key2, " (the same row keys)" if cassandra else "",
            "ok" if ok else "FAILED\n" + cql + "\n" + cql2))
    print("cql check: %d designs, %d failed" % (len(DESIGNS), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
