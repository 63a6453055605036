#!/usr/bin/env python3
"""The Bigtable store seen from outside, and its errors.

Run by tests/stores/bigtable/run.sh with BIGTABLE_EMULATOR_HOST set to a running
emulator.  What widecol wrote is read back with Google's own client, cbt:
the row keys (byte for byte the keys the local store writes), the column
families and their GC rules, every cell's family, qualifier and value, each
value checked against docs/bigtable.md's byte format as Python's struct
module packs it.  Then the failures a user meets: the Bigtable table deleted
behind widecol's back, a value over Bigtable's cell limit, the emulator
stopped in the middle of a read and of a write, no endpoint at all, and
Google's endpoint from a machine that cannot reach it.

Usage: tests/stores/bigtable/check.py --emulator PATH [--extension ./widecol]
                         [--bigtable ./widecol_bigtable]
"""
import argparse
import datetime
import json
import os
import re
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402


CHECKS = Checks("bigtable check")
expect = CHECKS.expect


def connect(args):
    return wctest.connect(args.extension, bigtable=args.bigtable, isolation_level=None)


def cbt(project, instance, *words):
    out = subprocess.run(["cbt", "-project", project, "-instance", instance] + list(words),
                         capture_output=True, check=True)
    return out.stdout


def go_unquote(s):
    """The bytes of a Go %q string as cbt prints a cell value."""
    assert s[0] == '"' and s[-1] == '"', s
    s, out, i = s[1:-1], bytearray(), 0
    simple = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
        elif s[i + 1] == "x":
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        elif s[i + 1] in "uU":
            n = 4 if s[i + 1] == "u" else 8
            out += chr(int(s[i + 2:i + 2 + n], 16)).encode("utf-8")
            i += 2 + n
        else:
            out.append(simple[s[i + 1]])
            i += 2
    return bytes(out)


def cbt_versions(project, instance, table, *words):
    """{row key: {"family:qualifier": [(timestamp micros, value), ...]}}
    of the cells cbt reads (more words: its options), newest first."""
    text = cbt(project, instance, "read", table, *words).decode("utf-8", "surrogateescape")
    rows, key, cell = {}, None, None
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    for line in text.split("\n"):
        if line.startswith("-----"):
            key = None
        elif key is None and line.strip():
            key = line.encode("utf-8", "surrogateescape")
            rows[key] = {}
        elif line.startswith("    "):
            rows[key][cell][-1] = (rows[key][cell][-1][0], go_unquote(line.strip()))
        elif line.startswith("  "):
            cell, stamp = line.strip().split(" ")[0], line.split("@")[1].strip()
            when = datetime.datetime.strptime(stamp, "%Y/%m/%d-%H:%M:%S.%f").replace(
                tzinfo=datetime.timezone.utc)
            micros = (when - epoch) // datetime.timedelta(microseconds=1)
            rows[key].setdefault(cell, []).append((micros, None))
    return rows


def cbt_rows(project, instance, table):
    """{row key: {"family:qualifier": value}} of the latest cells."""
    return {k: {c: cells[0][1] for c, cells in row.items()}
            for k, row in cbt_versions(project, instance, table, "cells-per-column=1").items()}


def integer(v):
    return b"\xf9" + struct.pack(">q", v)


