#!/usr/bin/env python3
"""widecol_advise: the issue's statements as written, every design it
returns built and loaded, and its progress on standard error in the
sqlite3 shell.

1. The surface statements exactly as issue 18 gives them (the payments
   workload and SELECT rank, ddl, score, reads, write_skew, key_bytes,
   why), on a payments table.
2. Every ddl returned, for three workloads, run as it is in a new
   database, and the source's 10,000 rows inserted into it, after which
   widecol_check says ok: the designs are ready to run and hold the data.
3. The sqlite3 shell, given the same script on standard input, prints
   progress lines ("widecol_advise: [0s] design 1 of ...") on standard
   error and the rows on standard output.

Usage: advise_check.py [--extension ./widecol]
"""
import argparse
import os
import sqlite3
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

SETUP = """
CREATE TABLE payments(customer_id INTEGER, paid_at TEXT, payment_id INTEGER PRIMARY KEY,
                      amount REAL, mode TEXT);
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 9999)
INSERT INTO payments SELECT 100000 + (x * 7) % 300, datetime(1483228800 + x * 600, 'unixepoch'),
  100000000 + x, (x % 1000) / 10.0, CASE x % 2 WHEN 0 THEN 'card' ELSE 'cash' END FROM i;
"""

# Issue 18's statements, verbatim.
SURFACE = """
CREATE TABLE workload(sql TEXT, weight REAL);
INSERT INTO workload VALUES
  ('SELECT * FROM payments WHERE customer_id = ?1 AND paid_at BETWEEN ?2 AND ?3', 100),
  ('SELECT * FROM payments WHERE paid_at BETWEEN ?1 AND ?2', 5);
SELECT rank, ddl, score, reads, write_skew, key_bytes, why
  FROM widecol_advise('payments', 'SELECT sql, weight FROM workload');
"""

WORKLOADS = [
    [("SELECT * FROM payments WHERE customer_id = ?1 AND paid_at BETWEEN ?2 AND ?3", 100),
     ("SELECT * FROM payments WHERE paid_at BETWEEN ?1 AND ?2", 5)],
    [("SELECT amount FROM payments WHERE payment_id = ?1", 10),
     ("INSERT INTO payments VALUES (?1, ?2, ?3, ?4, ?5)", 100)],
    [("SELECT mode, amount FROM payments WHERE customer_id = ?1 ORDER BY paid_at DESC LIMIT 5", 3),
     ("SELECT customer_id FROM payments WHERE mode = ?1 AND amount > ?2", 1),
     ("UPDATE payments SET amount = ?1 WHERE payment_id = ?2", 2)],
]


def connect(ext):
    db = wctest.connect(ext, isolation_level=None)
    db.executescript(SETUP)
    return db


# 50 devices reporting once a minute, each reading a little late (0 to 29
# s: real timestamps come slightly out of order), and a one-minute window
# over every device besides each device's own range.
IOT = """
CREATE TABLE readings(dev TEXT, ts INTEGER, temp REAL);
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 19999)
INSERT INTO readings SELECT 'dev' || (x % 50), 1700000000 + x / 50 * 60 + x * 7919 % 30,
  20 + x % 7 FROM i;
CREATE TABLE workload(sql TEXT, weight REAL);
INSERT INTO workload VALUES
  ('SELECT * FROM readings WHERE dev = ?1 AND ts BETWEEN ?2 AND ?3', 10),
  ('SELECT * FROM readings WHERE ts BETWEEN ?1 AND ?1 + 60', 5),
  ('INSERT INTO readings VALUES (?1, ?2, ?3)', 100);
"""


