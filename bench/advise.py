#!/usr/bin/env python3
"""widecol_advise on a large table: its time and peak memory.

Loads N payments (the HBase blog's table: customer_id, paid_at, payment_id,
amount, mode) into an ordinary table, then advises designs for five
statements (a customer's payments in a date range, all payments in a date
range, a payment by id, a customer's newest payments, and inserts) with
the default settings (a sample of 100,000 rows), and prints the time it
took, the designs tried, the peak memory of the process against its size
before the call, and the top three designs.

Usage: advise.py [--rows N] [--extension ./widecol]
"""
import argparse
import resource
import time
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402

WORKLOAD = [
    ("SELECT * FROM payments WHERE customer_id = ?1 AND paid_at BETWEEN ?2 AND ?3", 100),
    ("SELECT * FROM payments WHERE paid_at BETWEEN ?1 AND ?2", 5),
    ("SELECT amount FROM payments WHERE payment_id = ?1", 20),
    ("SELECT * FROM payments WHERE customer_id = ?1 ORDER BY paid_at DESC LIMIT 10", 50),
    ("INSERT INTO payments VALUES (?1, ?2, ?3, ?4, ?5)", 50),
]


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    db = wctest.connect(args.extension)
    db.execute("CREATE TABLE payments(customer_id INTEGER, paid_at TEXT, "
               "payment_id INTEGER PRIMARY KEY, amount REAL, mode TEXT)")
    db.execute("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < ?) "
               "INSERT INTO payments SELECT 100000 + (x * 7919) % 50000, "
               "datetime(1483228800 + x * 30, 'unixepoch'), 100000000 + x, "
               "(x % 10000) / 100.0, CASE x % 3 WHEN 0 THEN 'card' ELSE 'cash' END FROM i",
               (args.rows - 1,))
    db.execute("CREATE TABLE workload(sql TEXT, weight REAL)")
    db.executemany("INSERT INTO workload VALUES (?, ?)", WORKLOAD)
    db.commit()
    before = peak_mb()
    t0 = time.perf_counter()
    rows = db.execute("SELECT rank, ddl, score, reads, write_skew FROM widecol_advise("
                      "'payments', 'SELECT sql, weight FROM workload', "
                      "'{\"progress\": false, \"candidates\": 100}')").fetchall()
    elapsed = time.perf_counter() - t0
    after = peak_mb()
    print("widecol_advise over %d rows, %d statements: %.1f s, %d designs ranked; "
          "peak memory %.0f MB (%.0f MB before the call, so %.0f MB for the advice)"
          % (args.rows, len(WORKLOAD), elapsed, len(rows), after, before, after - before))
    for rank, ddl, score, reads, skew in rows[:3]:
        print("  %d  score %.1f  reads %.1f  write_skew %.3f\n     %s"
              % (rank, score, reads, skew, ddl[ddl.index("ROWKEY") if "ROWKEY" in ddl
                                                 else ddl.index("PRIMARY"):]))


if __name__ == "__main__":
    main()
