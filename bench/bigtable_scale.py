#!/usr/bin/env python3
"""widecol on Bigtable at a user's size, against Google's clients, same run.

Makes N payments (the HBase blog's design: ROWKEY(customer_id PAD 6,
paid_at, payment_id PAD 9)) in a local SQLite table and measures, in
phases (--phases index,plain,memory), each on an emulator of its own
started on a free loopback port, each side on the same rows:

  loads   into a table with no INDEX and into one with two (by_day(paid_at),
          by_mode(mode, customer_id)): INSERT OR REPLACE ... SELECT, plain
          INSERT ... SELECT (a conditional write a row, so that a key in use
          fails) and an UPDATE of 10% of the rows (an indexed column on the
          indexed table).  Google's Python client (google-cloud-bigtable,
          its data API) does the same work: a MutationsBatcher's puts (into
          three tables for the indexed shape: the rows and an entry per
          index), CheckAndMutateRow per row from 16 threads for the plain
          INSERT, and for the UPDATE a full read then the batcher's puts;
          `cbt import` of the same rows as CSV too.
  reads   a full scan, a 1% range, the newest 10 of a customer (ORDER BY
          rowkey DESC LIMIT 10, reversed reads) and point lookups, against
          the client (read_rows_stream, read_row) and cbt (read, lookup; a
          process each call);
  tools   widecol_check (of the indexed table) against one full scan, and
          against that scan and each INDEX read whole by a covering query;
          widecol_lint against one full scan;
  fresh   the first point lookup of a new connection, at N rows;
  memory  this process's peak RSS after loading N/10 and N rows from a
          generated source (no local copy), each load in a process of its
          own.

Prints rows/s or seconds with the ratio to the client (or to the full
scan), and the calls widecol made (widecol_stats).  Needs a Python whose
sqlite3 loads extensions and that has google-cloud-bigtable: make
pyclient makes /opt/widecol-py.

Usage: /opt/widecol-py/bin/python bench/bigtable_scale.py [--rows N]
           [--plain-rows N] [--client-check-rows N] [--extension ./widecol]
           [--bigtable ./widecol_bigtable] [--dir /tmp] [--phases ...]
"""
import os
import sys
# bench/token.py would shadow the standard library's token module, which
# concurrent.futures imports: this script's folder leaves the path.
BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != BENCH]
import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import importlib.util  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
sys.path.insert(0, os.path.join(BENCH, "..", "tests", "lib"))
import wctest  # noqa: E402
# The emulator and cbt, as bench/bigtable.py starts and runs them.
_spec = importlib.util.spec_from_file_location("bench_bigtable", os.path.join(BENCH, "bigtable.py"))
bench_bigtable = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_bigtable)
start_emulator, cbt, timed = bench_bigtable.start_emulator, bench_bigtable.cbt, bench_bigtable.timed

warnings.filterwarnings("ignore", "Connecting to Bigtable emulator")
try:
    from google.cloud.bigtable import Client
    from google.cloud.bigtable import column_family
    from google.cloud.bigtable.data import (BigtableDataClient, DeleteAllFromRow,
                                            ReadRowsQuery, RowRange, RowMutationEntry,
                                            SetCell)
    from google.cloud.bigtable.data.row_filters import (CellsColumnLimitFilter,
                                                        PassAllFilter)
except ImportError:
    sys.exit("bench/bigtable_scale.py: no google-cloud-bigtable here; run it with "
             "/opt/widecol-py/bin/python (make pyclient)")

PROJECT, INSTANCE = "bench", "wc"
COLS = ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT, "
        "ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9)")
INDEXES = ", INDEX by_day(paid_at), INDEX by_mode(mode, customer_id PAD 6)"
KEY = "rk_join('_', rk_pad(customer_id, 6), paid_at, rk_pad(payment_id, 9))"