def check_iot(ext):
    """The advisor and the lint agree: jittered timestamps rise, so an
    index on them is offered with a BUCKET in front, and no design the
    advisor ranks first has an index the lint calls a hotspot."""
    db = wctest.connect(ext, isolation_level=None)
    db.executescript(IOT)
    rows = db.execute("SELECT rank, ddl FROM widecol_advise('readings', "
                      "'SELECT sql, weight FROM workload', '{\"candidates\": 100}')").fetchall()
    failed = 0
    bucketed = [ddl for _, ddl in rows if "INDEX by_ts(BUCKET(16, ts), ts PAD 10)" in ddl]
    ok = len(bucketed) > 0
    failed += not ok
    print("advise check: jittered timestamps: %d of %d designs index ts behind a BUCKET: %s"
          % (len(bucketed), len(rows), "ok" if ok else "FAILED"))
    t = wctest.connect(ext, isolation_level=None)
    t.execute(rows[0][1])
    t.executemany("INSERT INTO main.readings VALUES (?, ?, ?)",
                  db.execute("SELECT * FROM readings ORDER BY rowid").fetchall())
    hot = t.execute("SELECT key, finding FROM widecol_lint('readings') "
                    "WHERE rule = 'hotspot'").fetchall()
    ok = not hot
    failed += not ok
    print("advise check: widecol_lint finds no hotspot in the design ranked first (%s): %s"
          % (rows[0][1][rows[0][1].index("ROWKEY"):], "ok" if ok else "FAILED %r" % hot))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    failed = 0

    db = connect(args.extension)
    db.executescript(SURFACE.rsplit("SELECT rank", 1)[0])
    rows = db.execute("SELECT rank" + SURFACE.rsplit("SELECT rank", 1)[1]).fetchall()
    # Ranks by position, a tie sharing its first design's: 1, 1, 3, ...
    ranks = [r[0] for r in rows]
    ok = (len(rows) >= 1 and ranks[0] == 1
          and all(k == i + 1 or k == ranks[i - 1] for i, k in enumerate(ranks) if i)
          and all(isinstance(r[2], float) and r[1].startswith("CREATE VIRTUAL TABLE payments")
                  for r in rows))
    failed += not ok
    print("advise check: the issue's statements: %d designs, %s" % (len(rows), "ok" if ok else "FAILED"))

    n_ddl = 0
    for w in WORKLOADS:
        db = connect(args.extension)
        db.execute("CREATE TABLE workload(sql TEXT, weight REAL)")
        db.executemany("INSERT INTO workload VALUES (?, ?)", w)
        rows = db.execute("SELECT rank, ddl FROM widecol_advise('payments', "
                          "'SELECT sql, weight FROM workload', '{\"candidates\": 100}')").fetchall()
        for rank, ddl in rows:
            n_ddl += 1
            t = wctest.connect(args.extension, isolation_level=None)
            try:
                t.execute(ddl)
                for row in db.execute("SELECT * FROM payments"):
                    t.execute("INSERT INTO main.payments VALUES (?, ?, ?, ?, ?)", row)
                n = t.execute("SELECT count(*) FROM main.payments").fetchone()[0]
                if n != 10000:
                    raise sqlite3.Error("holds %d rows of 10000" % n)
                check = t.execute("SELECT * FROM widecol_check('payments')").fetchall()
                if check != [("ok",)]:
                    raise sqlite3.Error("widecol_check: %r" % check)
            except sqlite3.Error as e:
                failed += 1
                print("advise check: rank %d of workload %d: %s\n  %s" % (
                    rank, WORKLOADS.index(w) + 1, e, ddl))
            t.close()
    print("advise check: %d designs of %d workloads created and loaded with the 10000 rows"
          % (n_ddl, len(WORKLOADS)))

    failed += check_iot(args.extension)

    script = ".load %s\n%s%s" % (os.path.splitext(args.extension)[0], SETUP, SURFACE)
    out = subprocess.run(["sqlite3", ":memory:"], input=script, capture_output=True, text=True)
    lines = [l for l in out.stderr.splitlines() if l.startswith("widecol_advise: [")]
    ok = (out.returncode == 0 and any(" design 1 of " in l for l in lines)
          and any(" done: " in l for l in lines) and "CREATE VIRTUAL TABLE payments" in out.stdout)
    failed += not ok
    print("advise check: the sqlite3 shell printed %d progress lines on standard error: %s"
          % (len(lines), "ok" if ok else "FAILED\n" + out.stderr[-2000:]))
    print("advise check: %d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
