#!/usr/bin/env python3
"""widecol on HBase against HBase's own Java client, same run, same rows.

Makes N payments (the HBase blog's design: ROWKEY(customer_id PAD 6,
paid_at, payment_id PAD 9)) and loads them into two tables of that design
on the HBase of the tests: one by widecol (INSERT OR REPLACE ... SELECT
from a local table, through the transport the environment chooses: HBase's
own RPC by default, WIDECOL_HBASE_TRANSPORT=thrift for the Thrift2
gateway), one by HBase's Java
client (a BufferedMutator, in the harness's JVM, WidecolHBase.java
bench-load), the same rows in the same cells: the Java side makes them
from the same seeded sequence (java.util.Random, replayed here), and
widecol reads the Java client's table back to check it holds them.  Then
the same reads on each: a 1% range (1,000 of the 100,000 customers), a
full scan, and point lookups of random rows.  Prints rows/s or ms with
the ratio widecol / Java client, and the rows widecol's store received
per query against the rows it returned (widecol_stats).

Starts HBase itself (tests/servers/hbase.sh) unless WIDECOL_HBASE_NODES
or WIDECOL_HBASE names one.  `make bench-hbase` runs it at 1,000,000 rows.

Usage: bench/hbase_scale.py [--rows N] [--lookups N] [--extension ./widecol]
           [--hbase ./widecol_hbase]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))
import wctest  # noqa: E402
from hbase_session import Session  # noqa: E402

SEED = 20170101
DESIGN = ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT, "
          "ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9)")
MODES = ["card", "cash", "wire"]


def progress(msg):
    print("hbase bench: " + msg, flush=True)


class JavaRandom:
    """java.util.Random's sequence (its documented 48-bit generator), so
    that this side makes the rows the Java side makes."""

    def __init__(self, seed):
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def next(self, bits):
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        v = self.seed >> (48 - bits)
        return v - (1 << 32) if v >= 1 << 31 else v

    def next_int(self, bound):
        if bound & -bound == bound:
            return (bound * self.next(31)) >> 31
        while True:
            bits = self.next(31)
            val = bits % bound
            if bits - val + (bound - 1) < 1 << 31:
                return val


def payments(n):
    rnd = JavaRandom(SEED)
    for i in range(n):
        customer = 1 + rnd.next_int(100000)
        paid_at = "2017-%02d-%02d %02d:%02d:%02d" % (1 + i // 2678400 % 12, 1 + i // 86400 % 28,
                                                    i // 3600 % 24, i // 60 % 60, i % 60)
        yield (i, customer, paid_at, 10000000 + i, (i % 50000) / 100.0, MODES[i % 3])


def rate(rows, seconds):
    return rows / seconds if seconds > 0 else float("inf")


def java(hbase, line):
    out = hbase.ask(line)
    f = out[-1].split(" ")
    return int(f[1]), float(f[3])


def stats(db, table, reset=False):
    return json.loads(db.execute("SELECT widecol_stats(?%s)" % (", 1" if reset else ""),
                                 (table,)).fetchone()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--lookups", type=int, default=1000)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--hbase", default="./widecol_hbase")
    args = ap.parse_args()
    started_here = False
    if not (os.environ.get("WIDECOL_HBASE_NODES") or os.environ.get("WIDECOL_HBASE")):
        os.environ.setdefault("WIDECOL_HBASE_DIR", "build/hbase-bench")
        # Standard output only: HBase's JVM keeps the script's standard
        # error, so waiting for its end would wait for HBase's.
        env = subprocess.run(["sh", os.path.join(HERE, "..", "tests", "servers", "hbase.sh"), "start"],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        for line in env.split():
            k, v = line.split("=", 1)
            os.environ[k] = v
        started_here = True
    try:
        run(args)
    finally:
        if started_here:
            subprocess.run(["sh", os.path.join(HERE, "..", "tests", "servers", "hbase.sh"), "stop"])


def run(args):
    n = args.rows
    ns = "bench%d" % os.getpid()
    db = wctest.connect(args.extension, bigtable=args.hbase, isolation_level=None)
    hbase = Session()
    db.execute("CREATE TABLE src(i INTEGER PRIMARY KEY, customer_id INTEGER, paid_at TEXT, "
               "payment_id INTEGER, amount REAL, mode TEXT)")
    db.executemany("INSERT INTO src VALUES (?,?,?,?,?,?)", payments(n))
    db.execute("CREATE VIRTUAL TABLE w USING widecol(%s, STORAGE HBASE '%s:w')" % (DESIGN, ns))
    db.execute("CREATE VIRTUAL TABLE j USING widecol(%s, STORAGE HBASE '%s:j')" % (DESIGN, ns))
    progress("%d payments made; loading" % n)

    t = time.time()
    db.execute("INSERT OR REPLACE INTO w SELECT customer_id, paid_at, payment_id, amount, mode "
               "FROM src ORDER BY i")
    w_load = time.time() - t
    calls = stats(db, "w")
    j_rows, j_load = java(hbase, "bench-load %s:j %d %d" % (ns, n, SEED))
    check = "SELECT count(*), sum(CAST(round(amount * 100) AS INTEGER)), count(DISTINCT mode) FROM "
    same = db.execute(check + "j").fetchone()
    want = db.execute(check + "src").fetchone()
    if same != want or j_rows != n:
        raise SystemExit("hbase bench: the Java client's table holds %s, the rows %s" % (same, want))
    print("load, %d rows: widecol %.0f rows/s (%d calls), Java client %.0f rows/s: %.2fx"
          % (n, rate(n, w_load), calls.get("rpcs", 0), rate(n, j_load),
             rate(n, w_load) / rate(n, j_load)), flush=True)

    # A 1% range: customers 50000 to 50999, every column read.
    q = ("SELECT count(*), max(customer_id || paid_at || payment_id || amount || mode) FROM w "
         "WHERE customer_id BETWEEN 50000 AND 50999")
    # The first query plans with a sample of the table's regions (counted
    # rows); the next plans from it.
    t = time.time()
    db.execute(q).fetchone()
    w_first = time.time() - t
    stats(db, "w", reset=True)
    t = time.time()
    got = db.execute(q).fetchone()[0]
    w_range = time.time() - t
    s = stats(db, "w")
    j_got, j_range = java(hbase, "bench-scan %s:j 050000 051000" % ns)
    print("1%% range, %d rows: widecol %.3f s (rows received %s, %d calls; the first query, "
          "which samples the regions to plan, %.3f s), Java client %.3f s (%d rows): %.2fx"
          % (got, w_range, s.get("rows_in"), s.get("rpcs", 0), w_first, j_range, j_got,
             j_range / w_range), flush=True)

    # A full scan.
    stats(db, "w", reset=True)
    t = time.time()
    got = db.execute("SELECT count(*), max(customer_id || paid_at || payment_id || amount || mode) "
                     "FROM w").fetchone()[0]
    w_full = time.time() - t
    s = stats(db, "w")
    j_got, j_full = java(hbase, "bench-scan %s:j 0 :" % ns)
    print("full scan, %d rows: widecol %.0f rows/s (rows received %s, %d calls), Java client "
          "%.0f rows/s (%d rows): %.2fx" % (got, rate(got, w_full), s.get("rows_in"),
                                           s.get("rpcs", 0), rate(j_got, j_full), j_got,
                                           rate(got, w_full) / rate(j_got, j_full)), flush=True)

    # Point lookups of random rows, by the whole key.
    pick = random.Random(SEED).sample(range(n), min(args.lookups, n))
    rows = [db.execute("SELECT customer_id, paid_at, payment_id FROM src WHERE i = ?", (i,)).fetchone()
            for i in pick]
    stats(db, "w", reset=True)
    t = time.time()
    found = 0
    for r in rows:
        found += len(db.execute("SELECT amount, mode FROM w WHERE customer_id = ? AND paid_at = ? "
                                "AND payment_id = ?", r).fetchall())
    w_get = time.time() - t
    s = stats(db, "w")
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        for c, p, pid in rows:
            f.write("%06d_%s_%09d\n" % (c, p, pid))
    j_got, j_get = java(hbase, "bench-get %s:j %s" % (ns, f.name))
    os.unlink(f.name)
    print("point lookups, %d: widecol %.2f ms each (%d found, %d calls), Java client %.2f ms each "
          "(%d found): %.2fx" % (len(rows), 1000 * w_get / len(rows), found, s.get("rpcs", 0),
                                1000 * j_get / len(rows), j_got, j_get / w_get), flush=True)
    db.close()
    hbase.ask("drop-namespace " + ns)
    hbase.close()


if __name__ == "__main__":
    main()
