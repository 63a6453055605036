#!/usr/bin/env python3
"""widecol_report on a large table: its time against one full scan of the
same table in the same run, the page's size, and Chromium's time to
render it.

Loads N payments (a payment every 3 seconds, 2,000 customers) into a
widecol table keyed customer first, then times, each --repeat times
(the best kept):
  - one full scan, SELECT count(*) over every column (the baseline);
  - widecol_report with 100 buckets and a 5-statement workload (a
    customer's payments in a date range, a day's payments, a payment by
    id, a customer's newest ten, an insert that is not replayed);
and prints the ratio report / scan (goal: at most 5), the page's bytes
(goal: under 2 MB) and Chromium's time for --dump-dom of the page (goal:
under 2 s), against an empty page rendered the same way in the same run.

Usage: report.py [--rows N] [--repeat R] [--extension ./widecol]
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402
import reportpage  # noqa: E402

WORKLOAD = [
    ("SELECT * FROM payments WHERE customer_id = ?1 AND paid_at BETWEEN ?2 AND ?3", 100),
    ("SELECT * FROM payments WHERE paid_at BETWEEN ?1 AND ?2", 5),
    ("SELECT amount FROM payments WHERE payment_id = ?1", 20),
    ("SELECT * FROM payments WHERE customer_id = ?1 ORDER BY paid_at DESC LIMIT 10", 50),
    ("INSERT INTO payments VALUES (?1, ?2, ?3, ?4)", 50),
]


def best(fn, repeat):
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        v = fn()
        t = time.perf_counter() - t
        if out is None or t < out[0]:
            out = (t, v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--extension", default="./widecol")
    a = ap.parse_args()
    db = wctest.connect(a.extension, isolation_level=None)
    print("report bench: loading %d payments" % a.rows, flush=True)
    db.executescript("""
      CREATE VIRTUAL TABLE payments USING widecol(customer_id INTEGER, paid_at TEXT,
        payment_id INTEGER, amount REAL,
        ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9));
      CREATE TABLE workload(sql TEXT, weight REAL);
      WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < %d)
      INSERT INTO payments SELECT 100000 + (x * 7919) %% 2000,
        datetime(1483228800 + x * 3, 'unixepoch'), 100000000 + x, (x %% 5000) / 10.0 FROM i;
    """ % (a.rows - 1))
    db.executemany("INSERT INTO workload VALUES (?, ?)", WORKLOAD)
    scan_s, _ = best(lambda: db.execute(
        "SELECT count(*), sum(length(customer_id) + length(paid_at) + length(payment_id) "
        "+ length(amount)) FROM payments").fetchone(), a.repeat)
    rep_s, page = best(lambda: db.execute(
        "SELECT widecol_report('payments', 'SELECT sql, weight FROM workload', "
        "'{\"buckets\": 100}')").fetchone()[0], a.repeat)
    print("report bench: one full scan %.2f s; widecol_report (100 buckets, 5 statements) "
          "%.2f s: %.1fx the scan (goal: at most 5x)" % (scan_s, rep_s, rep_s / scan_s))
    size = len(page.encode("utf-8"))
    print("report bench: the page is %d bytes, %.2f MB (goal: under 2 MB)"
          % (size, size / 1e6))
    if not reportpage.chromium():
        print("report bench: no chromium on the PATH: render time not measured")
        return 0
    tmp = tempfile.mkdtemp(prefix="wc-report-bench-")
    path = os.path.join(tmp, "payments.html")
    empty = os.path.join(tmp, "empty.html")
    open(path, "w", encoding="utf-8").write(page)
    open(empty, "w").write("<!DOCTYPE html><html><body></body></html>")
    blank_s = min(reportpage.render(empty).seconds for _ in range(a.repeat))
    render_s = min(reportpage.render(path).seconds for _ in range(a.repeat))
    print("report bench: Chromium renders the page in %.2f s, an empty page in %.2f s "
          "(goal: under 2 s)" % (render_s, blank_s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
