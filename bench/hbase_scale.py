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
widecol reads the Java client's table back to check it holds them.  Both
warm up first on a tenth of the rows, and each load starts on a settled
server.  Then the same reads on each: a 1% range (1,000 of the 100,000 customers), a
full scan, and point lookups of random rows.  Last, the same rows under a
salted key (BUCKET(16, payment_id) first) and 1% of the time line read:
widecol's one skip scan against the Java client's 16 per-bucket scans.
Prints rows/s or ms with the ratio widecol / Java client, the rows
widecol's store received per query against the rows it returned
(widecol_stats), and the memory each step of widecol's took at its peak
(SQLite's heap and the process's resident set, above the level before).

Apache Phoenix 5.2 is the second peer on the salted design: the same rows
UPSERTed through its JDBC driver into a table of SALT_BUCKETS=16 with a
global index, the same queries run through it.

Starts HBase itself (tests/servers/hbase.sh, with --phoenix) unless
WIDECOL_HBASE_NODES or WIDECOL_HBASE names one.  `make bench-hbase` runs
it at 1,000,000 rows.

Usage: bench/hbase_scale.py [--rows N] [--lookups N] [--extension ./widecol]
           [--hbase ./widecol_hbase] [--no-phoenix]
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
from heap import Heap  # noqa: E402

SEED = 20170101
DESIGN = ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT, "
          "ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9)")
SALTED = ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT, "
          "ROWKEY(BUCKET(16, payment_id), paid_at, payment_id PAD 9), "
          "INDEX by_customer(customer_id PAD 6) INCLUDE (amount, mode)")
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


