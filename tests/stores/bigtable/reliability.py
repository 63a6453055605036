#!/usr/bin/env python3
"""The Bigtable store under several clients, failed calls, transactions and
a server that freezes or dies: docs/bigtable.md, "What a statement
guarantees", checked case by case.

It starts its own emulator (it stops, kills and restarts it), runs writers
in several processes and connections at once on one Bigtable table, and
checks every outcome against what Google's cbt reads and against
widecol_check.  Each case is one the issue tracker recorded against widecol
1.0.1 (issue 28); its name says what must hold.

Usage: tests/stores/bigtable/reliability.py --emulator PATH [--extension ./widecol]
                               [--bigtable ./widecol_bigtable] [--only NAME]
       tests/stores/bigtable/reliability.py --worker JSON   (a writer process; internal)
"""
import argparse
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402
import writers  # noqa: E402
from writers import run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT, INSTANCE = "rel", "wc"


CHECKS = Checks("bigtable reliability")
expect = CHECKS.expect


def resource(table):
    return "projects/%s/instances/%s/tables/%s" % (PROJECT, INSTANCE, table)


def connect(ext, bigtable, path=":memory:"):
    return wctest.connect(ext, path, bigtable=bigtable, isolation_level=None, timeout=30)


def cbt(*words, check=True):
    out = subprocess.run(["cbt", "-project", PROJECT, "-instance", INSTANCE] + list(words),
                         capture_output=True)
    if check and out.returncode != 0:
        raise RuntimeError("cbt %s: %s" % (" ".join(words), out.stderr.decode()))
    return out.stdout.decode("utf-8", "surrogateescape")


def cbt_keys(table):
    """The row keys cbt reads, as text."""
    text = cbt("read", table, "cells-per-column=1")
    keys, new = [], True
    for line in text.split("\n"):
        if line.startswith("-----"):
            new = True
        elif new and line.strip():
            keys.append(line)
            new = False
    return keys


def cbt_tables():
    return cbt("ls").split()


