#!/usr/bin/env python3
"""widecol_ddl(t, 'cql') run by Cassandra (tests/stores/cassandra/run.sh runs
this, with WIDECOL_CASSANDRA set): for every widecol design in sql/*.sql
and every fixed design of the differential test (tests/lib/designs.py),
the CREATE TABLE widecol_ddl writes is executed by the server, and the
table it made is read back from system_schema: its partition key, its
clustering columns with their order, each column's type and the table's
default_time_to_live must be what the design says, as this script reads
the design (not as widecol_ddl does):

- the partition key is the columns of a leading TOKEN (the PRIMARY KEY
  form is one), else the first column field of the key;
- the clustering columns are the key's other column fields in key order,
  DESC where the field says so, then "random" for a RANDOM(n);
  SALT and BUCKET are left out;
- types by SQLite's affinity rules: INT... bigint, CHAR/CLOB/TEXT text,
  BLOB (or none) blob, REAL/FLOA/DOUB double, any other decimal;
- the TTL where it is from 1 to Cassandra's largest, 630,720,000 s.

    tests/stores/cassandra/ddl.py --extension ./widecol
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

KEYSPACE = "ddl%d" % os.getpid()
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


def expected(design):
    """(columns {name: type}, partition [names], clustering [(name, order)],
    ttl) that the design's text says."""
    cols, fields, primary, ttl, n_random = {}, None, None, 0, None
    for part in wctest.split_args(design):
        word = part.split()[0].upper() if part.split() else ""
        m = re.match(r"PRIMARY\s+KEY\s*\((.*)\)\s*$", part, re.S | re.I)
        if m:
            primary = m.group(1)
        elif word.startswith("ROWKEY"):
            fields = wctest.split_args(part[part.index("(") + 1:part.rindex(")")])
        elif word == "TTL":
            ttl = int(part.split()[1])
        elif word in ("INDEX", "FAMILY", "VERSIONS", "ENCODING", "DELIMITER", "STORAGE",
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
                continue
            elif head == "RANDOM":
                n_random = int(f[f.index("(") + 1:f.rindex(")")])
            elif w[0] in cols and w[0] not in partition and w[0] not in [c for c, _ in key_cols]:
                key_cols.append((w[0], "desc" if "DESC" in [x.upper() for x in w[1:]] else "asc"))
        if not partition:
            partition = [key_cols[0][0]]
            key_cols = key_cols[1:]
        clustering = key_cols
    if n_random is not None:
        name = "random"
        while name in cols:
            name += "_"
        cols[name] = "bigint"
        clustering.append((name, "asc"))
    return cols, partition, clustering, ttl if 0 < ttl <= MAX_TTL else 0


def read_back(session, table):
    """What system_schema says of KEYSPACE.table, in expected()'s form."""
    rows = session.execute(
        "SELECT column_name, kind, position, clustering_order, type FROM system_schema.columns "
        "WHERE keyspace_name = %s AND table_name = %s", (KEYSPACE, table))
    cols, part, clus = {}, {}, {}
    for r in rows:
        cols[r.column_name] = r.type
        if r.kind == "partition_key":
            part[r.position] = r.column_name
        elif r.kind == "clustering":
            clus[r.position] = (r.column_name, r.clustering_order)
    ttl = session.execute(
        "SELECT default_time_to_live FROM system_schema.tables "
        "WHERE keyspace_name = %s AND table_name = %s", (KEYSPACE, table)).one()
    return (cols, [part[i] for i in sorted(part)], [clus[i] for i in sorted(clus)],
            ttl.default_time_to_live if ttl else None)


def statements(ddl):
    """The CQL statements of widecol_ddl's text, its comments left out."""
    text = "\n".join(l for l in ddl.splitlines() if not l.lstrip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def main():
    _, db = wc_args(__doc__)
    cluster, session = rules_session(agree=False)
    make_keyspace(session, KEYSPACE, rf=1)
    session.set_keyspace(KEYSPACE)
    n_made = n_form = refused = 0
    for n, (where, design) in enumerate(all_designs()):
        name = "d%d" % n
        if re.search(r"\bSTORAGE\b", design, re.I):
            continue
        try:
            db.execute("CREATE VIRTUAL TABLE %s USING widecol(%s)" % (name, design))
        except Exception:
            refused += 1    # the differential's designs that widecol refuses
            continue
        ddl = db.execute("SELECT widecol_ddl(?, 'cql')", (name,)).fetchone()[0]
        stmts = statements(ddl)
        expect(where + ": one CREATE TABLE", len(stmts) == 1, ddl)
        try:
            for s in stmts:
                session.execute(s)
        except Exception as e:
            expect(where + ": Cassandra runs widecol_ddl's CQL", False, "%s: %s" % (e, ddl))
            continue
        want = expected(design)
        got = read_back(session, name)
        for i, what in enumerate(("columns and types", "partition key", "clustering columns",
                                  "default_time_to_live")):
            expect("%s: %s" % (where, what), got[i] == want[i],
                   "Cassandra has %s, the design says %s" % (got[i], want[i]))
        n_made += 1
        n_form += bool(re.search(r"PRIMARY\s+KEY|TOKEN\s*\(", design, re.I))
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra ddl: %d designs (%d in Cassandra's form; %d more refused by widecol) "
          "made by widecol_ddl's CQL and read back from system_schema equal to the designs"
          % (n_made, n_form, refused))
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
