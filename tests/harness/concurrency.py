#!/usr/bin/env python3
"""Concurrency test: several processes write one widecol table at once.

The table (WAL mode, busy timeout) has an INDEX and a FAMILY. Each of
--procs processes, in --txns transactions (BEGIN IMMEDIATE and BEGIN in
turn):
  - inserts --rows rows under its own ids (proc * 1,000,000 + i);
  - moves one row of its own to another group (an UPDATE of an index
    field);
  - adds 1 to a counter row that every process updates.
A transaction that meets SQLITE_BUSY is rolled back and retried. At the
end every row must be there once, the counter must equal the number of
transactions committed (no lost update), and widecol_check must say 'ok'.

Usage: concurrency.py [--extension ./widecol] [--procs 4] [--txns 50]
"""
import argparse
import multiprocessing
import os
import sqlite3
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

SCHEMA = """CREATE VIRTUAL TABLE t USING widecol(
  id INTEGER, grp INTEGER, v INTEGER, note TEXT,
  ROWKEY(id PAD 10), INDEX by_grp(grp PAD 4, v PAD 10), FAMILY n(note))"""
COUNTER = 999999999


def connect(path, ext):
    return wctest.connect(ext, path, isolation_level=None, timeout=30)


def worker(path, ext, proc, txns, rows, queue):
    db = connect(path, ext)
    retries = 0
    for txn in range(txns):
        while True:
            try:
                # Deferred transactions too: their first write may find the
                # snapshot stale (SQLITE_BUSY), and must then roll back whole.
                db.execute("BEGIN IMMEDIATE" if txn % 2 else "BEGIN")
                db.execute("SELECT v FROM t WHERE id = ?", (COUNTER,)).fetchone()
                base = proc * 1000000 + txn * rows
                for i in range(rows):
                    db.execute("INSERT INTO t VALUES (?, ?, ?, ?)",
                               (base + i, proc, base + i, "p%d" % proc))
                db.execute("UPDATE t SET grp = grp + 100 WHERE id = ?", (base,))
                db.execute("UPDATE t SET v = v + 1 WHERE id = ?", (COUNTER,))
                db.execute("COMMIT")
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    raise
                retries += 1
                if db.in_transaction:
                    db.execute("ROLLBACK")
    queue.put(retries)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--txns", type=int, default=50)
    ap.add_argument("--rows", type=int, default=20)
    args = ap.parse_args()
    ext = os.path.abspath(args.extension)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "conc.db")
        db = connect(path, ext)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(SCHEMA)
        db.execute("INSERT INTO t VALUES (?, 0, 0, NULL)", (COUNTER,))
        db.close()
        queue = multiprocessing.Queue()
        procs = [multiprocessing.Process(target=worker, args=(
            path, ext, p, args.txns, args.rows, queue)) for p in range(args.procs)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        retries = sum(queue.get() for _ in procs if not queue.empty())
        db = connect(path, ext)
        problems = []
        if any(p.exitcode for p in procs):
            problems.append("a writer failed")
        want = args.procs * args.txns * args.rows
        n, distinct = db.execute("SELECT count(*), count(DISTINCT id) FROM t "
                                 "WHERE id <> ?", (COUNTER,)).fetchone()
        if n != want or distinct != want:
            problems.append("%d rows (%d distinct), expected %d" % (n, distinct, want))
        counter = db.execute("SELECT v FROM t WHERE id = ?", (COUNTER,)).fetchone()[0]
        if counter != args.procs * args.txns:
            problems.append("counter %d, expected %d: an update was lost"
                            % (counter, args.procs * args.txns))
        moved = db.execute("SELECT count(*) FROM t WHERE grp >= 100").fetchone()[0]
        if moved != args.procs * args.txns:
            problems.append("%d rows moved, expected %d" % (moved, args.procs * args.txns))
        check = [r[0] for r in db.execute("SELECT * FROM widecol_check('t')")]
        if check != ["ok"]:
            problems.append("widecol_check: %s" % check[:3])
        print("concurrency: %d processes, %d transactions, %d rows, %d busy retries: %s"
              % (args.procs, args.procs * args.txns, want, retries,
                 "; ".join(problems) if problems else "nothing lost or duplicated, indexes in step"))
        return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
