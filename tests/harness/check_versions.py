#!/usr/bin/env python3
"""widecol_check on a versioned table: what writing to <name>_versions
directly can break, each found and named; and on a RANDOM(n) design, a row
key whose number is not one RANDOM gives, or whose fields changed.  (The
sqllogictest scripts run in defensive mode, where <name>_versions and
<name>_rows are protected; this runs without it.)

Usage: check_versions.py [--extension ./widecol]
"""
import argparse
import sys
import os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

SETUP = [
    "CREATE VIRTUAL TABLE s USING widecol(k TEXT, v INTEGER, ROWKEY(k), VERSIONS 2)",
    "SELECT widecol_clock(1000)",
    "INSERT INTO s VALUES ('a', 1), ('b', 1)",
    "INSERT OR REPLACE INTO s VALUES ('a', 2)",   # a: 1001 latest, 1000 older
    "CREATE VIRTUAL TABLE r USING widecol(k TEXT, v INTEGER, ROWKEY(k, RANDOM(100)), "
    "DELIMITER '_')",
    "INSERT INTO r(rowkey, k, v) VALUES ('a_07', 'a', 1)",   # x'615f3037'
]

# Each corruption, and the problem widecol_check of its table must report.
CASES = [
    ("s", "INSERT INTO s_versions VALUES (X'7a', 5, 'z', 1)",
     "VERSIONS: 1 older version(s) of key x'7a', which is not in s_rows"),
    ("s", "UPDATE s_versions SET rowtime = 5000 WHERE rowkey = X'61'",
     "row x'61': an older version is stamped 5000, not before its latest (1001)"),
    ("s", "INSERT INTO s_versions VALUES (X'61', 7, 'a', 0)",
     "row x'61': 2 older versions, more than the 1 that VERSIONS 2 keeps besides the latest"),
    ("s", "UPDATE s_versions SET k = 'c' WHERE rowkey = X'61'",
     "row x'61': its version stamped 1000 has fields that make another row key"),
    # 'a_x7': not two digits; 'a_7': one digit, RANDOM(100) writes two;
    # k = 'b': the fields make 'b_' and the key starts 'a_'.
    ("r", "UPDATE r_rows SET rowkey = CAST('a_x7' AS BLOB)",
     "row x'615f7837': its fields make the row key x'615f' followed by RANDOM's number"),
    ("r", "UPDATE r_rows SET rowkey = CAST('a_7' AS BLOB)",
     "row x'615f37': its fields make the row key x'615f' followed by RANDOM's number"),
    ("r", "UPDATE r_rows SET k = 'b'",
     "row x'615f3037': its fields make the row key x'625f' followed by RANDOM's number"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    failed = 0
    for table, corrupt, want in CASES:
        db = wctest.connect(args.extension, isolation_level=None)
        for sql in SETUP:
            db.execute(sql)
        check = "SELECT * FROM widecol_check('%s')" % table
        before = [r[0] for r in db.execute(check)]
        db.execute(corrupt)
        got = [r[0] for r in db.execute(check)]
        if before != ["ok"] or got != [want]:
            print("check_versions: after %s: widecol_check gave %r (before: %r), "
                  "expected [%r]" % (corrupt, got, before, want))
            failed += 1
    print("check_versions: %d corruptions of s_versions and r_rows, %d found as expected"
          % (len(CASES), len(CASES) - failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