def marker(value, n_index, n_col):
    """(write stamp, [index entry stamps], [column has a cell]) of a row
    marker as docs/bigtable.md lays it out, or None if it is not one."""
    if len(value) != 1 + 8 * (1 + n_index) + (n_col + 7) // 8 or value[0] != 1:
        return None
    stamps = [value[1 + 8 * i:9 + 8 * i] for i in range(1 + n_index)]
    bits = value[1 + 8 * (1 + n_index):]
    return stamps[0], stamps[1:], [bool(bits[i // 8] >> (i % 8) & 1) for i in range(n_col)]


def groups(cells):
    """{stamp: {column: value}} of an index entry's cells: qualifiers "\0",
    the write's 8-character stamp, the column's name ("" the marker)."""
    out = {}
    for cell, value in cells.items():
        fam, qual = cell.split(":", 1)
        q = qual.encode("utf-8", "surrogateescape")
        assert fam == "_" and q[:1] == b"\x00" and len(q) >= 9, cell
        out.setdefault(q[1:9], {})[q[9:].decode()] = value
    return out


def real(v):
    return b"\xfa" + struct.pack(">d", v)


def check_layout(args):
    """Keys, families, GC rules and cells, as cbt reads them."""
    db = connect(args)
    db.execute("""CREATE VIRTUAL TABLE pay USING widecol(
        customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
        ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9),
        FAMILY p(amount, mode),
        INDEX by_id(payment_id PAD 9),
        STORAGE BIGTABLE 'projects/chk/instances/wc/tables/pay')""")
    db.execute("""INSERT INTO pay VALUES
        (123, '01-01-2017 09:00:00', 12345678, 10.5, 'card'),
        (23, '01-01-2017 09:07:00', 12345683, -2.0, NULL),
        (7, 'é\u65e5', 1, NULL, x'00ff')""")
    rows = cbt_rows("chk", "wc", "pay")
    k1 = b"000123_01-01-2017 09:00:00_012345678"
    k2 = b"000023_01-01-2017 09:07:00_012345683"
    k3 = "000007_é\u65e5_000000001".encode("utf-8")
    expect("cbt read: the row keys, byte for byte", sorted(rows) == sorted([k1, k2, k3]),
           sorted(rows))
    local = {bytes(r[0]) for r in db.execute("SELECT rowkey FROM pay")}
    expect("cbt read: the keys widecol reads back", local == set(rows), local)
    want = {
        k1: {"_:customer_id": integer(123), "_:paid_at": b"01-01-2017 09:00:00",
             "_:payment_id": integer(12345678), "p:amount": real(10.5), "p:mode": b"card"},
        k2: {"_:customer_id": integer(23), "_:paid_at": b"01-01-2017 09:07:00",
             "_:payment_id": integer(12345683), "p:amount": real(-2.0)},
        k3: {"_:customer_id": integer(7), "_:paid_at": "é\u65e5".encode("utf-8"),
             "_:payment_id": integer(1), "p:mode": b"\xfb\x00\xff"},
    }
    cols = ["_:customer_id", "_:paid_at", "_:payment_id", "p:amount", "p:mode"]
    marks = {}
    for k in want:
        got = dict(rows.get(k, {}))
        marks[k] = marker(got.pop("_:", b""), 1, len(cols))
        expect("cbt read: the cells of %r" % k, got == want[k], got)
        # The marker: a stamp per write and per index entry, and a bit for
        # each column that has a cell.
        expect("cbt read: the marker of %r" % k, marks[k] is not None
               and marks[k][2] == [c in want[k] for c in cols]
               and all(s.isalnum() and len(s) == 8 for s in [marks[k][0]] + marks[k][1]),
               rows.get(k, {}).get("_:"))
    expect("cbt count", cbt("chk", "wc", "count", "pay").strip() == b"3")
    fams = cbt("chk", "wc", "ls", "pay").decode()
    expect("cbt ls: families _ and p, one version kept",
           "_\t\tversions() > 1" in fams and "p\t\tversions() > 1" in fams, fams)
    tables = cbt("chk", "wc", "ls").decode().split()
    expect("cbt ls: the index is a table of its own", "pay_idx_by_id" in tables, tables)
    # An index key: the index's fields, the delimiter, then the row key
    # (docs/encoding.md); the cell "_:rowkey" holds the row key as a BLOB.
    idx = cbt_rows("chk", "wc", "pay_idx_by_id")
    want_idx = {b"012345678_" + k1: k1, b"012345683_" + k2: k2, b"000000001_" + k3: k3}
    expect("cbt read: the index entries", sorted(idx) == sorted(want_idx), sorted(idx))
    # Each entry: one group of cells, under the stamp its row's marker
    # names for this index, holding the row key as a BLOB.
    ok = True
    for k, rk in want_idx.items():
        g = groups(idx.get(k, {}))
        ok = ok and list(g) == [marks[rk][1][0]] and g[marks[rk][1][0]].get("rowkey") == b"\xfb" + rk
    expect("cbt read: each entry's group, named by its row's marker", ok, idx)
    # A value that starts with a byte UTF-8 never starts with is escaped.
    db.execute("INSERT INTO pay VALUES (1, 'x', 1, 0, CAST(x'f9616263' AS TEXT))")
    got = db.execute("SELECT hex(mode), typeof(mode) FROM pay WHERE customer_id = 1").fetchone()
    cell = cbt_rows("chk", "wc", "pay")[b"000001_x_000000001"]["p:mode"]
    expect("a text starting with 0xF9 round-trips, escaped", got == ("F9616263", "text")
           and cell == b"\xff\xf9abc", (got, cell))
    # Deleted behind widecol's back: a clear error, naming what to do.
    cbt("chk", "wc", "deletetable", "pay")
    try:
        db.execute("SELECT * FROM pay").fetchall()
        expect("table deleted behind widecol's back", False, "no error")
    except sqlite3.Error as e:
        expect("table deleted behind widecol's back",
               "projects/chk/instances/wc/tables/pay" in str(e) and "gone" in str(e)
               and os.environ["BIGTABLE_EMULATOR_HOST"] in str(e), e)
    db.execute("DROP TABLE pay")
    tables = cbt("chk", "wc", "ls").decode().split()
    expect("DROP TABLE deletes the index's table too", "pay_idx_by_id" not in tables, tables)
    db.close()


def check_versions(args):
    """VERSIONS and TTL: each version's cells stamped with its rowtime,
    every column written (a NULL as the cell 0xF8), the older ones kept as
    VERSIONS says, the GC rule of every family, and an index's cells
    stamped with their row's rowtime."""
    db = connect(args)
    db.execute("SELECT widecol_clock(4102444800000000)")
    db.execute("""CREATE VIRTUAL TABLE h USING widecol(k TEXT, v INTEGER, n TEXT,
        ROWKEY(k), FAMILY f(n), INDEX by_v(v), VERSIONS 2, TTL 3600,
        STORAGE BIGTABLE 'projects/chk/instances/wc/tables/hist')""")
    t1, t2, t3 = 4102444000000000, 4102444001000000, 4102444002000000
    db.execute("INSERT INTO h(k, v, n, rowtime) VALUES ('r1', 1, 'x', ?)", (t1,))
    db.execute("INSERT OR REPLACE INTO h(k, v, n, rowtime) VALUES ('r1', 2, NULL, ?)", (t2,))
    db.execute("INSERT OR REPLACE INTO h(k, v, n, rowtime) VALUES ('r1', 3, 'z', ?)", (t3,))
    rows = cbt_versions("chk", "wc", "hist")
    # VERSIONS 2: the versions of t3 and t2; t1's cells were dropped.  Each
    # version has its marker: its own write's stamp, every column a cell.
    want = {b"r1": {"_:k": [(t3, b"r1"), (t2, b"r1")],
                    "_:v": [(t3, integer(3)), (t2, integer(2))],
                    "f:n": [(t3, b"z"), (t2, b"\xf8")]}}
    got = {k: {c: v for c, v in r.items() if c != "_:"} for k, r in rows.items()}
    expect("cbt read: a version per rowtime, every column, NULL as 0xF8", got == want, rows)
    marks = [(t, marker(v, 1, 3)) for t, v in rows.get(b"r1", {}).get("_:", [])]
    expect("cbt read: a marker per version, stamped with its rowtime",
           [t for t, _ in marks] == [t3, t2] and all(m and m[2] == [True] * 3 for _, m in marks)
           and marks[0][1][0] != marks[1][1][0], marks)
    fams = cbt("chk", "wc", "ls", "hist").decode()
    expect("cbt ls: VERSIONS 2 and TTL 3600 are each family's GC rule",
           "_\t\t(versions() > 2 || age() > 1h)" in fams
           and "f\t\t(versions() > 2 || age() > 1h)" in fams, fams)
    idx = cbt_versions("chk", "wc", "hist_idx_by_v")
    latest = {c: v[0][1] for c, v in idx.get(b"3_r1", {}).items()}
    expect("cbt read: the index entry stamped with its row's rowtime",
           sorted(idx) == [b"3_r1"] and all(c[0][0] == t3 and len(c) == 1
                                            for c in idx[b"3_r1"].values())
           and list(groups(latest)) == [marks[0][1][1][0]], idx)
    fams = cbt("chk", "wc", "ls", "hist_idx_by_v").decode()
    expect("cbt ls: the index ages out with its rows",
           "_\t\t(versions() > 1 || age() > 1h)" in fams, fams)
    got = db.execute("SELECT v, n, rowtime FROM h WHERE versions = 2").fetchall()
    expect("widecol reads the versions cbt shows", got == [(3, "z", t3), (2, None, t2)], got)
    db.execute("DROP TABLE h")
    tables = cbt("chk", "wc", "ls").decode().split()
    expect("DROP TABLE deletes a versioned table once",
           "hist" not in tables and "hist_idx_by_v" not in tables, tables)
    db.close()


def check_range_sets(args):
    """The ranges of an ascending scan go in one ReadRows of several row
    ranges, read in pages of 2, then 16 rows: six keys of an IN list, four
    of them present, are two calls where one call per range made six.  The
    statement runs twice, so the second is planned already (sqlite3's
    statement cache) and counts only its reads."""
    db = connect(args)
    db.execute("""CREATE VIRTUAL TABLE ev USING widecol(host TEXT, ts INTEGER, v TEXT,
        ROWKEY(host, ts PAD 6), STORAGE BIGTABLE 'projects/chk/instances/wc/tables/evset')""")
    db.execute("INSERT INTO ev VALUES ('h1',1,'a'),('h1',2,'b'),('h2',3,'c'),('h3',1,'d'),('h3',3,'e')")
    q = "SELECT host, ts FROM ev WHERE host IN ('h1', 'h2', 'h3') AND ts IN (1, 3)"
    for _ in range(2):
        db.execute("SELECT widecol_stats('ev', 1)").fetchone()
        rows = db.execute(q).fetchall()
        stats = json.loads(db.execute("SELECT widecol_stats('ev')").fetchone()[0])
    expect("an IN list's ranges: the rows", rows == [("h1", 1), ("h2", 3), ("h3", 1), ("h3", 3)], rows)
    expect("an IN list's ranges: six seeks in two ReadRows",
           (stats["seeks"], stats["rows_read"], stats["rpcs"]) == (6, 4, 2), stats)
    db.execute("DROP TABLE ev")
    db.close()


def check_cell_limit(args):
    db = connect(args)
    db.execute("CREATE VIRTUAL TABLE big USING widecol(k INTEGER, v BLOB, ROWKEY(k PAD 3), "
               "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/big')")
    db.execute("INSERT INTO big VALUES (1, x'01')")
    try:
        db.execute("INSERT OR REPLACE INTO big VALUES (2, zeroblob(100 * 1024 * 1024))")
        expect("a value over the cell limit", False, "no error")
    except sqlite3.Error as e:
        # The type byte makes it one more than 100 MiB: the message says
        # exactly what a BLOB may hold.
        expect("a value over the cell limit", "column v takes 104857601 bytes" in str(e)
               and "more than the 104857600 a cell may hold" in str(e)
               and "a BLOB may hold at most 104857599 bytes" in str(e), e)
    expect("nothing of it written", cbt("chk", "wc", "count", "big").strip() == b"1")
    db.execute("DROP TABLE big")
    db.close()


def start_emulator(path):
    port = wctest.free_port()
    proc = subprocess.Popen([path, "-host", "127.0.0.1", "-port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.1).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the emulator did not start")


def check_stopped(args):
    """The emulator stops in the middle of a read, and of a write: each is
    retried (the server may come back) until the deadline, 2 s here, then
    fails loudly."""
    saved = os.environ["BIGTABLE_EMULATOR_HOST"]
    proc, port = start_emulator(args.emulator)
    os.environ["BIGTABLE_EMULATOR_HOST"] = "127.0.0.1:%d" % port
    os.environ["WIDECOL_BIGTABLE_TIMEOUT_MS"] = "2000"
    try:
        db = connect(args)
        db.execute("CREATE VIRTUAL TABLE s USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 6), "
                   "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/s')")
        db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
                   "INSERT OR REPLACE INTO s SELECT i, 'v' || i FROM n")
        cur = db.execute("SELECT k FROM s")
        first = cur.fetchmany(5)
        proc.kill()
        proc.wait()
        began = time.monotonic()
        try:
            rest = cur.fetchall()
            expect("emulator stopped mid-read", False, "read %d rows" % (len(first) + len(rest)))
        except sqlite3.Error as e:
            expect("emulator stopped mid-read", "is the emulator running?" in str(e)
                   and "retried until the deadline" in str(e) and str(port) in str(e), e)
        took = time.monotonic() - began
        # The retries end with the deadline the wait that failed had: 2 s
        # after the read asked for its next rows (not 2 s after the
        # failure, which may itself come at that deadline).
        expect("emulator stopped mid-read: retried within the deadline", 0.5 < took < 3, took)
        began = time.monotonic()
        try:
            db.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) "
                       "INSERT OR REPLACE INTO s SELECT i, 'w' FROM n")
            expect("emulator stopped: a write fails loudly", False, "no error")
        except sqlite3.Error as e:
            expect("emulator stopped: a write fails loudly",
                   "10 rows may not have been written" in str(e) and "could not write" in str(e)
                   and "Bigtable may yet apply them" in str(e)
                   and "is the emulator running?" in str(e), e)
        took = time.monotonic() - began
        expect("emulator stopped: the write retried within the deadline", 0.5 < took < 4, took)
        # Nothing of the table lives in the SQLite database itself.
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")]
        expect("no rows kept locally", all("VIRTUAL" in (db.execute(
            "SELECT sql FROM sqlite_schema WHERE name = ?", (n,)).fetchone()[0] or "")
            for n in names), names)
        db.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        os.environ["BIGTABLE_EMULATOR_HOST"] = saved
        del os.environ["WIDECOL_BIGTABLE_TIMEOUT_MS"]


def check_endpoints(args):
    saved = os.environ.pop("BIGTABLE_EMULATOR_HOST")
    create = ("CREATE VIRTUAL TABLE e USING widecol(a INTEGER, ROWKEY(a), "
              "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/e')")
    try:
        db = connect(args)
        os.environ.pop("WIDECOL_BIGTABLE_TOKEN", None)
        try:
            db.execute(create)
            expect("no endpoint", False, "no error")
        except sqlite3.Error as e:
            expect("no endpoint", "set BIGTABLE_EMULATOR_HOST" in str(e)
                   and "WIDECOL_BIGTABLE_TOKEN" in str(e), e)
        # Google's endpoint over TLS with a token: built, and tried as far
        # as a machine without the network allows (the name does not
        # resolve); the token itself never appears anywhere.
        # A call waits for a connection until its deadline, 1 s here.
        os.environ["WIDECOL_BIGTABLE_TOKEN"] = "not-a-real-token"
        os.environ["WIDECOL_BIGTABLE_TIMEOUT_MS"] = "1000"
        db.close()
        db = connect(args)
        began = time.monotonic()
        try:
            db.execute(create)
            expect("Google's endpoint, unreachable", False, "no error")
        except sqlite3.Error as e:
            expect("Google's endpoint, unreachable", "googleapis.com" in str(e)
                   and "no connection to the server within the deadline, 1000 ms" in str(e)
                   and "check the network and the endpoint" in str(e)
                   and "not-a-real-token" not in str(e), e)
        took = time.monotonic() - began
        expect("Google's endpoint, unreachable: within the deadline", 0.9 < took < 3, took)
        schema = " ".join(r[0] or "" for r in db.execute("SELECT sql FROM sqlite_schema"))
        expect("no secret in the schema", "not-a-real-token" not in schema, schema)
        db.close()
    finally:
        os.environ.pop("WIDECOL_BIGTABLE_TOKEN", None)
        os.environ.pop("WIDECOL_BIGTABLE_TIMEOUT_MS", None)
        os.environ["BIGTABLE_EMULATOR_HOST"] = saved


def check_wide(args):
    """A statement using 200 of 400 long-named columns: its filter would
    pass Bigtable's 4 KiB limit, so every column is read and SQLite trims."""
    db = connect(args)
    cols = ", ".join("column_with_a_long_name_%03d INTEGER" % i for i in range(400))
    db.execute("CREATE VIRTUAL TABLE w4 USING widecol(k INTEGER, %s, ROWKEY(k PAD 4), "
               "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/w4')" % cols)
    db.execute("INSERT INTO w4(k, column_with_a_long_name_006, column_with_a_long_name_399)"
               " VALUES (1, 6, 399)")
    sel = ", ".join("column_with_a_long_name_%03d" % i for i in range(0, 400, 2))
    db.execute("SELECT count(*) FROM w4 WHERE k = 1")  # planning's reads
    db.execute("SELECT widecol_stats('w4', 1)")
    try:
        row = db.execute("SELECT %s, column_with_a_long_name_399 FROM w4 WHERE k = 1"
                         % sel).fetchone()
        expect("a read filter over 4 KiB: the rows", len(row) == 201 and row[3] == 6
               and row[-1] == 399 and sum(v is not None for v in row) == 2, row)
    except sqlite3.Error as e:
        expect("a read filter over 4 KiB: the rows", False, e)
    # The emulator takes filters of any size, Bigtable not: the request
    # sent (one ReadRows) must stay under the limit.
    st = json.loads(db.execute("SELECT widecol_stats('w4')").fetchone()[0])
    expect("a read filter over 4 KiB: the request is smaller",
           st["rpcs"] == 1 and st["bytes_out"] < 4096, st)
    db.execute("DROP TABLE w4")
    db.close()


def check_ddl(args):
    """widecol_ddl(..., 'bigtable') run as it is, by sh, with Google's cbt:
    the tables, families and GC rules it makes are the design's."""
    db = connect(args)
    db.execute("CREATE VIRTUAL TABLE dd USING widecol(host TEXT, ts INTEGER, v REAL, "
               "ROWKEY(BUCKET(4, ts), host, ts PAD 10), FAMILY m(v), INDEX by_v(host, ts PAD 10), "
               "VERSIONS 3, TTL 86400)")
    script = db.execute("SELECT widecol_ddl('dd', 'bigtable')").fetchone()[0]
    run = subprocess.run(["sh", "-c", 'cbt() { command cbt -project chk -instance wc "$@"; }\n'
                          + script], capture_output=True, text=True)
    expect("widecol_ddl's cbt commands run", run.returncode == 0, run.stderr[-300:])
    tables = cbt("chk", "wc", "ls").decode().split()
    expect("they make the table and its index's",
           "dd" in tables and "dd_idx_by_v" in tables, tables)
    fams = cbt("chk", "wc", "ls", "dd").decode()
    rule = "(versions() > 3 || age() > 1d)"
    expect("families _ and m, VERSIONS 3 or TTL 1 day",
           "_\t\t%s" % rule in fams and "m\t\t%s" % rule in fams, fams)
    # A TOKEN design's split keys are bytes of every value: the commands
    # stay text (printf makes the bytes), cbt gets each key's bytes (those
    # of the HBase shell's SPLITS, Bytes.toBytesBinary's escapes read
    # back), and takes them.
    db.execute("CREATE VIRTUAL TABLE tk USING widecol(a TEXT, b INTEGER, PRIMARY KEY ((a), b))")
    raw = db.execute("SELECT CAST(widecol_ddl('tk', 'bigtable') AS BLOB)").fetchone()[0]
    try:
        script = raw.decode("utf-8")
        expect("a TOKEN design's cbt commands are valid UTF-8", True, None)
    except UnicodeDecodeError as e:
        script = raw.decode("utf-8", "replace")
        expect("a TOKEN design's cbt commands are valid UTF-8", False, e)
    hbase = db.execute("SELECT widecol_ddl('tk', 'hbase')").fetchone()[0]
    want = [re.sub(rb"\\x([0-9A-F]{2})", lambda m: bytes([int(m.group(1), 16)]),
                   k.encode("latin-1"))
            for k in re.findall(r"'((?:[^'\\]|\\x[0-9A-F]{2})*)'",
                                hbase.split("SPLITS => [", 1)[1])]
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "args")
        run = subprocess.run(["sh", "-c", 'cbt() { if [ "$1" = createtable ]; then '
                              'printf %s "$3" > "$DUMP"; fi; }\n' + script],
                             capture_output=True, env=dict(os.environ, DUMP=dump))
        got = open(dump, "rb").read() if os.path.exists(dump) else b""
    got_keys = got[len(b"splits="):].split(b",") if got.startswith(b"splits=") else []
    left = len([k for k in want if b"," in k or b"\0" in k])
    expect("cbt is given the split keys' bytes (%d of %d; %d hold a comma or NUL)"
           % (len(got_keys), len(want), left),
           run.returncode == 0 and len(want) == 99 and sorted(got_keys)
           == sorted(k for k in want if b"," not in k and b"\0" not in k), (got[:80], want[:3]))
    run = subprocess.run(["sh", "-c", 'cbt() { command cbt -project chk -instance wc "$@"; }\n'
                          + script], capture_output=True, text=True)
    expect("cbt takes them", run.returncode == 0 and "tk" in cbt("chk", "wc", "ls").decode().split(),
           run.stderr[-300:])
    db.close()


