#!/usr/bin/env python3
"""EXISTING tables: a Bigtable table another application made, opened as
it is, with Google's own Python client (google-cloud-bigtable) as that
application and as the judge of what widecol writes.

The client makes a table with two column families and writes rows the way
an HBase or Bigtable application does: keys '<customer, 6 digits>#<day>',
a name as UTF-8, an amount as 8 bytes big-endian of a double, a count as 8
bytes of a long (HBase's Bytes.toBytes), raw bytes, a cell no column maps,
some cells missing, and two keys that are not of the declared form.  Then
widecol opens it with EXISTING and CELLS, and every answer is compared
with the rows this script wrote, computed here from the same data:
full scans, key ranges and lookups (with their plans), the undecodable
keys skipped and counted, widecol_check listing them, lint, advise and
regions running on it, a copy into a table of widecol's design, the
refusals of a read-only table, DROP TABLE leaving it, and a WRITABLE
table's inserts, updates, replaces and deletes read back by the client.

Run by tests/stores/bigtable/run.sh with BIGTABLE_EMULATOR_HOST set, by a
Python that has google-cloud-bigtable (.ci/run makes one) and whose
sqlite3 module loads extensions.

Usage: tests/stores/bigtable/existing.py [--extension ./widecol] [--bigtable ./widecol_bigtable]
"""
import argparse
import json
import os
import sqlite3
import struct
import sys
import warnings
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402
from google.cloud import bigtable  # noqa: E402
from google.cloud.bigtable import column_family  # noqa: E402
from google.cloud.bigtable.row_filters import CellsColumnLimitFilter  # noqa: E402

PROJECT, INSTANCE = "exi", "wc"
warnings.filterwarnings("ignore", "Connecting to Bigtable emulator")


CHECKS = Checks("bigtable existing")
expect = CHECKS.expect


def resource(table):
    return "projects/%s/instances/%s/tables/%s" % (PROJECT, INSTANCE, table)


def client_table(name, families):
    """A table the client makes, as another application would."""
    instance = bigtable.Client(project=PROJECT, admin=True).instance(INSTANCE)
    table = instance.table(name)
    if table.exists():
        table.delete()
    table.create(column_families={f: column_family.MaxVersionsGCRule(1) for f in families})
    return table


def put(table, rows):
    """rows: [(key bytes, {(family, qualifier): value bytes})]."""
    batch = []
    for key, cells in rows:
        row = table.direct_row(key)
        for (fam, qual), value in cells.items():
            row.set_cell(fam, qual.encode(), value)
        batch.append(row)
    for status in table.mutate_rows(batch):
        assert status.code == 0, status


def client_rows(table):
    """{key: {"family:qualifier": value}} of the newest cells, as the client
    reads them."""
    out = {}
    for row in table.read_rows(filter_=CellsColumnLimitFilter(1)):
        cells = {}
        for fam, quals in row.cells.items():
            for qual, versions in quals.items():
                cells["%s:%s" % (fam, qual.decode())] = versions[0].value
        out[row.row_key] = cells
    return out


def legacy_data():
    """The rows the other application writes, and the rows an ordinary
    table holding the same data answers with (cust, day, name, amount,
    cnt, raw), in key order."""
    rows, want = [], []
    for cust in range(1, 41):
        for d in range(1, 8):
            day = "2026-03-%02d" % d
            key = ("%06d#%s" % (cust, day)).encode()
            name = "cust %d é" % cust
            amount = cust * 10.25 + d
            cnt = cust * 1000 - d if cust % 5 else -(cust * d)
            raw = bytes([cust, d, 0, 255])
            cells = {("info", "name"): name.encode(), ("m", "amount"): struct.pack(">d", amount),
                     ("m", "count"): struct.pack(">q", cnt), ("info", "raw"): raw,
                     ("info", "unmapped"): b"not a column"}
            if cust == 13 and d == 3:
                # A row without the cells of two columns: they read NULL.
                del cells[("m", "amount")], cells[("info", "name")]
                name = amount = None
            rows.append((key, cells))
            want.append((cust, day, name, amount, cnt, raw))
    # Keys that are not '<6 digits>#<text>': another writer's rows.
    rows.append((b"zz-not-a-customer", {("info", "name"): b"x"}))
    rows.append((b"12ab56#2026-03-01", {("info", "name"): b"y"}))
    return rows, want


LEGACY_COLUMNS = ("cust INTEGER, day TEXT, name TEXT, amount REAL, cnt INTEGER, raw BLOB, "
                  "ROWKEY(cust PAD 6, day), DELIMITER '#', "
                  "CELLS(name 'info:name' STRING, amount 'm:amount' DOUBLE, "
                  "cnt 'm:count' LONG, raw 'info:raw' BYTES)")


