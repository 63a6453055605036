#!/usr/bin/env python3
"""widecol_ddl(t, 'hbase') run by HBase (tests/stores/hbase/run.sh runs this,
with WIDECOL_HBASE set): for every widecol design in sql/*.sql and every
fixed design of the differential test (tests/harness/differential.py's
DESIGNS and VERSIONED), the HBase shell commands widecol_ddl writes are
run as Ruby in JRuby against the HBase of the tests, and the tables they
make are read back with HBase's Java client: each family with its
VERSIONS, TTL and NEW_VERSION_BEHAVIOR, and the region boundaries, must
equal what the design says (families `_` and one per FAMILY, the design's
VERSIONS and TTL) and what widecol's own CREATE ... STORAGE HBASE makes of
the same design (the same families, the same split points).

HBase's shell (the hbase-shell artifact) is not served by this machine's
Maven mirror; tests/servers/hbase/create.rb gives the shell's create and
create_namespace for the keys widecol_ddl writes, and refuses any other
(docs/hbase.md#the-ddl-round-trip).

    tests/stores/hbase/ddl.py --extension ./widecol --hbase ./widecol_hbase
"""
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from checks import Checks  # noqa: E402
from designs import all_designs  # noqa: E402
from hbase_session import Session, connect_from_args  # noqa: E402

SHELL_NS = "ddlshell%d" % os.getpid()   # create_namespace fails on one that exists
STORE_NS = "ddlstore%d" % os.getpid()
FOREVER = 2147483647   # HBase's TTL of a family that keeps cells forever


CHECKS = Checks("hbase ddl", quiet=True)
expect = CHECKS.expect


def expected_families(args, index):
    """{family: (VERSIONS, TTL)} the design says: `_` and one per FAMILY on
    the row table, with the design's VERSIONS; `_` alone on an INDEX's,
    with one version (its entries are the current ones); the design's TTL
    on both."""
    versions = re.search(r"\bVERSIONS\s+(\d+)", args, re.I)
    ttl = re.search(r"\bTTL\s+(\d+)", args, re.I)
    v = int(versions.group(1)) if versions and not index else 1
    t = int(ttl.group(1)) if ttl and int(ttl.group(1)) > 0 else FOREVER
    names = ["_"] + ([] if index else re.findall(r"\bFAMILY\s+(\w+)\s*\(", args, re.I))
    return {n: (v, t) for n in names}


def describe(hbase, table):
    got = {}
    for line in hbase.ask("describe " + table, check=False):
        f = line.split(" ")
        if line.startswith("! "):
            return line
        got[f[0]] = (int(f[2]), int(f[4]), f[6])
    return got


def main():
    db = connect_from_args()
    designs = all_designs()
    hbase = Session()
    script = ["create_namespace '%s'" % SHELL_NS]
    tables = []   # (where, design args, local name, [HBase table names])
    refused = 0
    for n, (where, design) in enumerate(designs):
        name = "d%d" % n
        if re.search(r"\bSTORAGE\b", design, re.I):
            continue
        try:
            db.execute("CREATE VIRTUAL TABLE %s USING widecol(%s)" % (name, design))
        except Exception:
            # The differential's designs that widecol refuses (a key under
            # NOCASE, say) have no table and so no DDL.
            refused += 1
            continue
        ddl = db.execute("SELECT widecol_ddl(?, 'hbase')", (name,)).fetchone()[0]
        made = re.findall(r"^create '(%s(?:_idx_\w+)?)'" % name, ddl, re.M)
        expect(where + ": widecol_ddl writes one create a table",
               len(made) == len(ddl.strip().splitlines()) and made and made[0] == name, ddl)
        script.append(re.sub(r"^create '", "create '%s:" % SHELL_NS, ddl.strip(), flags=re.M))
        tables.append((where, design, name, made))
        db.execute("CREATE VIRTUAL TABLE s_%s USING widecol(%s, STORAGE HBASE '%s:%s')"
                   % (name, design, STORE_NS, name))

    with tempfile.NamedTemporaryFile("w", suffix=".rb", delete=False) as f:
        f.write("\n".join(script) + "\n")
    ran = hbase.ask("shell " + f.name, check=False)
    os.unlink(f.name)
    expect("HBase ran widecol_ddl's commands", not any(l.startswith("! ") for l in ran), ran)

    n_tables = n_regions = 0
    for where, design, name, made in tables:
        for table in made:
            index = table != name
            shell_fams = describe(hbase, "%s:%s" % (SHELL_NS, table))
            store_fams = describe(hbase, "%s:%s" % (STORE_NS, table))
            want = {f: (v, t, "true") for f, (v, t) in expected_families(design, index).items()}
            expect("%s: %s: families as the design says" % (where, table), shell_fams == want,
                   "HBase has %s, the design says %s" % (shell_fams, want))
            expect("%s: %s: families as widecol's CREATE made them" % (where, table),
                   shell_fams == store_fams, "%s against %s" % (shell_fams, store_fams))
            shell_regions = hbase.ask("regions %s:%s" % (SHELL_NS, table))
            store_regions = hbase.ask("regions %s:%s" % (STORE_NS, table))
            expect("%s: %s: regions as widecol's CREATE made them" % (where, table),
                   shell_regions == store_regions, "%s against %s" % (shell_regions, store_regions))
            n_tables += 1
            n_regions += len(shell_regions)
    # Both namespaces at once (a table at a time took a minute more).
    db.close()
    hbase.ask("drop-namespace " + SHELL_NS)
    hbase.ask("drop-namespace " + STORE_NS)
    hbase.close()
    print("hbase ddl: %d designs (%d from sql/, %d from the differential; %d more refused by "
          "widecol), %d HBase tables, %d regions made by widecol_ddl's commands and read back "
          "equal to the designs"
          % (len(tables), len([t for t in tables if t[0].startswith("sql/")]),
             len([t for t in tables if t[0].startswith("differential")]), refused, n_tables,
             n_regions))
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