class Emulator:
    """The emulator this run starts, stops, kills and starts again on the
    same port; stopped by its PID at the end."""

    def __init__(self, path):
        self.path = path
        self.port = wctest.free_port()
        self.proc = None
        self.start()
        os.environ["BIGTABLE_EMULATOR_HOST"] = "127.0.0.1:%d" % self.port

    def start(self):
        self.proc = subprocess.Popen([self.path, "-host", "127.0.0.1", "-port", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.1).close()
                return
            except OSError:
                time.sleep(0.025)
        raise RuntimeError("the emulator did not start")

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def freeze(self):
        """SIGSTOP, and until the process is stopped: kill() returns before
        it is, and on a busy machine the emulator answered one more call
        (a frozen server's SELECT came back at once)."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        for _ in range(200):
            with open("/proc/%d/stat" % self.proc.pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                    return
            time.sleep(0.01)

    def thaw(self):
        os.kill(self.proc.pid, signal.SIGCONT)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGCONT)
            except OSError:
                pass
            self.proc.kill()
            self.proc.wait()


# --- writer processes --------------------------------------------------------

def race(args, specs):
    """Runs writer processes of specs together; their outcomes, in order."""
    return writers.race(__file__, args.extension, args.bigtable, specs)


# --- the cases ----------------------------------------------------------------

def table_sql(name, extra=""):
    return ("CREATE VIRTUAL TABLE %s USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4)%s, "
            "STORAGE BIGTABLE '%s')" % (name, extra, resource(name)))


def case_read_keeps_write_error(args, path):
    """A read never drops a write's error, and the error lands on the
    statement that made it: in a transaction a plain INSERT of a key in use
    fails itself (a fresh connection, whose first read also counts rows)."""
    db = connect(args.extension, args.bigtable, path)
    db.execute(table_sql("t1"))
    db.execute("INSERT INTO t1 VALUES (1, 'a'), (3, 'x')")
    db.close()
    db = connect(args.extension, args.bigtable, path)
    db.execute("BEGIN")
    ins = run(db, "INSERT INTO t1 VALUES (1, 'c')")
    sel = run(db, "SELECT * FROM t1 WHERE k = 1")
    com = run(db, "COMMIT")
    expect("in a transaction, a plain INSERT of a key in use fails itself",
           ins[0] == "error" and "UNIQUE constraint failed: t1.rowkey" in ins[1]
           and sel == ("ok", [(1, "a")]) and com[0] == "ok", (ins, sel, com))
    db.execute("BEGIN")
    ins = run(db, "INSERT INTO t1 VALUES (1, 'd')")
    upd = run(db, "UPDATE t1 SET v = 'u' WHERE k = 3")
    com = run(db, "COMMIT")
    got = run(db, "SELECT * FROM t1 ORDER BY k")
    expect("an INSERT's failure is not reported by the next statement, which is applied",
           ins[0] == "error" and upd == ("ok", []) and com[0] == "ok"
           and got == ("ok", [(1, "a"), (3, "u")]), (ins, upd, com, got))
    # Autocommit: the statement's own rows, answered at its end.
    got = run(db, "INSERT INTO t1 VALUES (5, 'n'), (1, 'dup'), (6, 'n')")
    expect("in autocommit, a multi-row INSERT fails with the key in use, naming t1",
           got[0] == "error" and "UNIQUE constraint failed: t1.rowkey (a row with key '0001'"
           in got[1] and "t1_rows" not in got[1], got)
    db.execute("DROP TABLE t1")
    db.close()


def case_family_deleted(args, path):
    """After a column family is deleted (cbt deletefamily): a read says so,
    naming it, never NULLs; a write waiting in a transaction fails the
    COMMIT, and the read before it does not drop that."""
    db = connect(args.extension, args.bigtable, path)
    db.execute("CREATE VIRTUAL TABLE t2 USING widecol(k INTEGER, a TEXT, b TEXT, ROWKEY(k PAD 4), "
               "FAMILY p(b), STORAGE BIGTABLE '%s')" % resource("t2"))
    db.execute("INSERT INTO t2 VALUES (1, 'a1', 'b1'), (2, 'a2', NULL)")
    cbt("deletefamily", "t2", "p")
    got = run(db, "SELECT k, b FROM t2 ORDER BY k")
    expect("a deleted family: reading its column is an error naming it",
           got[0] == "error" and 'no column family "p"' in got[1] and "cbt createfamily" in got[1],
           got)
    got = run(db, "SELECT k, a FROM t2 ORDER BY k")
    expect("a deleted family: the other columns still read", got == ("ok", [(1, "a1"), (2, "a2")]),
           got)
    db.execute("BEGIN")
    ins = run(db, "INSERT OR REPLACE INTO t2 VALUES (3, 'a3', 'b3')")
    cnt = run(db, "SELECT count(*) FROM t2")
    com = run(db, "COMMIT")
    expect("a deleted family: a write waiting fails the COMMIT, naming the row",
           ins[0] == "ok" and cnt[0] == "ok" and com[0] == "error"
           and "row '0003'" in com[1] and "not written" in com[1], (ins, cnt, com))
    expect("a deleted family: nothing of the refused row is written",
           "0003" not in cbt_keys("t2"), cbt_keys("t2"))
    db.execute("DROP TABLE t2")
    db.close()


def case_ddl_rollback(args, path):
    """DDL inside a transaction: DROP deletes the Bigtable tables at COMMIT
    only; a CREATE rolled back leaves no Bigtable table behind."""
    db = connect(args.extension, args.bigtable, path)
    db.execute(table_sql("t3", ", INDEX by_v(v)"))
    db.execute("INSERT INTO t3 VALUES (1, 'a'), (2, 'b')")
    db.execute("BEGIN")
    db.execute("DROP TABLE t3")
    db.execute("ROLLBACK")
    tables = cbt_tables()
    got = run(db, "SELECT * FROM t3 ORDER BY k")
    idx = run(db, "SELECT k FROM t3 WHERE v = 'b'")
    expect("BEGIN; DROP TABLE; ROLLBACK keeps the Bigtable tables and their rows",
           "t3" in tables and "t3_idx_by_v" in tables and got == ("ok", [(1, "a"), (2, "b")])
           and idx == ("ok", [(2,)]), (tables, got, idx))
    db.execute("BEGIN")
    db.execute(table_sql("t4", ", INDEX by_v(v)"))
    db.execute("INSERT INTO t4 VALUES (1, 'a')")
    db.execute("ROLLBACK")
    tables = cbt_tables()
    expect("BEGIN; CREATE VIRTUAL TABLE ... INDEX; ROLLBACK leaves no Bigtable table",
           "t4" not in tables and "t4_idx_by_v" not in tables, tables)
    db.execute("BEGIN")
    db.execute("DROP TABLE t3")
    tables = cbt_tables()
    db.execute("COMMIT")
    after = cbt_tables()
    expect("DROP TABLE deletes the Bigtable tables at COMMIT",
           "t3" in tables and "t3" not in after and "t3_idx_by_v" not in after, (tables, after))
    db.close()


def case_index_table_gone(args, path):
    """An index's table deleted behind widecol: INSERT OR REPLACE fails, and
    the row is not written without its entry."""
    db = connect(args.extension, args.bigtable, path)
    db.execute(table_sql("t5", ", INDEX by_v(v)"))
    db.execute("INSERT INTO t5 VALUES (1, 'a')")
    cbt("deletetable", "t5_idx_by_v")
    got = run(db, "INSERT OR REPLACE INTO t5 VALUES (2, 'b')")
    expect("index table gone: INSERT OR REPLACE fails", got[0] == "error", got)
    expect("index table gone: the row is not written without its entry",
           cbt_keys("t5") == ["0001"], cbt_keys("t5"))
    run(db, "DROP TABLE t5")
    db.close()


def case_move_keeps(args, path):
    """A multi-row key move that hits a key in use (the second row onto the
    first's new key) says that the row it moved before stays moved, as cbt
    shows."""
    db = connect(args.extension, args.bigtable, path)
    db.execute("CREATE VIRTUAL TABLE t6 USING widecol(a INTEGER, d BLOB, v TEXT, "
               "ROWKEY(a PAD 2, d), STORAGE BIGTABLE '%s')" % resource("t6"))
    db.execute("INSERT INTO t6 VALUES (1, x'01', 'p'), (1, x'02', 'q')")
    got = run(db, "UPDATE t6 SET d = x'ff' WHERE a = 1")
    keys = cbt_keys("t6")
    expect("a failed key move says that the row it moved before stays moved",
           got[0] == "error" and "UNIQUE constraint failed" in got[1]
           and "the 1 row this UPDATE moved before it stays moved" in got[1]
           and keys == ["01_\x02", "01_\udcff"], (got, keys))
    db.execute("DROP TABLE t6")
    db.close()


def seed_rows(db, table, n, value="v"):
    db.execute("WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
               "INSERT INTO %s SELECT x, '%s' || x FROM i" % (n, table, value))


def case_update_delete_race(args, path, bIndex):
    """An UPDATE racing a DELETE over the same keys: no deleted row comes
    back, and with an INDEX no entry is left that a covering read returns
    for a row SELECT * does not have."""
    name = "t7i" if bIndex else "t7"
    extra = ", INDEX by_v(v)" if bIndex else ""
    db = connect(args.extension, args.bigtable, path)
    resurrected = orphans = rounds = conflicts = 0
    detail = []
    for r in range(4):
        run(db, "DROP TABLE IF EXISTS %s" % name)
        db.execute(table_sql(name, extra))
        seed_rows(db, name, 200)
        spec_u = {"setup": [table_sql(name, extra).replace("CREATE VIRTUAL TABLE",
                                                           "CREATE VIRTUAL TABLE IF NOT EXISTS")],
                  "statements": [["UPDATE %s SET v = v || 'x'" % name, []]]}
        spec_d = {"setup": spec_u["setup"],
                  "statements": [["DELETE FROM %s WHERE k %% 2 = ?" % name, [r % 2]]]}
        out_u, out_d = race(args, [spec_u, spec_d])
        rounds += 1
        keys = set(int(k) for k in cbt_keys(name))
        deleted = {k for k in range(1, 201) if k % 2 == r % 2}
        if out_d[0][0] == "ok":
            back = keys & deleted
            resurrected += len(back)
            if back:
                detail.append(("round", r, "back", sorted(back)[:5], out_u[0]))
        else:
            conflicts += 1
        if out_u[0][0] == "error":
            conflicts += 1
        if bIndex:
            star = sorted(run(db, "SELECT v FROM %s" % name)[1])
            cover = sorted(run(db, "SELECT v FROM %s WHERE v >= ''" % name)[1])
            if star != cover:
                orphans += len(set(cover) - set(star))
                detail.append(("round", r, "covering", len(cover), "star", len(star)))
            chk = run(db, "SELECT * FROM widecol_check('%s')" % name)
            if chk != ("ok", [("ok",)]):
                detail.append(("round", r, "check", chk))
                orphans += 1
    label = "with an INDEX" if bIndex else "without an index"
    expect("UPDATE racing DELETE, %s: no deleted row comes back (%d rounds, %d statements "
           "reported a conflict)" % (label, rounds, conflicts), resurrected == 0, detail)
    if bIndex:
        expect("UPDATE racing DELETE, with an INDEX: covering reads return only rows that exist, "
               "and widecol_check agrees", orphans == 0, detail)
    run(db, "DROP TABLE IF EXISTS %s" % name)
    db.close()


def case_lost_update(args, path, extra, label):
    """Two processes adding 1 to one row's counter, each 40 times: every
    UPDATE acknowledged is counted once (none acts on a row another
    changed after the statement read it; those fail, saying so)."""
    sql = ("CREATE VIRTUAL TABLE IF NOT EXISTS t16 USING widecol(k INTEGER, n INTEGER, v TEXT, "
           "ROWKEY(k PAD 4)%s, STORAGE BIGTABLE '%s')" % (extra, resource("t16")))
    db = connect(args.extension, args.bigtable, path)
    db.execute(sql)
    db.execute("INSERT INTO t16 VALUES (1, 0, 'x')")
    spec = {"setup": [sql], "repeat": 40,
            "statements": [["UPDATE t16 SET n = n + 1, v = 'w' || n WHERE k = 1", []]]}
    outs = race(args, [spec, spec])
    acked = sum(1 for out in outs for o in out if o[0] == "ok")
    errors = [o[1] for out in outs for o in out if o[0] == "error"]
    got = run(db, "SELECT n FROM t16 WHERE k = 1")
    unclear = [e for e in errors if "after this statement read it" not in e]
    expect("two processes incrementing one row %s: every acknowledged UPDATE counted once "
           "(%d of 80 acknowledged, the others refused as conflicts)" % (label, acked),
           got == ("ok", [(acked,)]) and not unclear and acked > 0,
           (acked, got, unclear[:2]))
    db.execute("DROP TABLE t16")
    db.close()


def case_versions_race(args, path):
    """Two writers doing INSERT OR REPLACE on one key of a VERSIONS 1000
    table: every write acknowledged is a version kept."""
    sql = ("CREATE VIRTUAL TABLE IF NOT EXISTS t8 USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4), "
           "VERSIONS 1000, STORAGE BIGTABLE '%s')" % resource("t8"))
    db = connect(args.extension, args.bigtable, path)
    db.execute(sql)
    spec = {"setup": [sql], "repeat": 30,
            "statements": [["INSERT OR REPLACE INTO t8 VALUES (1, ?)", ["w{i}"]]]}
    outs = race(args, [dict(spec, statements=[["INSERT OR REPLACE INTO t8 VALUES (1, ?)",
                                               ["a{i}"]]]),
                       dict(spec, statements=[["INSERT OR REPLACE INTO t8 VALUES (1, ?)",
                                               ["b{i}"]]])])
    acked = sum(1 for out in outs for o in out if o[0] == "ok")
    errors = [o[1] for out in outs for o in out if o[0] == "error"]
    kept = run(db, "SELECT count(*) FROM t8 WHERE versions = 1000 AND k = 1")
    expect("two writers, VERSIONS 1000: every acknowledged write is a version kept",
           kept == ("ok", [(acked,)]) and acked == 60 and not errors,
           (acked, kept, errors[:3]))
    db.execute("DROP TABLE t8")
    db.close()


def case_random_race(args, path):
    """RANDOM(n) inserts from three processes until 27 of 30 numbers are
    taken: a number another writer took is no UNIQUE error while numbers
    are free; the loser takes another."""
    sql = ("CREATE VIRTUAL TABLE IF NOT EXISTS t9 USING widecol(u TEXT, v INTEGER, "
           "ROWKEY(u, RANDOM(30)), STORAGE BIGTABLE '%s')" % resource("t9"))
    db = connect(args.extension, args.bigtable, path)
    spec = {"setup": [sql], "repeat": 9,
            "statements": [["INSERT INTO t9 VALUES ('u', ?)", ["{i}"]]]}
    errors, counts = [], []
    for _ in range(3):
        db.execute(sql)
        outs = race(args, [spec, spec, spec])
        errors += [o[1] for out in outs for o in out if o[0] == "error"]
        counts.append(run(db, "SELECT count(*) FROM t9"))
        db.execute("DROP TABLE t9")
    expect("RANDOM(30) from three processes, three times: no UNIQUE error while numbers are "
           "free, 27 rows each time", not errors and counts == [("ok", [(27,)])] * 3,
           (errors[:3], counts))
    db.close()


def case_foreign_cells(args, path):
    """Cells another program wrote to a key without widecol's marker (cbt
    set into a widecol table holding rows 1 and 2) are no row to any
    statement: a count, every column, one column, the keys, a lookup of
    that key all see rows 1 and 2 alone (docs/bigtable.md, Tables another
    application wrote to).  A plain INSERT onto that key is refused,
    saying why, and those cells stay; INSERT OR REPLACE writes the row
    over them."""
    db = connect(args.extension, args.bigtable, path)
    db.execute(table_sql("t10"))
    db.execute("INSERT INTO t10 VALUES (1, 'a'), (2, 'b')")
    cbt("set", "t10", "0007", "_:v=theirs")
    seen = {sql: run(db, sql) for sql in (
        "SELECT count(*) FROM t10", "SELECT * FROM t10 ORDER BY k",
        "SELECT count(v) FROM t10", "SELECT k FROM t10 ORDER BY k",
        "SELECT v FROM t10 ORDER BY v", "SELECT * FROM t10 WHERE k = 7")}
    want = {"SELECT count(*) FROM t10": ("ok", [(2,)]),
            "SELECT * FROM t10 ORDER BY k": ("ok", [(1, "a"), (2, "b")]),
            "SELECT count(v) FROM t10": ("ok", [(2,)]),
            "SELECT k FROM t10 ORDER BY k": ("ok", [(1,), (2,)]),
            "SELECT v FROM t10 ORDER BY v": ("ok", [("a",), ("b",)]),
            "SELECT * FROM t10 WHERE k = 7": ("ok", [])}
    expect("cells without the marker are no row to any statement", seen == want,
           {k: v for k, v in seen.items() if want[k] != v})
    got = run(db, "INSERT INTO t10 VALUES (7, 'mine')")
    cells = cbt("lookup", "t10", "0007")
    expect("a plain INSERT onto a key with another program's cells is refused, "
           "saying so, and the cells stay",
           got[0] == "error" and "without widecol's marker" in got[1]
           and "INSERT OR REPLACE" in got[1] and "theirs" in cells, (got, cells))
    got = run(db, "INSERT OR REPLACE INTO t10 VALUES (7, 'mine')")
    rows = run(db, "SELECT * FROM t10 ORDER BY k")
    expect("INSERT OR REPLACE writes the row over them",
           got[0] == "ok" and rows == ("ok", [(1, "a"), (2, "b"), (7, "mine")]), (got, rows))
    db.execute("DROP TABLE t10")
    db.close()


def case_takeover(args, path):
    """A second database takes over a Bigtable table only for the same
    design: another key codec is refused with what differs; GC rules weaker
    than the design are refused."""
    db1 = connect(args.extension, args.bigtable, path)
    db1.execute("CREATE VIRTUAL TABLE t11 USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4), "
                "STORAGE BIGTABLE '%s')" % resource("t11"))
    db1.execute("INSERT INTO t11 VALUES (5, 'five')")
    db2 = connect(args.extension, args.bigtable)
    other = run(db2, "CREATE VIRTUAL TABLE t11 USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 6), "
                     "STORAGE BIGTABLE '%s')" % resource("t11"))
    expect("another design over the same Bigtable table is refused, saying what differs",
           other[0] == "error" and "PAD 4" in other[1] and "PAD 6" in other[1], other)
    db2.close()
    db2 = connect(args.extension, args.bigtable)
    same = run(db2, "CREATE VIRTUAL TABLE t11 USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4), "
                    "STORAGE BIGTABLE '%s')" % resource("t11"))
    got = run(db2, "SELECT * FROM t11 WHERE k = 5")
    expect("the same design takes the table over and reads its rows",
           same[0] == "ok" and got == ("ok", [(5, "five")]), (same, got))
    run(db2, "DROP TABLE t11")
    expect("a DROP in the database that took the table over keeps it", "t11" in cbt_tables(),
           cbt_tables())
    db1.execute("DROP TABLE t11")
    db2.close()
    db1.close()
    cbt("createtable", "t12", "families=_:maxversions=1")
    db = connect(args.extension, args.bigtable)
    got = run(db, "CREATE VIRTUAL TABLE t12 USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4), "
                  "VERSIONS 3, TTL 3600, STORAGE BIGTABLE '%s')" % resource("t12"))
    expect("a VERSIONS 3, TTL 3600 design over a table keeping one version is refused, saying "
           "what to change", got[0] == "error" and "(maxversions=1)" in got[1]
           and "cbt setgcpolicy t12 _ 'maxversions=3 or maxage=3600s'" in got[1]
           and got[1].count("widecol t12:") == 1, got)
    # Changed as the message says, the table is taken over; its DROP keeps it.
    cbt("setgcpolicy", "t12", "_", "maxversions=3 or maxage=3600s")
    got = run(db, "CREATE VIRTUAL TABLE t12 USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4), "
                  "VERSIONS 3, TTL 3600, STORAGE BIGTABLE '%s')" % resource("t12"))
    run(db, "DROP TABLE t12")
    expect("with the rule changed as said, the table is taken over, and a DROP keeps it",
           got == ("ok", []) and "t12" in cbt_tables(), (got, cbt_tables()))
    cbt("deletetable", "t12", check=False)
    db.close()


def case_frozen(args, emu, path):
    """A frozen server (SIGSTOP, a stand-in for a partition): reads and
    writes fail at the deadline; sqlite3_interrupt() stops a call within a
    fraction of a second; after SIGCONT all is well."""
    os.environ["WIDECOL_BIGTABLE_TIMEOUT_MS"] = "1500"
    try:
        db = connect(args.extension, args.bigtable, path)
        db.execute(table_sql("t13"))
        db.execute("INSERT INTO t13 VALUES (1, 'a')")
        emu.freeze()
        began = time.monotonic()
        sel = run(db, "SELECT * FROM t13")
        took_sel = time.monotonic() - began
        began = time.monotonic()
        ins = run(db, "INSERT INTO t13 VALUES (2, 'b')")
        took_ins = time.monotonic() - began
        # The INSERT was sent before the server froze or while it was:
        # Bigtable may apply it when it wakes, and the message says so.
        expect("a frozen server: SELECT and INSERT fail at the deadline, saying so",
               sel[0] == "error" and ins[0] == "error" and "1500 ms" in sel[1]
               and "may yet apply" in ins[1] and took_sel < 4 and took_ins < 4,
               (sel, ins, took_sel, took_ins))
        os.environ["WIDECOL_BIGTABLE_TIMEOUT_MS"] = "60000"
        db2 = connect(args.extension, args.bigtable, path)
        timer = threading.Timer(0.5, db2.interrupt)
        began = time.monotonic()
        timer.start()
        # db2's first statement on t13: the call interrupted is the
        # planner's (SampleRowKeys, for the row estimate), and the
        # statement ends SQLITE_INTERRUPT as a call interrupted later does.
        try:
            db2.execute("SELECT * FROM t13").fetchall()
            got = ("ok", None)
        except sqlite3.Error as e:
            got = ("error", str(e), getattr(e, "sqlite_errorname", "?"))
        took = time.monotonic() - began
        expect("sqlite3_interrupt() cancels a call in flight within a fraction of a second",
               got[0] == "error" and "interrupted" in got[1] and took < 1.2, (got, took))
        expect("... the planner's call too, and the statement ends SQLITE_INTERRUPT",
               got[0] == "error" and got[2] == "SQLITE_INTERRUPT", got)
        emu.thaw()
        got = run(db, "SELECT * FROM t13 WHERE k = 1")
        expect("after SIGCONT the connection works", got == ("ok", [(1, "a")]), got)
        db2.close()
        db.execute("DROP TABLE t13")
        db.close()
    finally:
        emu.thaw()
        os.environ.pop("WIDECOL_BIGTABLE_TIMEOUT_MS", None)


def case_restart(args, emu, path):
    """SIGKILL and a restart on the same port: the next statement works at
    once (no reconnect backoff).  A server away for a while with its data
    kept (the fault proxy drops every connection and refuses new ones for
    0.8 s): a read in the middle of its rows resumes after the last row it
    delivered, and writes wait for the server, within the deadline."""
    db = connect(args.extension, args.bigtable, path)
    db.execute(table_sql("t14"))
    db.execute("INSERT INTO t14 VALUES (1, 'a')")
    emu.kill()
    emu.start()
    # The emulator keeps nothing: the table is made again, as widecol made it.
    db2 = connect(args.extension, args.bigtable)
    db2.execute(table_sql("t14"))
    db2.execute("INSERT INTO t14 VALUES (1, 'again')")
    began = time.monotonic()
    got = run(db, "SELECT * FROM t14")
    took = time.monotonic() - began
    expect("after a restart on the same port the next read works at once",
           got == ("ok", [(1, "again")]) and took < 1.0, (got, took))
    db2.execute("WITH RECURSIVE i(x) AS (SELECT 2 UNION ALL SELECT x + 1 FROM i WHERE x < 3000) "
                "INSERT OR REPLACE INTO t14 SELECT x, 'v' || x FROM i")
    db2.close()
    db.close()
    saved = os.environ["BIGTABLE_EMULATOR_HOST"]
    with FaultProxy("127.0.0.1", emu.port) as proxy:
        os.environ["BIGTABLE_EMULATOR_HOST"] = proxy.address()
        try:
            db = connect(args.extension, args.bigtable, path)
            cur = db.execute("SELECT k FROM t14")
            first = cur.fetchmany(10)
            proxy.refuse(0.8)
            began = time.monotonic()
            try:
                rest = cur.fetchall()
            except sqlite3.Error as e:
                rest = [("error", str(e))]
            took = time.monotonic() - began
            keys = [r[0] for r in first + rest]
            expect("a read while the server is away resumes when it is back, with every row once",
                   keys == list(range(1, 3001)) and took < 5 and proxy.counts()["refused"] > 0,
                   (len(keys), keys[:3], keys[-3:], took, proxy.counts()))
            proxy.refuse(0.8)
            began = time.monotonic()
            ins = run(db, "INSERT INTO t14 VALUES (5000, 'new')")
            upd = run(db, "UPDATE t14 SET v = 'changed' WHERE k = 2")
            took = time.monotonic() - began
            got = run(db, "SELECT k, v FROM t14 WHERE k IN (2, 5000) ORDER BY k")
            expect("an INSERT and an UPDATE while the server is away wait for it",
                   ins == ("ok", []) and upd == ("ok", []) and took < 5
                   and got == ("ok", [(2, "changed"), (5000, "new")]), (ins, upd, took, got))
            db.execute("DROP TABLE t14")
            db.close()
        finally:
            os.environ["BIGTABLE_EMULATOR_HOST"] = saved


def case_lost_answers(args, emu, path):
    """The fault proxy loses a fifth of the server's answers, after the
    server has applied the write: a plain INSERT whose answer is lost
    reads the row to learn whether it landed (by widecol's marker; on an
    EXISTING table, which has none, by its cells and their time), so each
    is acknowledged once, never refused as its own duplicate.  A key
    another program holds is still refused."""
    db = connect(args.extension, args.bigtable, path)
    db.execute(table_sql("t16"))
    db.execute("CREATE VIRTUAL TABLE t16x USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 4), "
               "CELLS(v '_:x' STRING), STORAGE BIGTABLE '%s' EXISTING WRITABLE)"
               % resource("t16"))
    db.close()
    cbt("set", "t16", "0999", "_:x=theirs")
    saved = os.environ["BIGTABLE_EMULATOR_HOST"]
    got = {}
    with FaultProxy("127.0.0.1", emu.port, seed=16) as proxy:
        os.environ["BIGTABLE_EMULATOR_HOST"] = proxy.address()
        try:
            db = connect(args.extension, args.bigtable, path)
            db.execute("SELECT count(*) FROM t16").fetchall()
            proxy.lose(0.2)
            for table, first in (("t16", 0), ("t16x", 100)):
                got[table] = [run(db, "INSERT INTO %s VALUES (?, 'mine')" % table, (k,))
                              for k in range(first, first + 40)]
            got["theirs"] = run(db, "INSERT INTO t16x VALUES (999, 'mine')")
            proxy.lose(0)
            lost = proxy.counts()["lost"]
            db.close()
        finally:
            os.environ["BIGTABLE_EMULATOR_HOST"] = saved
    keys = cbt_keys("t16")
    want = ["%04d" % k for k in list(range(0, 40)) + list(range(100, 140))] + ["0999"]
    errors = [r for t in ("t16", "t16x") for r in got[t] if r[0] != "ok"]
    theirs = got["theirs"]
    expect("answers lost after the write applied: every plain INSERT acknowledged once, "
           "with its marker and on an EXISTING table (%d answers lost)" % lost,
           not errors and keys == want and lost >= 10, (errors[:3], keys[:5], len(keys), lost))
    expect("answers lost: an INSERT onto another program's row is still refused",
           theirs[0] == "error" and "UNIQUE constraint failed" in theirs[1]
           and "theirs" in cbt("lookup", "t16", "0999"), theirs)
    db = connect(args.extension, args.bigtable, path)
    db.execute("DROP TABLE t16x")
    db.execute("DROP TABLE t16")
    db.close()


def case_plan_prices_calls(args, path):
    """ROWKEY(BUCKET(16, ts), ts PAD 8, h) with WHERE h = ?: a skip scan
    would cost a call per prefix on Bigtable; the planner prices calls and
    scans instead there, and EXPLAIN says why."""
    db = connect(args.extension, args.bigtable, path)
    db.execute("CREATE VIRTUAL TABLE t15 USING widecol(ts INTEGER, h TEXT, v INTEGER, "
               "ROWKEY(BUCKET(16, ts), ts PAD 8, h), STORAGE BIGTABLE '%s')" % resource("t15"))
    db.execute("WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 4000) "
               "INSERT OR REPLACE INTO t15 SELECT x, 'host' || (x % 100), x FROM i")
    plan = " ".join(r[3] for r in db.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM t15 WHERE h = 'host42'"))
    db.execute("SELECT widecol_stats('t15', 1)")
    rows = run(db, "SELECT count(*) FROM t15 WHERE h = 'host42'")
    stats = json.loads(db.execute("SELECT widecol_stats('t15')").fetchone()[0])
    expect("a skip scan is chosen on Bigtable only when cheaper in calls, and EXPLAIN says why",
           rows == ("ok", [(40,)]) and stats["rpcs"] < 100
           and "no skip scan: more than 64 prefixes of 16 buckets x ts, two calls each" in plan,
           (plan, rows, stats))
    db.execute("DROP TABLE t15")
    db.close()


CASES = [
    ("read_keeps_write_error", lambda a, e, p: case_read_keeps_write_error(a, p)),
    ("family_deleted", lambda a, e, p: case_family_deleted(a, p)),
    ("ddl_rollback", lambda a, e, p: case_ddl_rollback(a, p)),
    ("index_table_gone", lambda a, e, p: case_index_table_gone(a, p)),
    ("move_keeps", lambda a, e, p: case_move_keeps(a, p)),
    ("update_delete_race", lambda a, e, p: case_update_delete_race(a, p, False)),
    ("update_delete_race_index", lambda a, e, p: case_update_delete_race(a, p, True)),
    ("lost_update", lambda a, e, p: case_lost_update(a, p, "", "without an index")),
    ("lost_update_index", lambda a, e, p: case_lost_update(a, p, ", INDEX by_v(v)",
                                                           "with an INDEX")),
    ("lost_update_versions", lambda a, e, p: case_lost_update(a, p, ", VERSIONS 5",
                                                              "of a VERSIONS 5 table")),
    ("versions_race", lambda a, e, p: case_versions_race(a, p)),
    ("random_race", lambda a, e, p: case_random_race(a, p)),
    ("foreign_cells", lambda a, e, p: case_foreign_cells(a, p)),
    ("takeover", lambda a, e, p: case_takeover(a, p)),
    ("frozen", lambda a, e, p: case_frozen(a, e, p)),
    ("restart", lambda a, e, p: case_restart(a, e, p)),
    ("plan_prices_calls", lambda a, e, p: case_plan_prices_calls(a, p)),
    ("lost_answers", lambda a, e, p: case_lost_answers(a, e, p)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--emulator")
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--bigtable", default="./widecol_bigtable")
    ap.add_argument("--only", action="append")
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        writers.worker(json.loads(args.worker))
        return 0
    emu = Emulator(args.emulator)
    tmp = tempfile.mkdtemp(prefix="widecol-rel-")
    try:
        for name, fn in CASES:
            if args.only and name not in args.only:
                continue
            path = os.path.join(tmp, name + ".db")
            try:
                fn(args, emu, path)
            except Exception as e:  # a case that cannot run is a failure
                expect(name, False, "%s: %s" % (type(e).__name__, e))
                if emu.proc.poll() is not None:
                    emu.start()
                else:
                    emu.thaw()
    finally:
        emu.stop()
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
