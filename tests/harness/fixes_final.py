#!/usr/bin/env python3
"""Every widecol_lint fix is final (issue 46), on every widecol table the
sql/*.sql examples make and every design of the differential test (its
fixed ones and 30 random, 60 rows each):

1. the fix, put in place of what it rewrites (the ROWKEY clause, an INDEX
   clause, every key clause for a fix that changes the encoding, or added
   where it is a new INDEX), keeps every clause it does not rewrite, and an
   INDEX it rewrites keeps its INCLUDE;
2. a table of the fixed design takes the same rows (the differential's
   generated rows written again, the sql/ tables' copied);
3. the lint on it finds nothing, from any rule, that it did not find on
   the original (the fixed table has no query history, so this judges the
   rules that read the data: a fix that trades a finding for another, as
   an INDEX on a rising column that the hotspot rule then flags, fails).

Usage: fixes_final.py [--extension ./widecol] [--random 30]
"""
import argparse
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import wctest  # noqa: E402
import report_check  # noqa: E402
import differential  # noqa: E402

KEY_WORDS = ("ROWKEY", "PRIMARY", "INDEX", "ENCODING", "DELIMITER")
OPTION_WORDS = KEY_WORDS + ("FAMILY", "VERSIONS", "TTL", "STORAGE", "SPLITS", "CELLS",
                            "EXISTING", "WRITABLE", "COLLATE")
failures = []
counts = {"tables": 0, "fixes": 0}


def declaration(db, table):
    """The table's CREATE arguments: (columns, clauses)."""
    sql = db.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0]
    args = wctest.split_args(sql[sql.index("(") + 1:sql.rindex(")")])
    cols, clauses = [], []
    for a in args:
        word = re.split(r"[\s(]", a.strip(), maxsplit=1)[0].upper()
        (clauses if word in OPTION_WORDS else cols).append(a.strip())
    return cols, clauses


def head(clause):
    """"ROWKEY" (for PRIMARY KEY too: the same slot), "INDEX name" or the
    clause's first word."""
    m = re.match(r'(INDEX\s+("(?:[^"]|"")*"|\S+?))\s*\(', clause, re.I)
    if m:
        return "INDEX " + m.group(2)
    word = re.split(r"[\s(]", clause, maxsplit=1)[0].upper()
    return "ROWKEY" if word == "PRIMARY" else word


def include_of(clause):
    m = re.search(r"\)\s*INCLUDE\s*\((.*)\)\s*$", clause, re.I | re.S)
    return [c.strip() for c in m.group(1).split(",")] if m else []


def apply_fix(clauses, fix):
    """The clauses with the fix put in place, and those it rewrote."""
    parts = wctest.split_args(fix)
    if any(p.upper().startswith("ENCODING") for p in parts):
        kept = [c for c in clauses if head(c).split()[0] not in KEY_WORDS]
        return kept + parts, [c for c in clauses if c not in kept]
    new = parts[0]
    h = head(new)
    for i, c in enumerate(clauses):
        if head(c) == h:
            return clauses[:i] + [new] + clauses[i + 1:], [c]
    return clauses + [new], []


def lint(db, table):
    return db.execute("SELECT rule, key, fix FROM widecol_lint(?)", (table,)).fetchall()


def check_table(db, where, table, load=None):
    """load(name): writes the source's rows into table name again (all of
    them: a not-unique fix keeps apart rows the original lost); without
    it, the original's rows are copied."""
    cols, clauses = declaration(db, table)
    before = lint(db, table)
    seen = {(r, k) for r, k, _ in before}
    counts["tables"] += 1
    for n, (rule, key, fix) in enumerate(before):
        if fix is None:
            continue
        counts["fixes"] += 1
        what = "%s: the %s fix on %s (%s)" % (where, rule, key, fix)
        fixed, rewritten = apply_fix(clauses, fix)
        for old in rewritten:
            new = [c for c in fixed if head(c) == head(old)]
            if include_of(old) and (not new or include_of(new[0]) != include_of(old)):
                failures.append("%s drops %s's INCLUDE %s" % (what, head(old), include_of(old)))
        name = "%s_fix%d" % (table, n)
        try:
            db.execute('CREATE VIRTUAL TABLE "%s" USING widecol(%s)'
                       % (name, ", ".join(cols + fixed)))
            if load:
                load(name)
                n_fixed, n_orig = [db.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
                                   for t in (name, table)]
                if n_fixed < n_orig:
                    raise Exception("it holds %d of the rows, the original %d"
                                    % (n_fixed, n_orig))
            else:
                db.execute('INSERT INTO "%s" SELECT * FROM "%s"' % (name, table))
        except Exception as e:
            failures.append("%s: the fixed design does not take the rows: %s" % (what, e))
            db.execute('DROP TABLE IF EXISTS "%s"' % name)
            continue
        # Names are the original's: the fixed table's keys are the same clauses.
        new = [(r, k) for r, k, _ in lint(db, name) if (r, k) not in seen]
        if new:
            failures.append("%s draws new findings %s" % (what, sorted(set(new))))
        db.execute('DROP TABLE "%s"' % name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--random", type=int, default=30, help="random designs")
    a = ap.parse_args()
    report_check.check_table = check_table
    n_sql = report_check.sql_examples(a.extension)
    rng = random.Random(0)
    specs = [differential.strip_key_collations(s) for s in differential.DESIGNS] + [
        differential.strip_key_collations(differential.random_design(random.Random(i), i))
        for i in range(a.random)]
    n_diff = 0
    for spec in specs:
        d = differential.Design(spec, rng)
        db = wctest.connect(a.extension, isolation_level=None)
        try:
            db.execute(d.create_sql()[0])
        except Exception:
            continue     # a design widecol refuses has no lint
        rows = [d.row() for _ in range(60)]

        def load(name, db=db, d=d, rows=rows):
            for row in rows:
                try:
                    db.execute('INSERT OR IGNORE INTO "%s"(%s) VALUES (%s)'
                               % (name, ", ".join(d.cols), ", ".join("?" * len(d.cols))), row)
                except Exception:
                    pass     # a row this design refuses: the next one
        load("w")
        check_table(db, "differential %s" % spec["name"], "w", load)
        n_diff += 1
    for f in failures[:30]:
        print("fixes final: " + f)
    print("fixes final: %d tables of sql/, %d differential designs (%d random): %d fixes "
          "applied, each kept the other clauses, took the rows and drew no new finding: "
          "%d failed" % (n_sql, n_diff, a.random, counts["fixes"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
