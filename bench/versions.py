#!/usr/bin/env python3
"""Versions benchmark: what VERSIONS costs reads of the latest version, what
reading older versions costs, and what writing a version costs, each
against a baseline measured in the same run.

Three tables of the same N rows, ROWKEY(k PAD 8), columns k, v, note:
  plain   no option: today's table;
  v1      VERSIONS 1 (rows carry a rowtime, no history);
  v3      VERSIONS 3, every row written three times (3 versions each).

Reads (the median of R runs, the tables taking turns; aggregates, so
Python's cost stays out):
  range   count(*), sum(v) over 1% of the keys          -- latest version
  point   1,000 lookups by key in one statement          -- latest version
  history versions = 3 over 1% of the keys (3 rows per key) against the
          same number of rows read from v1 by a range 3 times as wide
Writes: N new versions of existing rows (INSERT OR REPLACE, one
transaction) into v3, v1 and plain: rows/s, and the ratios.

Usage: bench/versions.py [--rows N] [--repeat R] [--extension ./widecol]
"""
import argparse
import os
import random
import statistics
import tempfile
import time
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402


def timed(db, sql, params, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = db.execute(sql, params).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def fill(n, value):
    return ("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
            "SELECT x, %s, 'note ' || (x %% 97) FROM i" % (n - 1, value))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    n, rep = args.rows, args.repeat
    with tempfile.TemporaryDirectory() as tmp:
        db = wctest.connect(args.extension, os.path.join(tmp, "v.db"),
                            isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("SELECT widecol_clock(1700000000000000)")
        opts = {"plain": "", "v1": ", VERSIONS 1", "v3": ", VERSIONS 3"}
        for t, o in opts.items():
            db.execute("CREATE VIRTUAL TABLE %s USING widecol(k INTEGER, v REAL, note TEXT, "
                       "ROWKEY(k PAD 8)%s)" % (t, o))
            db.execute("INSERT INTO %s(k, v, note) %s" % (t, fill(n, "x * 0.5")))
        # Two more versions of every row of v3 (the frozen clock stamps each
        # one more than the row's latest).
        for gen in (1, 2):
            db.execute("INSERT OR REPLACE INTO v3(k, v, note) %s" % fill(n, "x * 0.5 + %d" % gen))
        hist = db.execute("SELECT count(*) FROM v3_versions").fetchone()[0]
        assert hist == 2 * n, hist
        db.execute("ANALYZE")

        rng = random.Random(1)
        width = max(n // 100, 1)
        lo = rng.randrange(0, n - width)
        rows = []

        def compare(name, sql_of, params, unit_rows):
            # The tables take turns, run after run, so that what the machine
            # does meanwhile falls on all three alike.
            times = {t: [] for t in ("plain", "v1", "v3")}
            for _ in range(rep):
                for t in times:
                    secs, _res = timed(db, sql_of(t), params, 1)
                    times[t].append(secs)
            med = {t: statistics.median(v) for t, v in times.items()}
            rows.append((name, med["v3"] / unit_rows * 1e6,
                         med["v3"] / med["v1"], med["v3"] / med["plain"]))

        compare("latest, 1% range (us/row)",
                lambda t: "SELECT count(*), sum(v) FROM %s WHERE k BETWEEN ? AND ?" % t,
                (lo, lo + width - 1), width)
        keys = ",".join(str(rng.randrange(n)) for _ in range(1000))
        compare("latest, point lookup (us/lookup)",
                lambda t: "SELECT sum((SELECT v FROM %s WHERE k = x.value)) FROM "
                          "json_each('[%s]') AS x" % (t, keys), (), 1000)

        # versions = 3 over 1% of the keys: 3 rows per key, against a range
        # of v1 three times as wide.
        lo3 = min(lo, n - 3 * width)
        hist_t, scan_t = [], []
        for _ in range(rep):
            secs, hist_res = timed(db, "SELECT count(*), sum(v) FROM v3 WHERE k BETWEEN ? AND ? "
                                   "AND versions = 3", (lo, lo + width - 1), 1)
            hist_t.append(secs)
            secs, scan_res = timed(db, "SELECT count(*), sum(v) FROM v1 WHERE k BETWEEN ? AND ?",
                                   (lo3, lo3 + 3 * width - 1), 1)
            scan_t.append(secs)
        assert hist_res[0][0] == 3 * width, hist_res
        assert scan_res[0][0] == 3 * width, scan_res
        hist_secs, scan_secs = statistics.median(hist_t), statistics.median(scan_t)

        # Writes: a new version of every row.
        write = {}
        for t in ("v3", "v1", "plain"):
            t0 = time.perf_counter()
            db.execute("BEGIN")
            db.execute("INSERT OR REPLACE INTO %s(k, v, note) %s" % (t, fill(n, "x * 0.25")))
            db.execute("COMMIT")
            write[t] = n / (time.perf_counter() - t0)
        assert db.execute("SELECT count(*) FROM v3_versions").fetchone()[0] == 2 * n
        db.close()

    print("versions: %d rows; v3 = VERSIONS 3 with 3 versions per row, v1 = VERSIONS 1, "
          "plain = no option; median of %d runs" % (n, rep))
    print("%-34s %12s %10s %10s" % ("read", "v3", "v3 / v1", "v3 / plain"))
    for name, per, r1, rp in rows:
        print("%-34s %12.3f %9.2fx %9.2fx" % (name, per, r1, rp))
    print("%-34s %12.3f %9.2fx   (against v1 reading as many rows by a range)" % (
        "versions = 3, 1% of keys (us/row)", hist_secs / (3 * width) * 1e6, hist_secs / scan_secs))
    print("%-34s %12s %10s %10s" % ("write a new version", "rows/s", "v3 / v1", "v3 / plain"))
    print("%-34s %12.0f %9.2fx %9.2fx" % ("INSERT OR REPLACE, all rows", write["v3"],
                                          write["v3"] / write["v1"], write["v3"] / write["plain"]))
    print("%-34s %12.0f %12.0f" % ("  v1, plain (rows/s)", write["v1"], write["plain"]))


if __name__ == "__main__":
    main()