def progress(msg):
    print("  [%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def resource_name(table):
    return "projects/%s/instances/%s/tables/%s" % (PROJECT, INSTANCE, table)


def stats(db, table, reset=False):
    return json.loads(db.execute("SELECT widecol_stats(?%s)" % (", 1" if reset else ""),
                                 (table,)).fetchone()[0])


class Client_:
    """Google's Python client: the admin API to make tables, the data API
    for the work."""

    def __init__(self):
        self.admin = Client(project=PROJECT, admin=True).instance(INSTANCE)
        self.data = BigtableDataClient(project=PROJECT)

    def drop(self, name):
        self.admin.table(name).delete()

    def make(self, name, families=("_",)):
        t = self.admin.table(name)
        if t.exists():
            t.delete()
        t.create(column_families={f: column_family.MaxVersionsGCRule(1) for f in families})
        return self.data.get_table(INSTANCE, name)


def cells_of(row):
    """The client's cells of a source row: each column as text, as an
    application that keeps its own encoding would write them."""
    return [SetCell("_", c, str(v).encode()) for c, v in
            zip(("customer_id", "paid_at", "payment_id", "amount", "mode"), row) if v is not None]


def client_entries(rows, entries):
    """The batcher's puts of an index entry per row (key, row), for each
    index: its table and a function making an entry's key."""
    for etable, ekey in entries:
        with etable.mutations_batcher() as b:
            for key, row in rows:
                b.append(RowMutationEntry(ekey(key, row), [SetCell("_", "e", b"")]))


def client_load(table, rows, entries=()):
    """The batcher's puts of rows (key, row), then their index entries."""
    with table.mutations_batcher() as b:
        for key, row in rows:
            b.append(RowMutationEntry(key, cells_of(row)))
    client_entries(rows, entries)


def client_insert(table, rows):
    """CheckAndMutateRow a row, the write made only if the row is absent,
    16 at a time."""
    def one(item):
        key, row = item
        return table.check_and_mutate_row(key, PassAllFilter(True),
                                          false_case_mutations=cells_of(row))
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        present = sum(pool.map(one, rows, chunksize=64))
    assert present == 0, present


def client_scan(table, query=None):
    n = 0
    for row in table.read_rows_stream(query or ReadRowsQuery(row_filter=CellsColumnLimitFilter(1))):
        n += 1
    return n


def client_update(table, mode_entries=None):
    """A full read, then the batcher's puts for every tenth payment: its
    amount plus one, or (mode_entries: the by_mode index's table, as widecol
    UPDATEs the indexed shape) its mode with '+' appended, its old entry
    deleted and its new one put."""
    todo = []
    for row in table.read_rows_stream(ReadRowsQuery(row_filter=CellsColumnLimitFilter(1))):
        cells = {c.qualifier: c.value for c in row.cells}
        if int(cells[b"payment_id"]) % 10 == 0:
            todo.append((row.row_key, cells))
    with table.mutations_batcher() as b:
        for key, cells in todo:
            if mode_entries is None:
                new = str(float(cells[b"amount"]) + 1).encode()
                b.append(RowMutationEntry(key, [SetCell("_", "amount", new)]))
            else:
                b.append(RowMutationEntry(key, [SetCell("_", "mode", cells[b"mode"] + b"+")]))
    if mode_entries is not None:
        with mode_entries.mutations_batcher() as b:
            for key, cells in todo:
                old = b"%s_%06d_%s" % (cells[b"mode"], int(cells[b"customer_id"]), key)
                new = b"%s+_%06d_%s" % (cells[b"mode"], int(cells[b"customer_id"]), key)
                b.append(RowMutationEntry(old, [DeleteAllFromRow()]))
                b.append(RowMutationEntry(new, [SetCell("_", "e", b"")]))
    return len(todo)


def make_source(db, n):
    rng = random.Random(1)
    n_cust = max(n // 100, 1)
    db.execute("CREATE TABLE src(customer_id INTEGER, paid_at TEXT, payment_id INTEGER,"
               " amount REAL, mode TEXT)")
    db.executemany("INSERT INTO src VALUES (?, ?, ?, ?, ?)", (
        (rng.randrange(n_cust), "2017-%02d-%02d %02d:%02d:%02d" % (
            rng.randint(1, 12), rng.randint(1, 28), rng.randrange(24), rng.randrange(60),
            rng.randrange(60)),
         i, round(rng.uniform(1, 500), 2), rng.choice(["card", "cash", "wire"]))
        for i in range(n)))
    return n_cust


def rss_after_load(args, n):
    """Peak RSS (MiB) of a process that loads and scans n generated rows."""
    code = r'''
import os, sys
sys.path.insert(0, sys.argv[1])
import wctest
db = wctest.connect(sys.argv[2], bigtable=sys.argv[3], isolation_level=None)
db.execute("CREATE VIRTUAL TABLE m USING widecol(%s, STORAGE BIGTABLE '%s')")
db.execute("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
           "INSERT OR REPLACE INTO m SELECT x %% 10007, '2017-01-01 00:00:00', x, x * 0.5, "
           "'card' FROM i")
db.execute("SELECT count(*), sum(amount) FROM m").fetchone()
db.execute("DROP TABLE m")
# VmHWM, not getrusage's ru_maxrss: that one starts from the parent's
# peak (Linux keeps it across fork and exec), here gigabytes of rows.
with open("/proc/self/status") as f:
    print([line.split()[1] for line in f if line.startswith("VmHWM:")][0])
''' % (COLS, resource_name("mem%d" % n), n - 1)
    out = subprocess.run([sys.executable, "-c", code,
                          os.path.join(BENCH, "..", "tests", "lib"),
                          args.extension, args.bigtable],
                         capture_output=True, text=True, check=True, env=os.environ)
    return int(out.stdout.split()[-1]) / 1024.0


class Run:
    """What the phases share: the arguments, the source rows, the output."""

    def __init__(self, args):
        self.args = args
        self.n = args.rows
        self.n_plain = args.plain_rows or args.rows
        self.path = os.path.join(args.dir, "bigtable_scale.db")
        self.lines = []

    def say(self, line):
        self.lines.append(line)
        print(line, flush=True)

    def connect(self):
        db = wctest.connect(self.args.extension, self.path, bigtable=self.args.bigtable,
                            isolation_level=None)
        db.execute("SELECT widecol_progress(0)")
        return db


def load_shape(run, db, client, shape, extra):
    """The three loads of one table shape, widecol's and the client's."""
    n, n_plain, rows = run.n, run.n_plain, run.rows
    tag = "i" if extra else "n"
    progress("%s: INSERT OR REPLACE of %d rows" % (shape, n))
    db.execute("CREATE VIRTUAL TABLE r%s USING widecol(%s%s, STORAGE BIGTABLE '%s')"
               % (tag, COLS, extra, resource_name("r" + tag)))
    stats(db, "r" + tag, True)
    t_rep = timed(lambda: db.execute("INSERT OR REPLACE INTO r%s SELECT * FROM src" % tag))
    c_rep = stats(db, "r" + tag)["rpcs"]
    progress("%s: plain INSERT of %d rows" % (shape, n_plain))
    db.execute("CREATE VIRTUAL TABLE p%s USING widecol(%s%s, STORAGE BIGTABLE '%s')"
               % (tag, COLS, extra, resource_name("p" + tag)))
    stats(db, "p" + tag, True)
    t_ins = timed(lambda: db.execute("INSERT INTO p%s SELECT * FROM src LIMIT %d"
                                     % (tag, n_plain)))
    c_ins = stats(db, "p" + tag)["rpcs"]
    db.execute("DROP TABLE p%s" % tag)
    progress("%s: UPDATE of 10%%" % shape)
    stats(db, "r" + tag, True)
    set_col = "mode = mode || '+'" if extra else "amount = amount + 1"
    t_upd = timed(lambda: db.execute("UPDATE r%s SET %s WHERE payment_id %% 10 = 0"
                                     % (tag, set_col)))
    c_upd = stats(db, "r" + tag)["rpcs"]

    progress("%s: the client's batcher, %d rows" % (shape, n))
    ct = client.make("c" + tag)
    entries = []
    if extra:
        entries = [(client.make("c%s_day" % tag), lambda k, r: r[1].encode() + b"_" + k),
                   (client.make("c%s_mode" % tag),
                    lambda k, r: ("%s_%06d" % (r[4], r[0])).encode() + b"_" + k)]
    tc_rep = timed(lambda: client_load(ct, rows, entries))
    m = min(run.args.client_check_rows, n_plain)
    progress("%s: the client's CheckAndMutateRow, %d rows" % (shape, m))
    cp = client.make("cp" + tag)
    tc_ins = timed(lambda: (client_insert(cp, rows[:m]), client_entries(rows[:m], entries)))
    client.drop("cp" + tag)
    progress("%s: the client's UPDATE of 10%%" % shape)
    tc_upd = timed(lambda: client_update(ct, entries[1][0] if entries else None))
    run.say("  load, %s:" % shape)
    run.say("    INSERT OR REPLACE ... SELECT  %8.0f rows/s  %6.2fx client (%8.0f rows/s)  %d calls"
            % (n / t_rep, tc_rep / t_rep, n / tc_rep, c_rep))
    run.say("    plain INSERT ... SELECT       %8.0f rows/s  %6.2fx client (%8.0f rows/s, %d rows)"
            "  %d calls" % (n_plain / t_ins, (n_plain / t_ins) / (m / tc_ins), m / tc_ins, m,
                            c_ins))
    run.say("    UPDATE of 10%% (%d rows)    %8.2f s       %6.2fx client (%8.2f s)  %d calls"
            % (n // 10, t_upd, tc_upd / t_upd, tc_upd, c_upd))
    return t_rep


# Every column, as widecol_check reads them.
EVERY = ("SELECT count(*), sum(customer_id), max(paid_at), sum(payment_id), sum(amount),"
         " max(mode) FROM %s")


def check_phase(run, db):
    progress("widecol_check")
    t_scan = timed(lambda: db.execute(EVERY % "ri").fetchone())
    # What the check must read besides the rows: each INDEX whole, read
    # here by a covering query, as a user's query would read it.
    t_indexes = sum(timed(lambda: db.execute(
        "SELECT count(*) FROM ri WHERE %s >= ''" % col).fetchone())
        for col in ("paid_at", "mode"))
    stats(db, "ri", True)
    t_check = timed(lambda: db.execute("SELECT * FROM widecol_check('ri')").fetchall())
    calls = stats(db, "ri")["rpcs"]
    ok = db.execute("SELECT * FROM widecol_check('ri')").fetchall()
    run.say("  widecol_check, two INDEXes: %.1f s = %.2fx a full scan of every column (%.1f s),"
            " %.2fx that scan and each INDEX read whole by a covering query (%.1f s),"
            " %d calls, answer %r" % (t_check, t_check / t_scan, t_scan,
                                      t_check / (t_scan + t_indexes), t_scan + t_indexes,
                                      calls, ok[0][0]))


def cbt_phase(run):
    progress("cbt import of %d rows" % run.n)
    fd, path = tempfile.mkstemp(suffix=".csv", dir=run.args.dir)
    with os.fdopen(fd, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["", "customer_id", "paid_at", "payment_id", "amount", "mode"])
        for key, row in run.rows:
            w.writerow([key.decode()] + list(row))
    cbt("createtable", "viacbt")
    cbt("createfamily", "viacbt", "_")
    t_cbt = timed(lambda: cbt("import", "viacbt", path, "column-family=_", "batch-size=500",
                              "workers=1"))
    os.unlink(path)
    return t_cbt


def read_phase(run, db, client):
    n = run.n
    ctable = client.data.get_table(INSTANCE, "cn")
    progress("full scans")
    t_scan = min(timed(lambda: db.execute(EVERY % "rn").fetchone()) for _ in range(2))
    t_cscan = min(timed(lambda: client_scan(ctable)) for _ in range(2))
    t_cbtscan = timed(lambda: cbt("read", "viacbt", "cells-per-column=1"))
    run.say("  reads:")
    run.say("    full scan            %8.0f rows/s  %6.2fx client (%8.0f rows/s); cbt read"
            " %.0f rows/s" % (n / t_scan, t_cscan / t_scan, n / t_cscan, n / t_cbtscan))
    lo = run.n_cust // 2
    hi = lo + max(run.n_cust // 100, 1)
    nr = db.execute("SELECT count(*) FROM src WHERE customer_id >= ? AND customer_id < ?",
                    (lo, hi)).fetchone()[0]
    q_range = "SELECT * FROM rn WHERE customer_id >= ? AND customer_id < ?"
    stats(db, "rn", True)
    t_r = min(timed(lambda: db.execute(q_range, (lo, hi)).fetchall()) for _ in range(3))
    st = stats(db, "rn")
    rq = ReadRowsQuery(row_ranges=RowRange(b"%06d" % lo, b"%06d" % hi),
                       row_filter=CellsColumnLimitFilter(1))
    t_cr = min(timed(lambda: client_scan(ctable, rq)) for _ in range(3))
    t_cbtr = timed(lambda: cbt("read", "viacbt", "start=%06d" % lo, "end=%06d" % hi,
                               "cells-per-column=1"))
    run.say("    1%% range (%d rows)   %8.4f s       %6.2fx client (%8.4f s); cbt read %.4f s;"
            " %d calls for 3 reads" % (nr, t_r, t_cr / t_r, t_cr, t_cbtr, st["rpcs"]))
    cust = lo
    # paid_at is TEXT in a delimited key, whose byte order widecol does
    # not take for the text's: the key's order, which here is the
    # payment time's (fixed-width dates), is asked for by rowkey.
    q_new = "SELECT * FROM rn WHERE customer_id = ? ORDER BY rowkey DESC LIMIT 10"
    stats(db, "rn", True)
    k = 50
    t_n = timed(lambda: [db.execute(q_new, (cust,)).fetchall() for _ in range(k)]) / k
    st = stats(db, "rn")
    got = db.execute(q_new, (cust,)).fetchall()
    want = db.execute("SELECT * FROM src WHERE customer_id = ? ORDER BY paid_at DESC, "
                      "payment_id DESC LIMIT 10", (cust,)).fetchall()
    if [r[:3] for r in got] != [r[:3] for r in want]:
        sys.exit("bench/bigtable_scale.py: newest 10 differ: %r %r" % (got, want))
    # The client has no reversed reads: the customer's rows, the last 10.
    pq = ReadRowsQuery(row_ranges=RowRange(b"%06d_" % cust, b"%06d`" % cust),
                       row_filter=CellsColumnLimitFilter(1))
    t_cn = timed(lambda: [list(ctable.read_rows_stream(pq))[-10:] for _ in range(k)]) / k
    t_cbtn = timed(lambda: cbt("read", "viacbt", "prefix=%06d_" % cust, "reversed=true",
                               "count=10", "cells-per-column=1"))
    run.say("    newest 10 of one customer %8.5f s  %6.2fx client (%8.5f s, reads the customer"
            " forward); cbt read reversed=true %.4f s; rows_in %d for %d returned"
            % (t_n, t_cn / t_n, t_cn, t_cbtn, st["rows_in"] // k, 10))
    picks = random.Random(2).sample(run.rows, 500)
    q_pt = "SELECT * FROM rn WHERE customer_id = ? AND paid_at = ? AND payment_id = ?"
    t_p = timed(lambda: [db.execute(q_pt, r[:3]).fetchall() for _, r in picks]) / len(picks)
    t_cp = timed(lambda: [ctable.read_row(key) for key, _ in picks]) / len(picks)
    t_cbtp = timed(lambda: cbt("lookup", "viacbt", picks[0][0].decode()))
    run.say("    point lookup         %8.5f s       %6.2fx client (%8.5f s); cbt lookup %.4f s"
            % (t_p, t_cp / t_p, t_cp, t_cbtp))

    progress("widecol_lint")
    t_lint = timed(lambda: db.execute("SELECT * FROM widecol_lint('rn')").fetchall())
    run.say("  widecol_lint: %.1f s = %.2fx a full scan of every column (%.1f s)"
            % (t_lint, t_lint / t_scan, t_scan))

    # The database file opened again, in a process of its own (no
    # channel to the server yet): its first lookup.
    code = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import wctest
db = wctest.connect(sys.argv[2], sys.argv[4], bigtable=sys.argv[3], isolation_level=None)
row = json.loads(sys.argv[5])
t = time.perf_counter()
got = db.execute("%s", row).fetchall()
t = time.perf_counter() - t
print(t, json.loads(db.execute("SELECT widecol_stats('rn')").fetchone()[0])["rpcs"], len(got))
""" % q_pt
    f_out = subprocess.run([sys.executable, "-c", code, os.path.join(BENCH, "..", "tests", "lib"),
                            run.args.extension, run.args.bigtable, run.path,
                            json.dumps(list(picks[1][1][:3]))],
                           capture_output=True, text=True, check=True).stdout.split()
    run.say("  fresh connection (a new process): first point lookup %.1f ms, %s call(s), %s row"
            % (float(f_out[0]) * 1000, f_out[1], f_out[2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--plain-rows", type=int, default=0,
                    help="rows of the plain INSERT loads (default: --rows)")
    ap.add_argument("--client-check-rows", type=int, default=50000,
                    help="rows the client writes by CheckAndMutateRow")
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--bigtable", default="./widecol_bigtable")
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--phases", default="index,plain,memory",
                    help="which to run: index (two INDEXes, the check), plain (no INDEX,"
                         " cbt, the reads, lint, a fresh connection), memory")
    args = ap.parse_args()
    phases = args.phases.split(",")
    if any(ph not in PHASES for ph in phases):
        ap.error("--phases takes index, plain and memory, comma-separated")
    os.makedirs(args.dir, exist_ok=True)
    run = Run(args)
    # The emulator slows as it fills (it keeps everything in memory): a
    # call may wait longer than the 30 s default deadline.
    os.environ.setdefault("WIDECOL_BIGTABLE_TIMEOUT_MS", "600000")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(run.path + suffix):
            os.unlink(run.path + suffix)
    db = run.connect()
    db.execute("PRAGMA journal_mode = WAL")
    run.n_cust = make_source(db, run.n)
    run.rows = [(k.encode(), r) for k, *r in db.execute(
        "SELECT %s, customer_id, paid_at, payment_id, amount, mode FROM src" % KEY)]
    db.close()
    run.say("Bigtable emulator, %d rows (ratios: widecol over Google's Python client "
            "google-cloud-bigtable, same run; each phase on an emulator of its own)" % run.n)
    try:
        for phase in phases:
            proc = start_emulator()
            try:
                PHASES[phase](run)
            finally:
                proc.kill()
                proc.wait()
    finally:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(run.path + suffix):
                os.unlink(run.path + suffix)
    return 0


def phase_index(run):
    """Two INDEXes: the loads, and the check."""
    db = run.connect()
    load_shape(run, db, Client_(), "two INDEXes", INDEXES)
    check_phase(run, db)
    db.close()


def phase_plain(run):
    """No INDEX: the loads, cbt import, the reads, lint, a fresh connection."""
    db = run.connect()
    client = Client_()
    t_rep = load_shape(run, db, client, "no INDEX", "")
    t_cbt = cbt_phase(run)
    run.say("  cbt import (batch 500, 1 worker) %8.0f rows/s; widecol's INSERT OR REPLACE"
            " %.2fx it" % (run.n / t_cbt, t_cbt / t_rep))
    read_phase(run, db, client)
    db.close()


def phase_memory(run):
    """Peak RSS of loads of N/10 and N rows, each in a process of its own."""
    progress("memory")
    small, big = rss_after_load(run.args, run.n // 10), rss_after_load(run.args, run.n)
    run.say("  memory: peak RSS of a process loading and scanning %d rows %.0f MiB,"
            " %d rows %.0f MiB" % (run.n // 10, small, run.n, big))


PHASES = {"index": phase_index, "plain": phase_plain, "memory": phase_memory}


if __name__ == "__main__":
    sys.exit(main())
