#!/usr/bin/env python3
"""widecol_lint's allow-filtering rule against Cassandra's own query rules
(tests/stores/cassandra/run.sh runs this, with WIDECOL_CASSANDRA set).

Each design below is a widecol table in Cassandra's form and the CQL table
it means, made on the server.  For each generated SELECT (equalities, IN,
ranges on each side, slices after gaps, non-key columns, ORDER BY, LIMIT)
the server is asked first without ALLOW FILTERING, and widecol plans the
same statement on a fresh connection and says, through widecol_lint,
whether Cassandra would refuse it.  The verdicts must agree on every
statement: the lint finds an allow-filtering problem exactly when the
server refuses the statement.  A design with an INDEX is a second CQL
table keyed by the index (eBay's User_By_Item beside Item_By_User): the
server accepts the statement when either table takes it, as an
application would send it to the one keyed for it.

Where the server refuses, it is asked again WITH ALLOW FILTERING; the
script reports how many refusals that clause lifts and how many it does
not (a refusal of another rule), and the lint's quoted message must be
the server's.

    tests/stores/cassandra/rules.py --extension ./widecol [--statements 2400]
"""
import argparse
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import wctest  # noqa: E402
from cassandra_session import make_keyspace, rules_session  # noqa: E402

KEYSPACE = "rules%d" % os.getpid()

# name: (columns, the widecol key and options, the CQL tables' primary keys)
DESIGNS = {
    "likes": ([("user_id", "TEXT"), ("liked_at", "INTEGER"), ("item_id", "INTEGER"),
               ("title", "TEXT")],
              "PRIMARY KEY ((user_id), liked_at DESC, item_id)",
              ["PRIMARY KEY ((user_id), liked_at, item_id)) "
               "WITH CLUSTERING ORDER BY (liked_at DESC, item_id ASC"]),
    "metrics": ([("hostname", "TEXT"), ("event", "TEXT"), ("ts", "INTEGER"), ("v", "REAL")],
                "PRIMARY KEY ((hostname, event), ts DESC)",
                ["PRIMARY KEY ((hostname, event), ts)) WITH CLUSTERING ORDER BY (ts DESC"]),
    "timeline": ([("bucket", "INTEGER"), ("ts", "INTEGER"), ("host", "TEXT"),
                  ("event", "TEXT"), ("v", "REAL"), ("note", "TEXT")],
                 "PRIMARY KEY ((bucket), ts, host, event)",
                 ["PRIMARY KEY ((bucket), ts, host, event)"]),
    "readings": ([("sensor", "TEXT"), ("day", "INTEGER"), ("ts", "INTEGER"), ("v", "REAL")],
                 "ROWKEY(TOKEN(sensor, day), sensor, day, ts PAD 3)",
                 ["PRIMARY KEY ((sensor, day), ts)"]),
    "liked": ([("user_id", "TEXT"), ("liked_at", "INTEGER"), ("item_id", "INTEGER"),
               ("title", "TEXT")],
              "PRIMARY KEY ((user_id), liked_at DESC, item_id), "
              "INDEX by_item(TOKEN(item_id), item_id, liked_at DESC, user_id)",
              ["PRIMARY KEY ((user_id), liked_at, item_id)) "
               "WITH CLUSTERING ORDER BY (liked_at DESC, item_id ASC",
               "PRIMARY KEY ((item_id), liked_at, user_id)) "
               "WITH CLUSTERING ORDER BY (liked_at DESC, user_id ASC"]),
}

CQL_TYPE = {"TEXT": "text", "INTEGER": "bigint", "REAL": "double"}


def literal(sql_type, rng):
    if sql_type == "TEXT":
        return "'%s'" % rng.choice(["a", "b", "u42", "web3"])
    if sql_type == "INTEGER":
        return str(rng.randint(0, 99))
    return "%d.5" % rng.randint(0, 9)


def restriction(col, sql_type, rng):
    """One column's restriction: =, IN, a bound, or both bounds."""
    kind = rng.choice(["=", "=", "IN", ">", ">=", "<", "<=", "both"])
    if kind == "IN":
        return "%s IN (%s)" % (col, ", ".join(literal(sql_type, rng)
                                              for _ in range(rng.randint(1, 3))))
    if kind == "both":
        return "%s > %s AND %s <= %s" % (col, literal(sql_type, rng), col,
                                          literal(sql_type, rng))
    return "%s %s %s" % (col, kind, literal(sql_type, rng))


def key_columns(cql_key):
    """(partition columns, clustering columns) of a CQL PRIMARY KEY."""
    m = re.match(r"PRIMARY KEY \(\(([^)]*)\),?\s*([^)]*)\)", cql_key)
    return ([c.strip() for c in m.group(1).split(",")],
            [c.strip() for c in m.group(2).split(",") if c.strip()])