def check_reopen_without_store(args):
    """A database whose widecol table is in Bigtable, opened again with
    widecol alone: the store's absence is asked of SQLite, and the error
    says what to load."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.db")
        db = wctest.connect(args.extension, path, bigtable=args.bigtable,
                            isolation_level=None)
        db.execute("CREATE VIRTUAL TABLE rs USING widecol(k TEXT, ROWKEY(k), "
                   "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/rs')")
        db.close()
        db = wctest.connect(args.extension, path, isolation_level=None)
        try:
            db.execute("SELECT count(*) FROM rs").fetchall()
            got = "no error"
        except sqlite3.Error as e:
            got = str(e)
        expect("reopened without widecol_bigtable: the error says to load it",
               got == "widecol rs: its rows are in Bigtable (STORAGE BIGTABLE "
               "'projects/chk/instances/wc/tables/rs'): load the Bigtable store too "
               "(.load ./widecol_bigtable)", got)
        db.close()


def check_fresh_connection(args):
    """A connection's first statements read no more than they need: a
    lookup by the whole row key is its one ReadRows (no row count, no
    probe), whatever the table's size; a range's plan estimates the rows
    with one SampleRowKeys (in 1.1.1 up to 10,001 keys were read)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "f.db")
        db = wctest.connect(args.extension, path, bigtable=args.bigtable,
                            isolation_level=None)
        db.execute("CREATE VIRTUAL TABLE fresh USING widecol(c INTEGER, t TEXT, id INTEGER, "
                   "amt REAL, ROWKEY(c PAD 6, t, id PAD 9), "
                   "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/fresh')")
        db.execute("INSERT OR REPLACE INTO fresh WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL "
                   "SELECT x + 1 FROM i WHERE x < 20000) SELECT x % 500, 'd' || (x % 37), x, "
                   "x * 1.5 FROM i")
        db.close()
        db = wctest.connect(args.extension, path, bigtable=args.bigtable,
                            isolation_level=None)
        row = db.execute("SELECT amt FROM fresh WHERE c = 7 AND t = 'd7' AND id = 7").fetchall()
        st = json.loads(db.execute("SELECT widecol_stats('fresh', 1)").fetchone()[0])
        expect("a fresh connection's lookup by the whole key of 20,000 rows: one ReadRows",
               row == [(10.5,)] and st["rpcs"] == 1 and st["rows_in"] == 1, (row, st))
        # With parameters, whose values the plan cannot see (a TEXT field
        # might hold the delimiter): still one call, no prefix probes.
        db2 = wctest.connect(args.extension, path, bigtable=args.bigtable,
                             isolation_level=None)
        row = db2.execute("SELECT amt FROM fresh WHERE c = ? AND t = ? AND id = ?",
                          (7, "d7", 7)).fetchall()
        st = json.loads(db2.execute("SELECT widecol_stats('fresh')").fetchone()[0])
        expect("the same lookup with parameters on a fresh connection: one ReadRows (67 "
               "calls before, the plan's estimate and prefix probes)",
               row == [(10.5,)] and st["rpcs"] == 1 and st["rows_in"] == 1, (row, st))
        db2.close()
        n = db.execute("SELECT count(*) FROM fresh WHERE c = 8").fetchone()[0]
        st = json.loads(db.execute("SELECT widecol_stats('fresh', 1)").fetchone()[0])
        # 40 rows: pages of 2, 16 and 128 rows, and the estimate.
        expect("then a range: its pages and one SampleRowKeys for the plan, not a count",
               n == 40 and st["rpcs"] == 4 and st["rows_in"] == 40, (n, st))
        db.execute("DROP TABLE fresh")
        db.close()


