#!/usr/bin/env python3
"""widecol_ddl(t, 'cql') run by Cassandra (tests/stores/cassandra/run.sh runs
this, with WIDECOL_CASSANDRA set): for every widecol design in sql/*.sql
and every fixed design of the differential test (tests/lib/designs.py),
the CREATE TABLE statements widecol_ddl writes are executed by the server,
and the tables they made are read back from system_schema.

A design STORAGE CASSANDRA takes: widecol_ddl writes a table for the rows
and one per INDEX, and they must equal, column for column (types,
partition key, clustering columns and their order, default_time_to_live),
the tables widecol's own CREATE ... STORAGE CASSANDRA makes of the same
design in another keyspace; the row table must also be what the design
says, as this script reads the design (not as widecol_ddl does).

A design it refuses: widecol_ddl says so and writes the nearest CQL table,
which must be what the design says:

- the partition key is the columns of a leading TOKEN (the PRIMARY KEY
  form is one), else a column "bucket" for a leading SALT or BUCKET (the
  number the application fills) and the first column field of the key;
- the clustering columns are the key's other column fields in key order,
  DESC where the field says so, then "random" for a RANDOM(n);
- types by SQLite's affinity rules: INT... bigint, CHAR/CLOB/TEXT text,
  BLOB (or none) blob, REAL/FLOA/DOUB double, any other decimal;
- the TTL where it is from 1 to Cassandra's largest, 630,720,000 s;
- on a table STORAGE CASSANDRA takes, widecol's own columns besides:
  "_stamp" blob, and "rowtime" bigint under VERSIONS or TTL.

    tests/stores/cassandra/ddl.py --extension ./widecol --cassandra ./widecol_cassandra
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402
from cassandra_session import make_keyspace, rules_session, wc_args  # noqa: E402
from designs import all_designs  # noqa: E402

# Designs in Cassandra's form with INDEXes (a table of its own each) and a
# TTL, beside sql/'s and the differential's.
EXTRA = [
    ("ddl.py: likes, by item", "user_id TEXT, liked_at INTEGER, item_id INTEGER, note TEXT, "
     "PRIMARY KEY ((user_id), liked_at DESC, item_id), "
     "INDEX by_item(TOKEN(item_id), item_id, liked_at DESC) INCLUDE (note)"),
    ("ddl.py: readings, TTL", "sensor TEXT, day INTEGER, ts INTEGER, v REAL, "
     "PRIMARY KEY ((sensor, day), ts DESC), INDEX by_day(TOKEN(day), day, ts), "
     "INDEX by_v(TOKEN(v), v), TTL 86400"),
]
KEYSPACE = "ddl%d" % os.getpid()
STORE_KEYSPACE = "ddlstore%d" % os.getpid()
MAX_TTL = 630720000


CHECKS = Checks("cassandra ddl", quiet=True)
expect = CHECKS.expect


def cql_type(declared):
    """SQLite's affinity of a declared type, as the CQL type it stands for."""
    t = declared.upper()
    if "INT" in t:
        return "bigint"
    if any(s in t for s in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if "BLOB" in t or t.strip() == "":
        return "blob"
    if any(s in t for s in ("REAL", "FLOA", "DOUB")):
        return "double"
    return "decimal"


def expected(design, taken):
    """(columns {name: type}, partition [names], clustering [(name, order)],
    ttl) that the design's text says; taken: STORAGE CASSANDRA takes it."""
    cols, fields, primary, ttl, n_random = {}, None, None, 0, None
    n_bucket, versioned = 0, False
    for part in wctest.split_args(design):
        word = part.split()[0].upper() if part.split() else ""
        m = re.match(r"PRIMARY\s+KEY\s*\((.*)\)\s*$", part, re.S | re.I)
        if m:
            primary = m.group(1)
        elif word.startswith("ROWKEY"):
            fields = wctest.split_args(part[part.index("(") + 1:part.rindex(")")])
        elif word == "TTL":
            ttl = int(part.split()[1])
            versioned = True
        elif word == "VERSIONS":
            versioned = True
        elif word in ("INDEX", "FAMILY", "ENCODING", "DELIMITER", "STORAGE",
                      "SPLITS", "COLLATE"):
            continue
        elif re.match(r"^[A-Za-z_]\w*(\s|$)", part) and word not in cols:
            name = part.split()[0]
            cols[name] = cql_type(" ".join(part.split()[1:]))
    partition, clustering = [], []
    if primary is not None:
        pk = wctest.split_args(primary)
        partition = [c.strip() for c in wctest.split_args(pk[0].strip()[1:-1])] \
            if pk[0].strip().startswith("(") else [pk[0].strip()]
        for f in pk[1:]:
            w = f.split()
            clustering.append((w[0], "desc" if len(w) > 1 and w[1].upper() == "DESC" else "asc"))
    else:
        key_cols = []
        for f in fields:
            w = f.split()
            head = w[0].split("(")[0].upper()
            if head == "TOKEN" and not key_cols and not partition:
                inner = f[f.index("(") + 1:f.rindex(")")]
                partition = [c.strip() for c in wctest.split_args(inner)]
            elif head in ("SALT", "BUCKET"):
                if not key_cols:
                    n_bucket += 1
                continue
            elif head == "RANDOM":
                n_random = int(f[f.index("(") + 1:f.rindex(")")])
            elif w[0] in cols and w[0] not in partition and w[0] not in [c for c, _ in key_cols]:
                key_cols.append((w[0], "desc" if "DESC" in [x.upper() for x in w[1:]] else "asc"))
        if not partition:
            buckets = []
            for k in range(n_bucket):
                name = "bucket" if k == 0 else "bucket%d" % (k + 1)
                while name in cols:
                    name += "_"
                cols[name] = "bigint"
                buckets.append(name)
            partition = buckets + [key_cols[0][0]]
            key_cols = key_cols[1:]
        clustering = key_cols
    if n_random is not None:
        name = "random"
        while name in cols:
            name += "_"
        cols[name] = "bigint"
        clustering.append((name, "asc"))
    if taken:
        cols["_stamp"] = "blob"
        if versioned:
            cols["rowtime"] = "bigint"
    return cols, partition, clustering, ttl if 0 < ttl <= MAX_TTL else 0


def read_back(session, table, keyspace=KEYSPACE):
    """What system_schema says of keyspace.table, in expected()'s form."""
    rows = session.execute(
        "SELECT column_name, kind, position, clustering_order, type FROM system_schema.columns "
        "WHERE keyspace_name = %s AND table_name = %s", (keyspace, table))
    cols, part, clus = {}, {}, {}
    for r in rows:
        cols[r.column_name] = r.type
        if r.kind == "partition_key":
            part[r.position] = r.column_name
        elif r.kind == "clustering":
            clus[r.position] = (r.column_name, r.clustering_order)
    ttl = session.execute(
        "SELECT default_time_to_live FROM system_schema.tables "
        "WHERE keyspace_name = %s AND table_name = %s", (keyspace, table)).one()
    return (cols, [part[i] for i in sorted(part)], [clus[i] for i in sorted(clus)],
            ttl.default_time_to_live if ttl else None)


def statements(ddl):
    """The CQL statements of widecol_ddl's text, its comments left out."""
    text = "\n".join(l for l in ddl.splitlines() if not l.lstrip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def main():
    args, db = wc_args(__doc__)
    db.load_extension(args.cassandra)
    cluster, session = rules_session(agree=False)
    make_keyspace(session, KEYSPACE, rf=1)
    session.set_keyspace(KEYSPACE)
    n_made = n_taken = n_tables = refused = 0
    for n, (where, design) in enumerate(all_designs() + EXTRA):
        name = "d%d" % n
        if re.search(r"\bSTORAGE\b", design, re.I):
            continue
        try:
            db.execute("CREATE VIRTUAL TABLE %s USING widecol(%s)" % (name, design))
        except Exception:
            refused += 1    # the differential's designs that widecol refuses
            continue
        ddl = db.execute("SELECT widecol_ddl(?, 'cql')", (name,)).fetchone()[0]
        taken = "STORAGE CASSANDRA refuses" not in ddl
        indexes = re.findall(r"\bINDEX\s+(\w+)\s*\(", design, re.I) if taken else []
        stmts = statements(ddl)
        made = [name] + ["%s_idx_%s" % (name, i) for i in indexes]
        expect(where + ": a CREATE TABLE for the rows%s" % (" and each INDEX" if taken else ""),
               [re.match(r'CREATE TABLE IF NOT EXISTS "(\w+)"', t).group(1) for t in stmts] == made,
               ddl)
        try:
            for t in stmts:
                session.execute(t)
        except Exception as e:
            expect(where + ": Cassandra runs widecol_ddl's CQL", False, "%s: %s" % (e, ddl))
            continue
        want = expected(design, taken)
        got = read_back(session, name)
        for i, what in enumerate(("columns and types", "partition key", "clustering columns",
                                  "default_time_to_live")):
            expect("%s: %s" % (where, what), got[i] == want[i],
                   "Cassandra has %s, the design says %s" % (got[i], want[i]))
        if taken:
            # The store's own CREATE of the same design, table for table.
            db.execute("CREATE VIRTUAL TABLE s%s USING widecol(%s, STORAGE CASSANDRA '%s.%s')"
                       % (name, design, STORE_KEYSPACE, name))
            for table in made:
                mine = read_back(session, table)
                store = read_back(session, table, STORE_KEYSPACE)
                expect("%s: %s as STORAGE CASSANDRA makes it" % (where, table),
                       bool(mine[0]) and mine == store,
                       "widecol_ddl's: %s; the store's: %s" % (mine, store))
                n_tables += 1
            db.execute("DROP TABLE s%s" % name)
            n_taken += 1
        n_made += 1
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    session.execute('DROP KEYSPACE IF EXISTS "%s"' % STORE_KEYSPACE)
    cluster.shutdown()
    print("cassandra ddl: %d designs (%d more refused by widecol) made by widecol_ddl's CQL "
          "and read back from system_schema equal to the designs; %d that STORAGE CASSANDRA "
          "takes, whose %d tables equal the store's own, column for column"
          % (n_made, refused, n_taken, n_tables))
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
