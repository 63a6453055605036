#!/usr/bin/env python3
"""The Bigtable store against Google's cbt on the same emulator, same rows.

Starts the Bigtable emulator on a free loopback port, makes N payments
(the HBase blog's design: ROWKEY(customer_id PAD 6, paid_at, payment_id
PAD 9), FAMILY p(amount, mode)) in a local SQLite table, and measures in
the same run:

  load    widecol's INSERT OR REPLACE ... SELECT (puts batched in
          MutateRows) against `cbt import` of the same rows as CSV (same
          keys, same families); and plain INSERT (one CheckAndMutateRow
          per row, so that a key in use fails) on a part of them
  range   a 1% range of customers: widecol's SELECT against `cbt read
          start=.. end=..`
  lookup  one row by its whole key: widecol's SELECT against `cbt lookup`
  scan    the whole table read by widecol from Bigtable against the same
          rows in a local widecol table (the same design): time per row,
          the CPU each side spent (this process, all its threads, and the
          emulator's), and with --profile, where this process's time went
          by library (perf record, sampling)

  calls   (--calls, instead of the above) what a call costs, in rows of a
          scan: a one-row lookup, a probe (a range with no end, LIMIT 1,
          as skip scans count prefixes) and a scan's time per row, on a
          table of 20,000 rows; the planner prices a call at
          WC_BIGTABLE_CALL rows (ext/store/wc_store.c)

and prints rows/s or seconds with the ratio widecol / cbt, and the rows
widecol read per query (widecol_stats) against the rows returned.  cbt is
a command-line client: each call starts a process, which its figures
include; the emulator runs on this machine, so neither side pays network
latency.

Usage: bigtable.py [--rows N] [--extension ./widecol]
                   [--bigtable ./widecol_bigtable] [--dir /tmp] [--profile]
"""
import argparse
import csv
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402


def emulator_path():
    out = subprocess.run("command -v cbtemulator || dpkg -L google-cloud-cli-bigtable-emulator"
                         " | grep '/cbtemulator$'", shell=True, capture_output=True, text=True)
    path = out.stdout.strip().split("\n")[0]
    if not path:
        sys.exit("bench/bigtable.py: no cbtemulator (google-cloud-cli-bigtable-emulator)")
    return path