def check_load_calls(args):
    """What a load of 5,000 rows costs in calls, as docs/bigtable.md
    quotes it.  INSERT OR REPLACE batches its puts (5 MutateRows of 1,000)
    without an INDEX.  With one, the rows it replaces are read ahead in key
    order (vtab/wc_prefetch.c): into a new table two reads find it empty
    (nothing from the first key on, nothing before it), then 10 batches
    of 500 rows, each sent as entries, then rows, whatever the keys' order
    (the same keys in no order, 22 calls, not 3 a row); over
    the same keys with new values, 5 reads of windows of 16, 64, 256, 1,024
    and 4,096 rows (growing four-fold to 65,536), each sending the writes
    waiting, and each batch sent in
    three phases (new entries, rows, old entries deleted).  A plain
    INSERT is one CheckAndMutateRow a row, its entries batched.  An UPDATE
    of every tenth row of an indexed column reads its rows ahead too: one
    CheckAndMutateRow a row, its scan (5 pages), the planner's estimate
    (1), 5 reads ahead and the entries' batches, not a read and a write a
    row (2,010 in 1.1.1)."""
    db = connect(args)
    load = ("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 4999) "
            "%s INTO %s SELECT x, %s || x FROM i")
    got = []
    for name, idx, verbs in (("lc_put", "", [("INSERT OR REPLACE", "'v'")]),
                             ("lc_put_idx", ", INDEX by_v(v)",
                              [("INSERT OR REPLACE", "'v'"), ("INSERT OR REPLACE", "'w'")]),
                             ("lc_rand_idx", ", INDEX by_v(v)",
                              [("INSERT OR REPLACE", "'v'")]),
                             ("lc_ins_idx", ", INDEX by_v(v)", [("INSERT", "'v'")])):
        db.execute("CREATE VIRTUAL TABLE %s USING widecol(k INTEGER, v TEXT, ROWKEY(k PAD 6)%s, "
                   "STORAGE BIGTABLE 'projects/chk/instances/wc/tables/%s')" % (name, idx, name))
        for verb, prefix in verbs:
            db.execute("SELECT widecol_stats(?, 1)", (name,))
            sql = load % (verb, name, prefix)
            if name == "lc_rand_idx":
                sql = sql.replace("SELECT x,", "SELECT x * 7919 % 5000,")
            db.execute(sql)
            got.append(json.loads(db.execute("SELECT widecol_stats(?)", (name,)).fetchone()[0])["rpcs"])
        if name == "lc_ins_idx":
            db.execute("SELECT widecol_stats(?, 1)", (name,))
            db.execute("UPDATE %s SET v = v || 'x' WHERE k %% 10 = 0" % name)
            got.append(json.loads(db.execute("SELECT widecol_stats(?)", (name,)).fetchone()[0])["rpcs"])
            ok = db.execute("SELECT count(*) FROM %s WHERE v = 'v10x'" % name).fetchone()[0]
            checked = db.execute("SELECT * FROM widecol_check(?)", (name,)).fetchall()
            expect("the UPDATE of every tenth row: the index finds the new value, widecol_check ok",
                   ok == 1 and checked == [("ok",)], (ok, checked))
        db.execute("DROP TABLE %s" % name)
    expect("5,000 rows: INSERT OR REPLACE 5 calls; with an INDEX 22 into a new table, in key "
           "order or none, 59 over the same keys; plain INSERT with an INDEX 5,010; UPDATE of "
           "500 of them 523", got == [5, 22, 59, 22, 5010, 523], got)
    db.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--emulator", required=True)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--bigtable", default="./widecol_bigtable")
    args = ap.parse_args()
    check_layout(args)
    check_versions(args)
    check_range_sets(args)
    check_cell_limit(args)
    check_stopped(args)
    check_endpoints(args)
    check_ddl(args)
    check_wide(args)
    check_load_calls(args)
    check_fresh_connection(args)
    check_reopen_without_store(args)
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
