"""designs: every widecol design the project ships or tests, for the tests
that run a design's DDL on a real engine (tests/stores/hbase/ddl.py,
cassandra/ddl.py): each CREATE VIRTUAL TABLE ... USING widecol of
sql/*.sql, and the fixed designs of the differential test
(tests/harness/differential.py's DESIGNS and VERSIONED).  Each is
(where, the widecol(...) arguments)."""
import glob
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import differential  # noqa: E402


def sql_designs():
    """(where, widecol arguments) of each CREATE VIRTUAL TABLE in sql/*.sql."""
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "..", "..", "sql", "*.sql"))):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"CREATE VIRTUAL TABLE\s+(\w+)\s+USING\s+widecol\s*\((.*?)\);",
                             text, re.S | re.I):
            out.append(("sql/%s: %s" % (os.path.basename(path), m.group(1)), m.group(2)))
    return out


def differential_designs():
    """(where, widecol arguments) of the differential's fixed designs."""
    out = []
    rng = random.Random(0)
    for spec in differential.DESIGNS:
        w = differential.Design(spec, rng).create_sql()[0]
        out.append(("differential: " + spec["name"], w[w.index("widecol(") + 8:-1]))
    for spec in differential.VERSIONED:
        d = differential.Design(spec, rng)
        opts = ", VERSIONS %d" % spec["versions"] + (", TTL %d" % spec["ttl"] if spec["ttl"] else "")
        out.append(("differential: " + spec["name"], "%s, ROWKEY(%s)%s%s%s" % (
            d.col_defs(), spec["rowkey"], spec.get("options", ""), spec.get("extra", ""), opts)))
    return out


def all_designs():
    return sql_designs() + differential_designs()