def statements(name, cols, rng, count):
    """count distinct SELECTs over design name: half restrict columns at
    random, half walk the key in order (the partition fixed, a prefix of
    the clustering columns fixed, perhaps a range after it), as Cassandra
    takes them, and then perhaps break one rule."""
    out = set()
    types = dict(cols)
    while len(out) < count:
        # A design with an INDEX: walk either table's key.
        partition, clustering = key_columns(rng.choice(DESIGNS[name][2]))
        if rng.random() < 0.5:
            p_keep = rng.choice([0.2, 0.5, 0.8])
            chosen = {c: restriction(c, t, rng) for c, t in cols if rng.random() < p_keep}
        else:
            chosen = {c: "%s = %s" % (c, literal(types[c], rng)) for c in partition}
            n = rng.randint(0, len(clustering))
            for c in clustering[:n]:
                chosen[c] = "%s %s" % (c, rng.choice(["= %s" % literal(types[c], rng),
                                                       "IN (%s, %s)" % (literal(types[c], rng),
                                                                        literal(types[c], rng))]))
            if n < len(clustering) and rng.random() < 0.5:
                c = clustering[n]
                chosen[c] = "%s %s %s" % (c, rng.choice([">", ">=", "<", "<="]),
                                          literal(types[c], rng))
            if rng.random() < 0.5:
                c, t = rng.choice(cols)
                chosen[c] = restriction(c, t, rng)
            if rng.random() < 0.2 and chosen:
                del chosen[rng.choice(sorted(chosen))]
        where = [chosen[c] for c, _ in cols if c in chosen]
        sql = "SELECT * FROM %s" % name
        if where:
            sql += " WHERE " + " AND ".join(where)
        if clustering and rng.random() < 0.15:
            sql += " ORDER BY %s %s" % (clustering[0], rng.choice(["ASC", "DESC"]))
        if rng.random() < 0.2:
            sql += " LIMIT %d" % rng.randint(1, 50)
        out.add(sql)
    return sorted(out)


def server_verdict(session, tables, sql):
    """(accepted, error text, lifted by ALLOW FILTERING) over the CQL tables
    of a design: accepted when any of them takes the statement."""
    from cassandra.query import SimpleStatement
    errors = []
    for table in tables:
        cql = re.sub(r"^SELECT \* FROM \w+", "SELECT * FROM %s" % table, sql)
        try:
            # Unpaged: CQL refuses to page ORDER BY over an IN of partitions,
            # a rule of paging, not of filtering.
            session.execute(SimpleStatement(cql, fetch_size=None))
            return True, None, None
        except Exception as e:
            errors.append(str(e))
    lifted = False
    for table in tables:
        cql = re.sub(r"^SELECT \* FROM \w+", "SELECT * FROM %s" % table, sql)
        try:
            session.execute(SimpleStatement(cql + " ALLOW FILTERING", fetch_size=None))
            lifted = True
        except Exception:
            pass
    return False, errors[0], lifted


def lint_verdict(ext, create, sql):
    """The allow-filtering findings of widecol_lint after planning sql on a
    fresh connection."""
    db = wctest.connect(ext, isolation_level=None)
    db.execute(create)
    db.execute(sql).fetchall()
    table = re.match(r"SELECT \* FROM (\w+)", sql).group(1)
    found = [r[0] for r in db.execute(
        "SELECT finding FROM widecol_lint(?) WHERE rule = 'allow-filtering'", (table,))]
    db.close()
    return found


def quoted(finding):
    """The Cassandra message a lint finding quotes."""
    m = re.search(r': "(.*)"; Cassandra answers', finding)
    return m.group(1) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--statements", type=int, default=2400)
    args = ap.parse_args()
    cluster, session = rules_session()
    make_keyspace(session, KEYSPACE, rf=1)
    session.set_keyspace(KEYSPACE)
    rng = random.Random(34)
    failed = total = refused = lifted = 0
    per_design = args.statements // len(DESIGNS) + 1
    for name, (cols, key, cql_keys) in DESIGNS.items():
        create = "CREATE VIRTUAL TABLE %s USING widecol(%s, %s)" % (
            name, ", ".join("%s %s" % c for c in cols), key)
        tables = []
        for i, cql_key in enumerate(cql_keys):
            table = name if i == 0 else "%s_%d" % (name, i)
            session.execute("CREATE TABLE %s (%s, %s)" % (
                table, ", ".join("%s %s" % (c, CQL_TYPE[t]) for c, t in cols), cql_key))
            tables.append(table)
        for sql in statements(name, cols, rng, per_design):
            ok, error, af = server_verdict(session, tables, sql)
            found = lint_verdict(args.extension, create, sql)
            total += 1
            refused += not ok
            lifted += bool(af)
            what = None
            if ok and found:
                what = "Cassandra takes it, widecol_lint says: %s" % found[0]
            elif not ok and not found:
                what = "Cassandra refuses it (%s), widecol_lint finds nothing" % error
            elif found and quoted(found[0]) and quoted(found[0]) not in error:
                what = "widecol_lint quotes \"%s\", Cassandra says \"%s\"" % (
                    quoted(found[0]), error)
            if what:
                failed += 1
                if failed <= 40:
                    print("cassandra rules: %s: FAILED (%s)" % (sql, what))
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra rules: %d SELECTs over %d designs: Cassandra refused %d (ALLOW FILTERING "
          "lifts %d of them), took %d; widecol_lint's allow-filtering verdict disagrees on %d"
          % (total, len(DESIGNS), refused, lifted, total - refused, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