def start_emulator():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    proc = subprocess.Popen([emulator_path(), "-host", "127.0.0.1", "-port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    os.environ["BIGTABLE_EMULATOR_HOST"] = "127.0.0.1:%d" % port
    return proc


def cbt(*words, out=subprocess.DEVNULL):
    subprocess.run(["cbt", "-project", "bench", "-instance", "wc"] + list(words),
                   stdout=out, stderr=subprocess.DEVNULL, check=True)


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def cpu_seconds(pid):
    """User + system CPU seconds of a process, all its threads."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Where this process's samples fall, by the library they are in.
PROFILE_GROUPS = (
    ("SQLite and widecol's scan", ("libsqlite3", "widecol.so")),
    ("the store: requests, responses' cells", ("widecol_bigtable.so",)),
    ("protobuf-c decoding", ("libprotobuf-c",)),
    ("gRPC and its libraries", ("libgrpc", "libgpr", "libabsl", "libupb", "libre2",
                                "libcares", "libaddress_sorting", "libssl", "libcrypto",
                                "libz")),
    ("kernel (loopback sockets, scheduling)", ("[kernel",)),
    ("libc (malloc, memcpy, locks)", ("libc.so", "libc-", "ld-linux")),
)


def profile_split(data):
    """Shares of perf samples by PROFILE_GROUPS, from `perf report`."""
    out = subprocess.run(["perf", "report", "-i", data, "--sort", "dso", "--stdio",
                          "--percent-limit", "0"], capture_output=True, text=True).stdout
    shares = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2 or not parts[0].endswith("%") or line.startswith("#"):
            continue
        pct, dso = float(parts[0][:-1]), " ".join(parts[1:])
        group = next((g for g, keys in PROFILE_GROUPS if any(k in dso for k in keys)),
                     "other (Python, ...)")
        shares[group] = shares.get(group, 0.0) + pct
    return shares


def connect(args):
    """A connection with widecol and its Bigtable store loaded."""
    return wctest.connect(args.extension, bigtable=args.bigtable, isolation_level=None)


def call_costs(args):
    """A lookup, a probe and a scan's row on one table, three times."""
    proc = start_emulator()
    try:
        db = connect(args)
        db.execute("CREATE VIRTUAL TABLE c USING widecol(ts INTEGER, h TEXT, v INTEGER, "
                   "ROWKEY(ts PAD 8, h), STORAGE BIGTABLE "
                   "'projects/bench/instances/wc/tables/calls')")
        db.execute("WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i "
                   "WHERE x < 20000) INSERT OR REPLACE INTO c SELECT x, 'host' || (x % 100), x "
                   "FROM i")
        keys = list(range(1, 20001, 100))
        for rep in range(3):
            t = time.perf_counter()
            for k in keys:
                db.execute("SELECT v FROM c WHERE ts = ? AND h = ?",
                           (k, "host%d" % (k % 100))).fetchall()
            lookup = (time.perf_counter() - t) / len(keys)
            t = time.perf_counter()
            for k in keys:
                db.execute("SELECT rowkey FROM c_rows WHERE rowkey >= ? LIMIT 1",
                           (b"%08d" % k,)).fetchall()
            probe = (time.perf_counter() - t) / len(keys)
            t = time.perf_counter()
            n = len(db.execute("SELECT v FROM c").fetchall())
            row = (time.perf_counter() - t) / n
            print("calls (run %d): a scan's row %.1f us; a lookup %.0f us = %.0f rows; "
                  "a probe %.0f us = %.0f rows" % (rep + 1, row * 1e6, lookup * 1e6,
                                                   lookup / row, probe * 1e6, probe / row))
    finally:
        proc.kill()
        proc.wait()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--insert-rows", type=int, default=20000,
                    help="rows loaded by plain INSERT")
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--bigtable", default="./widecol_bigtable")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--profile", action="store_true",
                    help="sample this process with perf during the scan")
    ap.add_argument("--calls", action="store_true",
                    help="only measure what a call costs in rows of a scan")
    args = ap.parse_args()
    if args.calls:
        return call_costs(args)
    if args.profile and not shutil.which("perf"):
        sys.exit("bench/bigtable.py: --profile needs perf (Debian's linux-perf)")
    n = args.rows
    proc = start_emulator()
    try:
        db = connect(args)
        rng = random.Random(1)
        n_cust = max(n // 100, 1)
        db.execute("CREATE TABLE src(customer_id INTEGER, paid_at TEXT, payment_id INTEGER,"
                   " amount REAL, mode TEXT)")
        db.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", (
            (rng.randrange(n_cust), "2017-01-%02d %02d:%02d:%02d" % (
                rng.randint(1, 28), rng.randrange(24), rng.randrange(60), rng.randrange(60)),
             i, round(rng.uniform(1, 500), 2), rng.choice(["card", "cash", "wire"]))
            for i in range(n)))
        key = "rk_join('_', rk_pad(customer_id, 6), paid_at, rk_pad(payment_id, 9))"
        design = ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,"
                  " ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9), FAMILY p(amount, mode)")

        # cbt import of the same rows: the same keys, families and
        # qualifiers, values as text (cbt's CSV has no types), and without
        # the empty-qualifier marker cell widecol adds to each row (cbt's
        # CSV cannot name an empty qualifier): cbt writes 5 cells a row,
        # widecol 6.
        fd, path = tempfile.mkstemp(suffix=".csv", dir=args.dir)
        with os.fdopen(fd, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["", "_", "", "", "p", ""])
            w.writerow(["", "customer_id", "paid_at", "payment_id", "amount", "mode"])
            for row in db.execute("SELECT %s, customer_id, paid_at, payment_id, amount, mode"
                                  " FROM src" % key):
                w.writerow(row)
        cbt("createtable", "viacbt")
        cbt("createfamily", "viacbt", "_")
        cbt("createfamily", "viacbt", "p")
        t_cbt = timed(lambda: cbt("import", "viacbt", path, "batch-size=500", "workers=1"))
        os.unlink(path)

        db.execute("CREATE VIRTUAL TABLE bt USING widecol(%s, STORAGE BIGTABLE "
                   "'projects/bench/instances/wc/tables/viawidecol')" % design)
        t_wc = timed(lambda: db.execute("INSERT OR REPLACE INTO bt SELECT * FROM src"))
        m = min(args.insert_rows, n)
        db.execute("CREATE VIRTUAL TABLE bt2 USING widecol(%s, STORAGE BIGTABLE "
                   "'projects/bench/instances/wc/tables/plaininsert')" % design)
        t_ins = timed(lambda: db.execute("INSERT INTO bt2 SELECT * FROM src LIMIT %d" % m))
        got = db.execute("SELECT count(*) FROM bt").fetchone()[0]
        if got != n:
            sys.exit("bench/bigtable.py: widecol holds %d rows, not %d" % (got, n))

        print("Bigtable store, %d rows (emulator on this machine; ratios are widecol / cbt,"
              " same run)" % n)
        print("  load  cbt import (batch 500, 1 worker)   %9.0f rows/s" % (n / t_cbt))
        print("        widecol INSERT OR REPLACE..SELECT  %9.0f rows/s   %.2fx cbt"
              % (n / t_wc, t_cbt / t_wc))
        print("        widecol plain INSERT (%d rows)  %9.0f rows/s   %.2fx cbt"
              % (m, m / t_ins, (m / t_ins) / (n / t_cbt)))

        # A 1% range: a hundredth of the customers.
        lo = n_cust // 2
        hi = lo + max(n_cust // 100, 1)
        start, end = "%06d" % lo, "%06d" % hi
        row = db.execute("SELECT customer_id, paid_at, payment_id, %s FROM src LIMIT 1 OFFSET ?"
                         % key, (n // 3,)).fetchone()
        q = "SELECT * FROM bt WHERE customer_id = ? AND paid_at = ? AND payment_id = ?"
        # The first statements on a connection plan with figures read from
        # the table once (a row count from at most 10,001 keys, distinct
        # key prefixes by up to 64 probes): timed apart.
        t_plan = timed(lambda: (db.execute(q, row[:3]).fetchall(),
                                db.execute("SELECT * FROM bt WHERE customer_id >= ? AND "
                                           "customer_id < ? LIMIT 1", (lo, hi)).fetchall()))
        print("  first statements of the connection (planning reads) %.2f s" % t_plan)
        db.execute("SELECT widecol_stats('bt', 1)")
        t_r = timed(lambda: db.execute("SELECT * FROM bt WHERE customer_id >= ? AND customer_id < ?",
                                       (lo, hi)).fetchall())
        nr = db.execute("SELECT count(*) FROM src WHERE customer_id >= ? AND customer_id < ?",
                        (lo, hi)).fetchone()[0]
        st = json.loads(db.execute("SELECT widecol_stats('bt')").fetchone()[0])
        t_rc = timed(lambda: cbt("read", "viacbt", "start=" + start, "end=" + end,
                                 "cells-per-column=1"))
        print("  range %d rows: cbt read %.3f s, widecol %.3f s   %.2fx cbt;"
              " widecol read %d rows for %d returned, %d seeks"
              % (nr, t_rc, t_r, t_rc / t_r, st["rows_read"], st["rows_returned"], st["seeks"]))

        # A point lookup, by its whole key.
        k = 200
        t_p = timed(lambda: [db.execute(q, row[:3]).fetchall() for _ in range(k)]) / k
        t_pc = timed(lambda: cbt("lookup", "viacbt", row[3]))
        print("  point lookup: cbt lookup %.4f s (one process), widecol %.5f s (mean of %d)"
              "   %.0fx cbt" % (t_pc, t_p, k, t_pc / t_p))

        # The whole table, from Bigtable and from a local table of the
        # same design holding the same rows.
        db.execute("CREATE VIRTUAL TABLE loc USING widecol(%s)" % design)
        db.execute("INSERT INTO loc SELECT * FROM src")
        # Cents, so that the sum is exact in any order.
        scan = ("SELECT count(*), sum(CAST(round(amount * 100) AS INTEGER)), max(mode),"
                " max(paid_at) FROM %s")
        want = db.execute(scan % "src").fetchone()
        t_loc, t_bt, cpu_me, cpu_emu = [], [], [], []
        for _ in range(3):
            t_loc.append(timed(lambda: db.execute(scan % "loc").fetchone()))
            c0, e0 = time.process_time(), cpu_seconds(proc.pid)
            t = time.perf_counter()
            got = db.execute(scan % "bt").fetchone()
            t_bt.append(time.perf_counter() - t)
            cpu_me.append(time.process_time() - c0)
            cpu_emu.append(cpu_seconds(proc.pid) - e0)
            if got != want or db.execute(scan % "loc").fetchone() != want:
                sys.exit("bench/bigtable.py: the scans differ: %r %r" % (got, want))
        i = sorted(range(3), key=lambda j: t_bt[j])[1]
        loc = sorted(t_loc)[1]
        print("  scan of all %d rows: local %.3f us/row, Bigtable %.3f us/row   %.1fx local;"
              " this process's CPU %.3f us/row (%.0f%% of the wall time), the emulator's"
              " %.3f us/row" % (n, loc / n * 1e6, t_bt[i] / n * 1e6, t_bt[i] / loc,
                                cpu_me[i] / n * 1e6, 100 * cpu_me[i] / t_bt[i],
                                cpu_emu[i] / n * 1e6))
        if args.profile:
            data = os.path.join(args.dir, "bigtable-scan.perf")
            perf = subprocess.Popen(["perf", "record", "-q", "-F", "999", "-o", data,
                                     "-p", str(os.getpid())],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            db.execute(scan % "bt").fetchone()
            perf.send_signal(2)
            perf.wait()
            print("  where this process's scan time went (perf samples):")
            for group, pct in sorted(profile_split(data).items(), key=lambda x: -x[1]):
                print("    %5.1f%%  %s" % (pct, group))
            os.unlink(data)
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