def check_read(db, want):
    got = db.execute("SELECT cust, day, name, amount, cnt, raw FROM legacy").fetchall()
    expect("a full scan reads every row of the declared form, in key order, cells typed",
           got == want, (len(got), len(want), got[:3]))
    st = json.loads(db.execute("SELECT widecol_stats('legacy')").fetchone()[0])
    expect("the two keys not of the form are skipped and counted (widecol_stats undecodable)",
           st.get("undecodable") == 2, st)
    got = db.execute("SELECT day, cnt FROM legacy WHERE cust = 5 ORDER BY day DESC").fetchall()
    expect("a key range: customer 5's days", got == [(w[1], w[4]) for w in want
                                                     if w[0] == 5][::-1], got)
    plan = " ".join(r[3] for r in db.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM legacy WHERE cust = 5"))
    expect("its plan is a key range on cust", "RANGE cust=?" in plan, plan)
    got = db.execute("SELECT name, amount, raw FROM legacy WHERE cust = 13 AND day = ?",
                     ("2026-03-03",)).fetchall()
    expect("a lookup of a row missing two cells: NULL for them",
           got == [(None, None, bytes([13, 3, 0, 255]))], got)
    got = db.execute("SELECT typeof(amount), typeof(cnt), typeof(raw), typeof(name) "
                     "FROM legacy WHERE cust = 2 AND day = '2026-03-02'").fetchall()
    expect("DOUBLE reads a real, LONG an integer, BYTES a blob, STRING text",
           got == [("real", "integer", "blob", "text")], got)
    got = db.execute("SELECT count(*), sum(cnt) FROM legacy WHERE cnt < 0").fetchall()
    expect("negative LONGs compare as integers",
           got == [(sum(1 for w in want if w[4] < 0), sum(w[4] for w in want if w[4] < 0))],
           got)


def check_tools(db, want):
    got = db.execute("SELECT * FROM widecol_check('legacy')").fetchall()
    text = "\n".join(str(r) for r in got)
    # Keys are shown as check shows every key: hex, the first 16 bytes.
    expect("widecol_check lists both undecodable keys and says how many",
           len(got) == 3 and b"zz-not-a-custome".hex() in text
           and b"12ab56#2026-03-0".hex() in text and "2 of the 282 rows" in text, got)
    lint = db.execute("SELECT count(*) FROM widecol_lint('legacy')").fetchone()[0]
    expect("widecol_lint runs on the existing table", lint >= 1, lint)
    db.execute("CREATE TEMP TABLE workload(sql TEXT, weight REAL)")
    db.executemany("INSERT INTO workload VALUES (?, ?)",
                   [("SELECT * FROM legacy WHERE day = '2026-03-02'", 9),
                    ("SELECT * FROM legacy WHERE cust = 5", 1)])
    advice = db.execute("SELECT rank, ddl FROM widecol_advise('legacy', "
                        "'SELECT sql, weight FROM workload')").fetchall()
    expect("widecol_advise ranks designs for the existing table's rows, the day first on top",
           len(advice) >= 2 and advice[0][0] == 1
           and "ROWKEY(day" in advice[0][1].replace(" ", ""), advice[:2])
    regions = db.execute("SELECT region, start_key, end_key, rows "
                         "FROM widecol_regions('legacy')").fetchall()
    expect("widecol_regions('legacy'): regions from the engine's sample keys, the first "
           "from the start and the last to the end",
           len(regions) >= 1 and regions[0][1] is None and regions[-1][2] is None
           and all(a[2] == b[1] for a, b in zip(regions, regions[1:])), regions[:3])
    db.execute("CREATE VIRTUAL TABLE mine USING widecol(cust INTEGER, day TEXT, name TEXT, "
               "amount REAL, cnt INTEGER, raw BLOB, ROWKEY(day, cust PAD 6), INDEX by_cnt(cnt), "
               "STORAGE BIGTABLE '%s')" % resource("mine"))
    db.execute("INSERT INTO mine SELECT * FROM legacy")
    got = db.execute("SELECT cust, day, name, amount, cnt, raw FROM mine "
                     "ORDER BY cust, day").fetchall()
    expect("INSERT INTO mine SELECT * FROM legacy copies it into a design of widecol's",
           got == want, (len(got), len(want)))
    expect("the copy checks clean",
           db.execute("SELECT * FROM widecol_check('mine')").fetchall() == [("ok",)])
    db.execute("DROP TABLE mine")


def check_read_only(db):
    for sql in ("INSERT INTO legacy(cust, day, name) VALUES (99, '2026-01-01', 'n')",
                "UPDATE legacy SET name = 'x' WHERE cust = 1",
                "DELETE FROM legacy WHERE cust = 1"):
        try:
            db.execute(sql)
            err = None
        except sqlite3.Error as e:
            err = e
        expect("read only: %s is refused (SQLITE_READONLY)" % sql.split()[0],
               err is not None and err.sqlite_errorcode == sqlite3.SQLITE_READONLY
               and "add WRITABLE after EXISTING" in str(err), err)


def check_errors(db):
    cases = (
        ("a table that does not exist",
         "CREATE VIRTUAL TABLE e1 USING widecol(%s, STORAGE BIGTABLE '%s' EXISTING)"
         % (LEGACY_COLUMNS, resource("nosuch")),
         "there is no such table (cbt ls lists them)"),
        ("a family the table has not",
         "CREATE VIRTUAL TABLE e2 USING widecol(cust INTEGER, day TEXT, x TEXT, "
         "ROWKEY(cust PAD 6, day), DELIMITER '#', CELLS(x 'zz:x' STRING), "
         "STORAGE BIGTABLE '%s' EXISTING)" % resource("legacy"),
         "has no column family \"zz\""),
    )
    for what, sql, text in cases:
        try:
            db.execute(sql)
            err = ""
        except sqlite3.Error as e:
            err = str(e)
        expect("CREATE of %s: %s" % (what, text), text in err, err)
    # A LONG cell of 4 bytes cannot be read as one.
    bad = client_table("legacy_bad", ["m"])
    put(bad, [(b"000001", {("m", "count"): struct.pack(">i", 7)})])
    db.execute("CREATE VIRTUAL TABLE bad USING widecol(cust INTEGER, cnt INTEGER, "
               "ROWKEY(cust PAD 6), CELLS(cnt 'm:count' LONG), "
               "STORAGE BIGTABLE '%s' EXISTING)" % resource("legacy_bad"))
    try:
        db.execute("SELECT cnt FROM bad").fetchall()
        err = None
    except sqlite3.Error as e:
        err = e
    expect("a LONG cell of 4 bytes: SQLITE_MISMATCH naming the cell, row and size",
           err is not None and err.sqlite_errorcode == sqlite3.SQLITE_MISMATCH
           and "m:count" in str(err) and "000001" in str(err) and "4 bytes" in str(err), err)
    db.execute("DROP TABLE bad")
    expect("DROP TABLE of an EXISTING table leaves it on Bigtable", bad.exists())


def check_writable(db):
    table = client_table("legacy_w", ["info", "m"])
    put(table, [(b"000001#2026-03-01", {("info", "name"): b"one", ("m", "count"): struct.pack(">q", 1),
                                        ("info", "other"): b"kept"}),
                (b"000002#2026-03-01", {("info", "name"): b"two"})])
    db.execute("CREATE VIRTUAL TABLE w USING widecol(cust INTEGER, day TEXT, name TEXT, "
               "amount REAL, cnt INTEGER, ROWKEY(cust PAD 6, day), DELIMITER '#', "
               "CELLS(name 'info:name' STRING, amount 'm:amount' DOUBLE, cnt 'm:count' LONG), "
               "STORAGE BIGTABLE '%s' EXISTING WRITABLE)" % resource("legacy_w"))
    db.execute("INSERT INTO w VALUES (3, '2026-03-02', 'three', -2.5, -7)")
    db.execute("UPDATE w SET cnt = cnt + 41, name = NULL WHERE cust = 1")
    db.execute("INSERT OR REPLACE INTO w VALUES (2, '2026-03-01', 'two again', 0.5, NULL)")
    db.execute("DELETE FROM w WHERE cust = 3")
    db.execute("INSERT INTO w VALUES (4, '2026-03-04', 'four', 1e300, 9223372036854775807)")
    want = {
        b"000001#2026-03-01": {"m:count": struct.pack(">q", 42), "info:other": b"kept"},
        b"000002#2026-03-01": {"info:name": b"two again", "m:amount": struct.pack(">d", 0.5)},
        b"000004#2026-03-04": {"info:name": b"four", "m:amount": struct.pack(">d", 1e300),
                               "m:count": struct.pack(">q", 9223372036854775807)},
    }
    got = client_rows(table)
    expect("WRITABLE: the client reads the cells widecol wrote, in the table's layout, "
           "no marker, an unmapped cell kept, NULL as no cell", got == want, got)
    try:
        db.execute("INSERT INTO w VALUES (5, '2026-03-05', 'five', 'lots', 1)")
        err = None
    except sqlite3.Error as e:
        err = e
    expect("WRITABLE: text into a DOUBLE cell is refused (SQLITE_MISMATCH)",
           err is not None and err.sqlite_errorcode == sqlite3.SQLITE_MISMATCH
           and "m:amount" in str(err), err)
    try:
        db.execute("INSERT INTO w VALUES (1, '2026-03-01', 'dup', NULL, NULL)")
        err = None
    except sqlite3.Error as e:
        err = e
    expect("WRITABLE: INSERT of a key that is there is a constraint error",
           err is not None and err.sqlite_errorcode & 0xff == sqlite3.SQLITE_CONSTRAINT,
           (err, err and err.sqlite_errorcode))
    db.execute("DROP TABLE w")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--bigtable", default="./widecol_bigtable")
    args = ap.parse_args()
    rows, want = legacy_data()
    legacy = client_table("legacy", ["info", "m"])
    put(legacy, rows)
    db = wctest.connect(args.extension, bigtable=args.bigtable, isolation_level=None)
    db.execute("CREATE VIRTUAL TABLE legacy USING widecol(%s, STORAGE BIGTABLE '%s' EXISTING)"
               % (LEGACY_COLUMNS, resource("legacy")))
    check_read(db, want)
    check_tools(db, want)
    check_read_only(db)
    check_errors(db)
    check_writable(db)
    db.execute("DROP TABLE legacy")
    expect("after DROP TABLE legacy the client still reads its %d rows" % len(rows),
           len(client_rows(legacy)) == len(rows))
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
