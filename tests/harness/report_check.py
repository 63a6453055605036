#!/usr/bin/env python3
"""widecol_report's figures against the functions they come from, on every
design the project has: each CREATE VIRTUAL TABLE of sql/*.sql (the file
run as the sqlite3 shell would, dot-commands left out; SLOW_EXAMPLES
below are not), the differential
test's fixed designs and random ones of its generator, loaded with rows.

For each, the page (parsed here, no browser) must say:
  - key anatomy: the parts of the first key in stored order put together
    are that key, and each element's SQL, evaluated on that row, gives its
    part's bytes (ENCODING BINARY has none, and says so);
  - the map: buckets whose rows add up to count(*), in key order, as even
    as whole rows allow, and writes that add up to the rows (versions under
    VERSIONS);
  - regions: the rows of the widecol_regions call the page quotes, run
    here, region by region;
  - findings: widecol_lint's rules, in its order.

    tests/harness/report_check.py --extension ./widecol
"""
import argparse
import glob
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import wctest  # noqa: E402
from reportpage import Page  # noqa: E402
import differential  # noqa: E402

ROOT = os.path.join(HERE, "..", "..")
# Examples left out: sql/advise.sql runs the advisor over 100,000 rows
# (half a minute) to make its tables; its designs are those of
# sql/orders.sql and sql/payments.sql, checked here.
SLOW_EXAMPLES = {"advise.sql"}


failures = []
checked = {"elements": 0, "binary": 0}


def expect(where, ok, detail):
    if not ok:
        failures.append("%s: %s" % (where, detail))


def report_of(db, table, *args):
    return db.execute("SELECT widecol_report(%s)" % ", ".join(["?"] * (1 + len(args))),
                      (table,) + args).fetchone()[0]


def check_table(db, where, table):
    """Checks the page of one table; returns its number of elements."""
    page = Page(report_of(db, table))
    parts = page.attrs("anatomy", table, "data-hex")
    n = db.execute('SELECT count(*) FROM "%s"' % table).fetchone()[0]
    if n == 0:
        expect(where, not parts, "an empty table shows no key")
        return 0
    key = db.execute('SELECT hex(rowkey) FROM "%s" LIMIT 1' % table).fetchone()[0]
    expect(where, "".join(p["data-hex"] for p in parts).upper() == key,
           "the parts %r are not the first key %s" % ([p["data-hex"] for p in parts], key))
    binary = re.search(r"ENCODING\s+BINARY", db.execute(
        "SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0], re.I)
    elements = 0
    for p in parts:
        if p["data-kind"] != "element":
            continue
        elements += 1
        if not p["data-sql"]:
            checked["binary"] += 1
            expect(where, binary or "PRIMARY KEY" in db.execute(
                "SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0],
                "element %s has no SQL in TEXT encoding" % p["data-elem"])
            continue
        checked["elements"] += 1
        got = db.execute('SELECT hex(CAST((%s) AS BLOB)) FROM "%s" WHERE rowkey = x\'%s\''
                         % (p["data-sql"], table, key)).fetchone()
        expect(where, got and got[0] == p["data-hex"].upper(),
               "element %s: %s gives %s, the key holds %s"
               % (p["data-elem"], p["data-sql"], got and got[0], p["data-hex"].upper()))
    buckets = page.attrs("heatmap", table, "data-bucket")
    sizes = [int(b["data-rows"]) for b in buckets]
    expect(where, sum(sizes) == n, "bucket rows add up to %d, count(*) is %d" % (sum(sizes), n))
    expect(where, max(sizes) - min(sizes) <= 1, "buckets of unequal rows: %r" % sizes)
    writes = sum(float(b["data-writes"]) for b in buckets)
    versions = n
    if re.search(r"VERSIONS\s+\d+", db.execute("SELECT sql FROM sqlite_schema WHERE name = ?",
                                               (table,)).fetchone()[0], re.I):
        versions = db.execute('SELECT count(*) FROM "%s" WHERE versions = 1000' % table).fetchone()[0]
    expect(where, writes == versions, "writes add up to %s, the table has %d" % (writes, versions))
    call = page.calls("regions", table)[0]
    m = re.match(r"SELECT \* FROM widecol_regions\('(.*)', (\d+)\)$", call.strip(), re.S)
    expect(where, m is not None, "the regions call is not quoted: %r" % call)
    if m:
        want = db.execute("SELECT region, rows, recent_writes FROM widecol_regions(?, ?)",
                          (m.group(1).replace("''", "'"), int(m.group(2)))).fetchall()
        got = [(int(a["data-region"]), int(a["data-rows"]), int(a["data-recent"]))
               for a in page.attrs("regions", table, "data-region")]
        expect(where, got == want, "regions %r, widecol_regions says %r" % (got, want))
    want = [r[0] for r in db.execute("SELECT rule FROM widecol_lint(?)", (table,))]
    got = [a["data-rule"] for a in page.attrs("findings", table, "data-rule")]
    expect(where, got == want, "findings %r, widecol_lint says %r" % (got, want))
    return elements


def widecol_tables(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL "
        "TABLE%USING widecol(%' ORDER BY name")]


def sql_examples(ext):
    """Each sql/*.sql example run, dot-commands left out."""
    out = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "sql", "*.sql"))):
        if os.path.basename(path) in SLOW_EXAMPLES:
            continue
        text = "\n".join(line for line in open(path, encoding="utf-8").read().splitlines()
                         if not line.startswith("."))
        db = wctest.connect(ext, isolation_level=None)
        try:
            db.executescript(text)
        except Exception as e:  # an example that needs the shell is skipped, said
            print("report check: %s: not run here (%s)" % (os.path.basename(path), e))
            continue
        for t in widecol_tables(db):
            check_table(db, "sql/%s: %s" % (os.path.basename(path), t), t)
            out += 1
    return out


def differential_designs(ext, n_random):
    rng = random.Random(0)
    specs = [differential.strip_key_collations(s) for s in differential.DESIGNS] + [
        differential.strip_key_collations(differential.random_design(random.Random(i), i))
        for i in range(n_random)]
    out = 0
    for spec in specs:
        d = differential.Design(spec, rng)
        db = wctest.connect(ext, isolation_level=None)
        w, _ = d.create_sql()
        try:
            db.execute(w)
        except Exception as e:
            failures.append("differential %s: %s" % (spec["name"], e))
            continue
        cols = ", ".join(d.cols)
        for _ in range(60):
            try:
                db.execute("INSERT OR IGNORE INTO w(%s) VALUES (%s)"
                           % (cols, ", ".join("?" * len(d.cols))), d.row())
            except Exception:
                pass  # a row this design refuses: the next one
        check_table(db, "differential %s" % spec["name"], "w")
        out += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--random", type=int, default=30, help="random designs")
    a = ap.parse_args()
    n_sql = sql_examples(a.extension)
    n_diff = differential_designs(a.extension, a.random)
    for f in failures[:20]:
        print("report check: " + f)
    print("report check: %d tables of sql/, %d differential designs (%d random); "
          "%d key elements' SQL evaluated on their rows (%d in ENCODING BINARY, "
          "which has none): %d failed"
          % (n_sql, n_diff, a.random, checked["elements"], checked["binary"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
