#!/usr/bin/env python3
"""Crash test: kill -9 a process in the middle of writing a widecol table,
then reopen the database and check that nothing committed was lost and
nothing uncommitted is visible.

The table has an INDEX, a FAMILY and VERSIONS 3, so a write touches five
tables (an update moves the row's latest version to <name>_versions). A
child process writes transactions of --batch rows (row ids n, n+1, ...),
each row also updating one earlier row, and prints the row count after
each COMMIT. The parent kills it with SIGKILL after a random delay, at a
random point of some transaction, then checks, on reopening:
  - the row ids are exactly 0 .. count-1 and count is a whole number of
    batches: no transaction is partly there;
  - count is at least the last count the child reported: no commit lost;
  - every updated row holds the value its transaction wrote, and its
    versions = 3 are the last three values committed, newest first;
  - widecol_check says 'ok': index and family tables agree with the rows.
It does so in WAL and in rollback-journal (DELETE) mode.

Usage: crash.py [--extension ./widecol] [--iterations N] [--seed N]
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

SCHEMA = """CREATE VIRTUAL TABLE t USING widecol(
  id INTEGER, grp INTEGER, note TEXT, touched INTEGER,
  ROWKEY(id PAD 10 REVERSE), INDEX by_grp(grp PAD 4, id PAD 10),
  FAMILY n(note, touched), VERSIONS 3)"""


def connect(path, ext, mode):
    db = wctest.connect(ext, path, isolation_level=None, timeout=10)
    db.execute("PRAGMA journal_mode=%s" % mode)
    return db


def child(path, ext, mode, batch):
    """Writes batches until killed; prints the row count after each."""
    db = connect(path, ext, mode)
    n = db.execute("SELECT count(*) FROM t").fetchone()[0]
    while True:
        db.execute("BEGIN")
        for i in range(n, n + batch):
            db.execute("INSERT INTO t VALUES (?, ?, ?, NULL)", (i, i % 97, "row %d" % i))
            if i > 0:
                # Each row marks an earlier one with its own id.
                db.execute("UPDATE t SET touched = ? WHERE id = ?", (i, (i * 7919) % i))
        db.execute("COMMIT")
        n += batch
        print(n, flush=True)


def check(path, ext, mode, batch, reported):
    """Problems found on reopening, as a list of strings."""
    db = connect(path, ext, mode)
    problems = []
    ids = [r[0] for r in db.execute("SELECT id FROM t ORDER BY id")]
    count = len(ids)
    if ids != list(range(count)):
        problems.append("row ids are not 0..%d" % (count - 1))
    if count % batch:
        problems.append("%d rows: a transaction is partly there" % count)
    if count < reported:
        problems.append("%d rows, but %d were committed" % (count, reported))
    # The last writer of each touched row within the committed rows.
    want = {}
    for i in range(1, count):
        want[(i * 7919) % i] = i
    got = dict(db.execute("SELECT id, touched FROM t WHERE touched IS NOT NULL"))
    if got != want:
        problems.append("touched values differ from the committed updates")
    # Each row's versions: inserted with touched NULL, then each update.
    history = {i: [None] for i in range(count)}
    for i in range(1, count):
        history[(i * 7919) % i].append(i)
    got_versions = {}
    for i, touched in db.execute("SELECT id, touched FROM t WHERE versions = 3"):
        got_versions.setdefault(i, []).append(touched)
    if got_versions != {i: h[::-1][:3] for i, h in history.items()}:
        problems.append("versions = 3 differs from the last three committed values")
    result = [r[0] for r in db.execute("SELECT * FROM widecol_check('t')")]
    if result != ["ok"]:
        problems.append("widecol_check: %s" % result[:3])
    db.close()
    return problems, count


def run(ext, mode, iterations, batch, rng):
    killed_mid = rows = 0
    for it in range(iterations):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "crash.db")
            db = connect(path, ext, mode)
            db.execute(SCHEMA)
            db.close()
            proc = subprocess.Popen([sys.executable, __file__, "--child", path,
                                     "--extension", ext, "--mode", mode,
                                     "--batch", str(batch)],
                                    stdout=subprocess.PIPE)
            # Let it commit a few batches, then kill it at a random moment.
            reported, pending = 0, ""
            deadline = time.time() + rng.uniform(0.2, 1.5)
            fd = proc.stdout.fileno()
            os.set_blocking(fd, False)
            while time.time() < deadline and proc.poll() is None:
                try:
                    pending += os.read(fd, 65536).decode()
                except BlockingIOError:
                    time.sleep(0.005)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            os.set_blocking(fd, True)
            pending += proc.stdout.read().decode()
            # Only whole lines are reports of a finished COMMIT.
            lines = pending.split("\n")[:-1]
            if lines:
                reported = int(lines[-1])
            problems, count = check(path, ext, mode, batch, reported)
            killed_mid += count == reported
            rows += count
            if problems:
                print("crash: %s mode, iteration %d: %s" % (mode, it, "; ".join(problems)))
                return 1, killed_mid, rows
    return 0, killed_mid, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--batch", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--child")
    ap.add_argument("--mode", default="WAL")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.extension, args.mode, args.batch)
        return 0
    rng = random.Random(args.seed)
    failed = 0
    for mode in ("WAL", "DELETE"):
        f, mid, rows = run(args.extension, mode, args.iterations, args.batch, rng)
        failed += f
        print("crash: %s mode, %d kills, %d of them left a transaction to roll back, "
              "%d committed rows checked, %s" % (mode, args.iterations, mid, rows,
                                                 "nothing lost" if not f else "FAILED"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
