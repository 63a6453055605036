#!/usr/bin/env python3
"""Every fix widecol_lint() gives is valid DDL that holds the same rows.

For designs built to set off each rule, with column and index names that
SQL or widecol's own arguments would misread unquoted ("order id",
"select", a name with a quote, "PAD", "desc"), the lint runs; every fix is
put in place of what it rewrites (the ROWKEY, an INDEX, or, for a fix that
changes the encoding, every key and the options), a table is created from
the result and the original rows are copied into it.  Both must succeed.

Usage: lint_fixes.py [--extension ./widecol]
"""
import argparse
import sqlite3
import sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402


def q(name):
    return '"' + name.replace('"', '""') + '"'


# Each design: columns, key arguments, other arguments, rows (a SELECT over
# i(x) = 0..n-1), the number of rows, and statements run before the lint
# (the queries some rules judge by).
DESIGNS = [
    dict(name="seq",
         cols=[("order id", "INTEGER"), ("select", "TEXT")],
         keys=['ROWKEY("order id")'],
         rows='SELECT x + 1, \'v\' || x FROM i', n=50,
         before=['SELECT count(*) FROM {t} WHERE "order id" > 10']),
    dict(name="times",
         cols=[("ts x", "TEXT"), ('a"b', "INTEGER")],
         keys=['ROWKEY("ts x", "a""b" PAD 5)'],
         rows="SELECT datetime(1700000000 + 60 * x, 'unixepoch'), x FROM i",
         n=40),
    dict(name="neg",
         cols=[("PAD", "INTEGER"), ("desc", "INTEGER"), ("v", "TEXT")],
         keys=['ROWKEY("PAD", "desc" PAD 4)', 'INDEX "by v"(v, "desc" PAD 4)'],
         rows="SELECT x - 20, x, 'v' || (x % 7) FROM i", n=40),
    dict(name="prefix",
         cols=[("host name", "TEXT"), ("ts", "INTEGER")],
         keys=['ROWKEY("host name", ts PAD 6)'],
         rows="SELECT 'host' || (x % 13), x FROM i", n=60),
    dict(name="blobs",
         cols=[("b key", "BLOB"), ("n", "INTEGER")],
         keys=['ROWKEY("b key", n PAD 3)'],
         rows="SELECT CASE x % 2 WHEN 0 THEN x'41' ELSE x'4130' END, x FROM i",
         n=20),
    dict(name="reversed",
         cols=[("k", "INTEGER"), ("ts", "INTEGER")],
         keys=["ROWKEY(k PAD 3, ts PAD 6 REVERSE)"],
         rows="SELECT x % 5, x * 7 FROM i", n=30,
         before=["SELECT count(*) FROM {t} WHERE k = 1 AND ts > 20"]),
    dict(name="salted",
         cols=[("user", "TEXT"), ("ts", "INTEGER")],
         keys=["ROWKEY(SALT(3, user), user, ts PAD 6)"],
         rows="SELECT 'u' || (x % 9), x FROM i", n=30,
         before=["SELECT count(*) FROM {t} WHERE user = 'u1' AND ts > 5",
                 "SELECT count(*) FROM {t} WHERE ts > 5"]),
    dict(name="long",
         cols=[("doc", "TEXT"), ("n", "INTEGER")],
         keys=["ROWKEY(doc, n PAD 3)"],
         rows="SELECT printf('%.*c', 2500, 'a') || x, x FROM i", n=5),
    dict(name="fields",
         cols=[("a", "INTEGER"), ("b", "INTEGER"), ("c", "INTEGER"),
               ("d", "INTEGER")],
         keys=["ROWKEY(a PAD 3, b PAD 3, c PAD 3, d PAD 3)"],
         rows="SELECT x, x % 3, x % 5, x % 7 FROM i", n=30),
    dict(name="unique",  # an SQL keyword as a table name
         cols=[("user id", "TEXT"), ("order no", "INTEGER")],
         keys=['ROWKEY(SALT(2, "user id"), "order no" PAD 4)'],
         rows="SELECT 'u' || x, x % 4 FROM i", n=30,
         before=["INSERT OR REPLACE INTO {t} VALUES ('u0', 0)"]),
    dict(name="versions",  # orders of a user as versions of one row
         cols=[("user id", "TEXT"), ("order", "INTEGER")],
         keys=['ROWKEY("user id")', "VERSIONS 5"],
         rows="SELECT 'u' || (x % 4), 1000 + x FROM i", n=30, replace=True),
    dict(name="expired",
         cols=[("host", "TEXT"), ("v", "REAL")],
         keys=["ROWKEY(host)", "TTL 3600"],
         rows="SELECT 'h' || x, x FROM i", n=10,
         before=["SELECT widecol_clock(widecol_clock() + 7 * 86400000000)"]),
    # RANDOM(n): not needed (no two rows share "user id"), nearly full,
    # and a trade-off with a column ("order") that could take its place.
    dict(name="random unneeded",
         cols=[("user id", "TEXT"), ("order", "INTEGER")],
         keys=['ROWKEY("user id", "order" PAD 3, RANDOM(100))'],
         rows="SELECT 'u' || x, x FROM i", n=20),
    dict(name="random full",
         cols=[("user id", "TEXT"), ("order", "INTEGER")],
         keys=['ROWKEY("user id", RANDOM(10))'],
         rows="SELECT 'u' || (x % 3), x FROM i", n=21),
    dict(name="random suffix",
         cols=[("user id", "TEXT"), ("order", "INTEGER")],
         keys=['ROWKEY("user id", RANDOM(100))'],
         rows="SELECT 'u' || (x % 3), x FROM i", n=21),
    dict(name="unserved",
         cols=[("id", "INTEGER"), ("amount total", "INTEGER")],
         keys=["ROWKEY(id PAD 4)"],
         rows="SELECT x, x * 3 FROM i", n=30,
         before=['SELECT count(*) FROM {t} WHERE "amount total" > 10']),
]
# A range over a column of each type, on both encodings: the fix's INDEX
# must be creatable (under TEXT encoding a REAL or NUMERIC field is not:
# the fix makes the keys BINARY).
VALUES = {"INTEGER": "x * 3", "REAL": "x * 0.5", "TEXT": "'t' || x",
          "BLOB": "CAST('b' || x AS BLOB)", "NUMERIC": "x * 1.5"}