def paid_at(i):
    """Row i's time: a second a row from 2017-01-01 (28-day months)."""
    return "2017-%02d-%02d %02d:%02d:%02d" % (1 + i // 2678400 % 12, 1 + i // 86400 % 28,
                                             i // 3600 % 24, i // 60 % 60, i % 60)


def payments(n):
    rnd = JavaRandom(SEED)
    for i in range(n):
        customer = 1 + rnd.next_int(100000)
        yield (i, customer, paid_at(i), 10000000 + i, (i % 50000) / 100.0, MODES[i % 3])


class Memory:
    """The memory one step of widecol's reached above the level before it:
    SQLite's heap (widecol's own allocations; bench/heap.py) and the
    process's resident set (VmHWM, reset through /proc/self/clear_refs:
    protobuf-c's and the kernel's buffers too)."""

    def __init__(self):
        self.heap = Heap()

    @staticmethod
    def resident(field):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        raise SystemExit("hbase bench: /proc/self/status has no " + field)

    def peak_during(self, fn):
        """fn()'s result, and the text "peak heap +X MB, resident +Y MB"."""
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        rss = self.resident("VmRSS")
        heap, result = self.heap.peak_during(fn)
        return result, "peak heap +%.1f MB, resident +%.1f MB" % (
            heap / 1e6, (self.resident("VmHWM") - rss) / 1e6)


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
    ap.add_argument("--no-phoenix", dest="phoenix", action="store_false",
                    help="leave Apache Phoenix out (it is started with HBase otherwise)")
    args = ap.parse_args()
    started_here = False
    if not (os.environ.get("WIDECOL_HBASE_NODES") or os.environ.get("WIDECOL_HBASE")):
        os.environ.setdefault("WIDECOL_HBASE_DIR", "build/hbase-bench")
        # Standard output only: HBase's JVM keeps the script's standard
        # error, so waiting for its end would wait for HBase's.
        env = subprocess.run(["sh", os.path.join(HERE, "..", "tests", "servers", "hbase.sh"), "start"]
                             + (["--phoenix"] if args.phoenix else []),
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


def timed(fn):
    t = time.time()
    result = fn()
    return result, time.time() - t


def run(args):
    n = args.rows
    ns = "bench%d" % os.getpid()
    memory = Memory()
    db = wctest.connect(args.extension, bigtable=args.hbase, isolation_level=None)
    hbase = Session()
    if args.phoenix:
        why = phoenix_here(hbase)
        if why:
            progress("Apache Phoenix left out: it does not answer on this cluster (start it "
                     "with sh tests/servers/hbase.sh start --phoenix): " + why)
            args.phoenix = False
    db.execute("CREATE TABLE src(i INTEGER PRIMARY KEY, customer_id INTEGER, paid_at TEXT, "
               "payment_id INTEGER, amount REAL, mode TEXT)")
    db.executemany("INSERT INTO src VALUES (?,?,?,?,?,?)", payments(n))
    db.execute("CREATE VIRTUAL TABLE w USING widecol(%s, STORAGE HBASE '%s:w')" % (DESIGN, ns))
    db.execute("CREATE VIRTUAL TABLE j USING widecol(%s, STORAGE HBASE '%s:j')" % (DESIGN, ns))
    # Both clients warm up (the region server's JIT and the Java client's)
    # on a tenth of the rows into tables of their own, and each load
    # starts on a settled server (no compaction or split for 2 s), so that
    # neither pays for the server's warm-up or the other's flushes.
    progress("%d payments made; warming up" % n)
    warm = max(n // 10, 1)
    for t in ("warm_w", "warm_j"):
        db.execute("CREATE VIRTUAL TABLE %s USING widecol(%s, STORAGE HBASE '%s:%s')"
                   % (t, DESIGN, ns, t))
    db.execute("INSERT OR REPLACE INTO warm_w SELECT customer_id, paid_at, payment_id, amount, "
               "mode FROM src WHERE i < ?", (warm,))
    java(hbase, "bench-load %s:warm_j %d %d" % (ns, warm, SEED))
    db.execute("DROP TABLE warm_w")
    db.execute("DROP TABLE warm_j")
    progress("loading")
    hbase.ask("settle %s:w" % ns)
    (_, w_load), mem = memory.peak_during(lambda: timed(lambda: db.execute(
        "INSERT OR REPLACE INTO w SELECT customer_id, paid_at, payment_id, amount, mode "
        "FROM src ORDER BY i")))
    calls = stats(db, "w")
    hbase.ask("settle %s:w" % ns)
    j_rows, j_load = java(hbase, "bench-load %s:j %d %d" % (ns, n, SEED))
    hbase.ask("settle %s:j" % ns)
    check = "SELECT count(*), sum(CAST(round(amount * 100) AS INTEGER)), count(DISTINCT mode) FROM "
    same = db.execute(check + "j").fetchone()
    want = db.execute(check + "src").fetchone()
    if same != want or j_rows != n:
        raise SystemExit("hbase bench: the Java client's table holds %s, the rows %s" % (same, want))
    print("load, %d rows: widecol %.0f rows/s (%d calls; %s), Java client %.0f rows/s: %.2fx"
          % (n, rate(n, w_load), calls.get("rpcs", 0), mem, rate(n, j_load),
             rate(n, w_load) / rate(n, j_load)), flush=True)

    # A 1% range: customers 50000 to 50999, every column read.
    q = ("SELECT count(*), max(customer_id || paid_at || payment_id || amount || mode) FROM w "
         "WHERE customer_id BETWEEN 50000 AND 50999")
    # The first query plans with a sample of the table's regions (counted
    # rows); the next plans from it.
    _, w_first = timed(lambda: db.execute(q).fetchone())
    stats(db, "w", reset=True)
    (got, w_range), mem = memory.peak_during(lambda: timed(lambda: db.execute(q).fetchone()[0]))
    s = stats(db, "w")
    j_got, j_range = java(hbase, "bench-scan %s:j 050000 051000" % ns)
    print("1%% range, %d rows: widecol %.3f s (rows received %s, %d calls; %s; the first query, "
          "which samples the regions to plan, %.3f s), Java client %.3f s (%d rows): %.2fx"
          % (got, w_range, s.get("rows_in"), s.get("rpcs", 0), mem, w_first, j_range, j_got,
             j_range / w_range), flush=True)

    # A full scan.
    stats(db, "w", reset=True)
    (got, w_full), mem = memory.peak_during(lambda: timed(lambda: db.execute(
        "SELECT count(*), max(customer_id || paid_at || payment_id || amount || mode) "
        "FROM w").fetchone()[0]))
    s = stats(db, "w")
    j_got, j_full = java(hbase, "bench-scan %s:j 0 :" % ns)
    print("full scan, %d rows: widecol %.0f rows/s (rows received %s, %d calls; %s), Java client "
          "%.0f rows/s (%d rows): %.2fx" % (got, rate(got, w_full), s.get("rows_in"),
                                           s.get("rpcs", 0), mem, rate(j_got, j_full), j_got,
                                           rate(got, w_full) / rate(j_got, j_full)), flush=True)

    # Point lookups of random rows, by the whole key.
    pick = random.Random(SEED).sample(range(n), min(args.lookups, n))
    rows = [db.execute("SELECT customer_id, paid_at, payment_id FROM src WHERE i = ?", (i,)).fetchone()
            for i in pick]

    def lookups():
        return sum(len(db.execute("SELECT amount, mode FROM w WHERE customer_id = ? AND paid_at = ? "
                                  "AND payment_id = ?", r).fetchall()) for r in rows)
    stats(db, "w", reset=True)
    (found, w_get), mem = memory.peak_during(lambda: timed(lookups))
    s = stats(db, "w")
    with tempfile.NamedTemporaryFile("w", suffix=".keys", delete=False) as f:
        for c, p, pid in rows:
            f.write("%06d_%s_%09d\n" % (c, p, pid))
    j_got, j_get = java(hbase, "bench-get %s:j %s" % (ns, f.name))
    os.unlink(f.name)
    print("point lookups, %d: widecol %.2f ms each (%d found, %d calls; %s), Java client %.2f ms "
          "each (%d found): %.2fx" % (len(rows), 1000 * w_get / len(rows), found, s.get("rpcs", 0),
                                     mem, 1000 * j_get / len(rows), j_got, j_get / w_get), flush=True)
    salted(db, hbase, memory, ns, n, args.phoenix)
    db.close()
    hbase.ask("drop-namespace " + ns)
    hbase.close()


def phoenix_here(hbase):
    """Whether Apache Phoenix answers on the cluster (hbase.sh start
    --phoenix): its reason otherwise."""
    try:
        hbase.ask("phoenix SELECT COUNT(*) FROM SYSTEM.CATALOG")
        return None
    except RuntimeError as e:
        return str(e)


def side_by_side(label, w_time, peers):
    """A line of widecol's time and each peer's (name, seconds) with the
    ratio peer / widecol (above 1: widecol faster)."""
    return "%s: widecol %.3f s%s" % (label, w_time, "".join(
        ", %s %.3f s: %.2fx" % (name, t, t / w_time) for name, t in peers))


def salted(db, hbase, memory, ns, n, phoenix):
    """The same payments under a salted key, BUCKET(16, payment_id) first
    (writes spread over 16 prefixes) with an INDEX by customer that
    covers every column, and the same design in Apache Phoenix when it
    runs (SALT_BUCKETS=16 and a covering global index): the loads, then 1% of the time line (widecol
    skip-scans the 16 buckets; the Java client scans each bucket's range
    in turn, as an application over a salted key does; Phoenix runs its
    16-way scan), 1% of the customers by each one's index, and a full
    scan.  Every query's rows are counted and summed on each side and
    must agree with the local rows; each side runs each query once
    before the run timed, as widecol plans from the first."""
    db.execute("CREATE VIRTUAL TABLE ws USING widecol(%s, STORAGE HBASE '%s:ws')"
               % (SALTED, ns))
    progress("loading the salted table")
    (_, w_load), mem = memory.peak_during(lambda: timed(lambda: db.execute(
        "INSERT OR REPLACE INTO ws SELECT customer_id, paid_at, payment_id, amount, mode "
        "FROM src ORDER BY i")))
    p_table = "%s_P" % ns.upper()
    peers = []
    if phoenix:
        progress("loading Phoenix's table")
        hbase.ask("phoenix CREATE TABLE %s (PAID_AT VARCHAR NOT NULL, PAYMENT_ID BIGINT NOT NULL, "
                  "CUSTOMER_ID BIGINT, AMOUNT DOUBLE, MODE VARCHAR "
                  "CONSTRAINT PK PRIMARY KEY (PAID_AT, PAYMENT_ID)) SALT_BUCKETS=16" % p_table)
        hbase.ask("phoenix CREATE INDEX %s_BY_CUSTOMER ON %s (CUSTOMER_ID) INCLUDE (AMOUNT, MODE)"
                  % (p_table, p_table))
        _, p_load = java(hbase, "phoenix-load %s %d %d" % (p_table, n, SEED))
        peers = [("Phoenix", p_load)]
    print("salted load with an INDEX, %d rows: widecol %.0f rows/s (%s)%s"
          % (n, rate(n, w_load), mem, "".join(
              ", %s %.0f rows/s: %.2fx" % (name, rate(n, t), rate(n, w_load) / rate(n, t))
              for name, t in peers)), flush=True)

    lo, hi = paid_at(n // 2), paid_at(n // 2 + max(n // 100, 1) - 1)
    queries = [
        ("salted time range", "paid_at BETWEEN '%s' AND '%s'" % (lo, hi),
         "SKIP SCAN over 16 buckets"),
        ("1% of customers by the INDEX", "customer_id BETWEEN 50000 AND 50999", "INDEX by_customer"),
        ("full scan", "1 = 1", "FULL SCAN")]
    for label, where, plan_has in queries:
        rows_q = "SELECT customer_id, paid_at, payment_id, amount, mode FROM ws WHERE " + where
        plan = " ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN " + rows_q))
        if plan_has not in plan:
            raise SystemExit("hbase bench: %s is not planned as %s: %s" % (label, plan_has, plan))
        sums = "SELECT count(*), sum(payment_id), sum(customer_id) FROM %s WHERE " + where
        want = db.execute(sums % "src").fetchone()
        got = db.execute(sums % "ws").fetchone()
        if got != want:
            raise SystemExit("hbase bench: %s: widecol %s, the rows %s" % (label, got, want))
        # Rows counted as they come, none held: the memory is widecol's.
        sum(1 for _ in db.execute(rows_q))
        stats(db, "ws", reset=True)
        (w_rows, w_time), mem = memory.peak_during(lambda: timed(
            lambda: sum(1 for _ in db.execute(rows_q))))
        s = stats(db, "ws")
        peers = []
        if label == "salted time range":
            # HBase's escaped binary (Bytes.toBytesBinary): the time's space
            # as \x20, so that each bound is one word of the session's
            # line; "~" sorts after the "_" that follows the time in the key.
            lo_word, hi_word = lo.replace(" ", "\\x20"), hi.replace(" ", "\\x20")
            bounds = " ".join("%02d_%s %02d_%s~" % (b, lo_word, b, hi_word) for b in range(16))
            java(hbase, "bench-scan %s:ws %s" % (ns, bounds))
            j_rows, j_time = java(hbase, "bench-scan %s:ws %s" % (ns, bounds))
            if j_rows != want[0]:
                raise SystemExit("hbase bench: %s: the Java client read %d rows, the rows are %d"
                                 % (label, j_rows, want[0]))
            peers.append(("Java client's 16 scans", j_time))
        if phoenix:
            # Phoenix folds unquoted names to upper case, as its table's are.
            p_got = hbase.ask("phoenix " + sums % p_table)[0]
            if tuple(int(v) for v in p_got.split("\t")) != tuple(want):
                raise SystemExit("hbase bench: %s: Phoenix %s, the rows %s" % (label, p_got, want))
            p_rows_q = "phoenix-scan " + rows_q.replace(" ws ", " %s " % p_table)
            java(hbase, p_rows_q)
            p_rows, p_time = java(hbase, p_rows_q)
            if p_rows != want[0]:
                raise SystemExit("hbase bench: %s: Phoenix read %d rows, the rows are %d"
                                 % (label, p_rows, want[0]))
            peers.append(("Phoenix", p_time))
        print(side_by_side("%s, %d rows (rows received %s, %d calls; %s)"
                           % (label, w_rows, s.get("rows_in"), s.get("rpcs", 0), mem),
                           w_time, peers), flush=True)
    if phoenix:
        hbase.ask("phoenix DROP TABLE %s CASCADE" % p_table)


if __name__ == "__main__":
    main()