for _type, _value in sorted(VALUES.items()):
    for _binary in (False, True):
        DESIGNS.append(dict(
            name="range %s%s" % (_type.lower(), " binary" if _binary else ""),
            cols=[("id", "INTEGER"), ("c v", _type)],
            keys=["ROWKEY(id)", "ENCODING BINARY"] if _binary else ["ROWKEY(id PAD 4)"],
            rows="SELECT x, %s FROM i" % _value, n=30,
            before=['SELECT count(*) FROM {t} WHERE "c v" > 3']))


def apply_fix(keys, key, fix):
    """The key arguments with the fix put in place."""
    parts = wctest.split_args(fix)
    if any(p.startswith("ENCODING") for p in parts):
        return parts
    if parts[0].startswith(("TTL ", "VERSIONS ")):
        word = parts[0].split()[0]
        return [parts[0] if k.startswith(word + " ") else k for k in keys]
    if key == "ROWKEY" and parts[0].startswith("INDEX"):
        return keys + parts
    return [parts[0] if k.startswith(key + "(") or k.startswith(key + " (") else k
            for k in keys]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    db = wctest.connect(args.extension, isolation_level=None)
    n_fix = failed = 0
    rules = set()
    for d in DESIGNS:
        cols = ", ".join("%s %s" % (q(c), t) for c, t in d["cols"])
        t = q(d["name"])
        db.execute("CREATE VIRTUAL TABLE %s USING widecol(%s, %s)" % (t, cols, ", ".join(d["keys"])))
        db.execute("INSERT%s INTO %s WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL "
                   "SELECT x + 1 FROM i WHERE x < %d) %s" % (
                       " OR REPLACE" if d.get("replace") else "", t, d["n"] - 1, d["rows"]))
        for sql in d.get("before", []):
            db.execute(sql.replace("{t}", t)).fetchall()
        findings = db.execute("SELECT rule, key, fix FROM widecol_lint(?)", (d["name"],)).fetchall()
        if not findings:
            print("lint_fixes: design %s set off no rule" % t)
            failed += 1
        for i, (rule, key, fix) in enumerate(findings):
            rules.add(rule)
            if fix is None:
                continue
            n_fix += 1
            fixed = q("%s_fix%d" % (d["name"], i))
            ddl = "CREATE VIRTUAL TABLE %s USING widecol(%s, %s)" % (
                fixed, cols, ", ".join(apply_fix(d["keys"], key, fix)))
            try:
                db.execute(ddl)
                db.execute("INSERT INTO %s SELECT * FROM %s" % (fixed, t))
            except sqlite3.Error as e:
                print("lint_fixes: the %s fix of %s is not usable: %s\n  %s" % (rule, t, e, ddl))
                failed += 1
    db.execute("SELECT widecol_clock(NULL)")
    print("lint_fixes: %d fixes of %d rules (%s) each created a table that took "
          "the rows; %d failed" % (n_fix, len(rules), ", ".join(sorted(rules)), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
