#!/usr/bin/env python3
"""The HBase store against HBase's own Java client, the ground truth for
what HBase holds (tests/stores/hbase/run.sh runs this, with WIDECOL_HBASE set):
the row keys and cells widecol writes, byte for byte, as docs/hbase.md
documents them; the families CREATE makes, with VERSIONS, TTL and
NEW_VERSION_BEHAVIOR; the regions SPLITS makes; DROP TABLE's disable and
delete.  Every expected value is written out here from the documented
formats, never read back from widecol.

    tests/stores/hbase/check.py --extension ./widecol --hbase ./widecol_hbase
"""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checks import Checks  # noqa: E402
from hbase_session import connect_from_args  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


CHECKS = Checks("hbase check")
expect = CHECKS.expect


def client(*args):
    """HBase's Java client (tests/servers/hbase.sh client): its lines."""
    out = subprocess.run(["sh", os.path.join(HERE, "..", "..", "servers", "hbase.sh"), "client"]
                         + list(args), capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError("hbase client %s: %s" % (" ".join(args), out.stderr[-2000:]))
    return out.stdout.splitlines()


def cells(table):
    """{(row, family, qualifier): [(timestamp, value), ...]}, newest first."""
    got = {}
    for line in client("cells", table):
        row, fam, qual, ts, val = line.split(" ")
        got.setdefault((bytes.fromhex(row), fam, bytes.fromhex(qual)), []).append(
            (int(ts), bytes.fromhex(val)))
    return got


def main():
    db = connect_from_args()

    # The payments design, and its documented cells.
    db.execute("""CREATE VIRTUAL TABLE hb_payments USING widecol(
      customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
      ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9),
      FAMILY p(amount, mode), STORAGE HBASE 'check:payments')""")
    db.execute("INSERT INTO hb_payments VALUES (123, '2024-01-01', 1, 9.5, 'card'), "
               "(123, '2024-01-02', 2, 10.0, NULL), (7, '2024-01-03', 3, -2.25, 'cash')")
    got = cells("check:payments")
    keys = sorted({k[0] for k in got})
    expect("row keys, byte for byte",
           keys == [b"000007_2024-01-03_000000003", b"000123_2024-01-01_000000001",
                    b"000123_2024-01-02_000000002"], keys)
    k1 = b"000123_2024-01-01_000000001"
    expect("a REAL is 0xFA and the IEEE double, big-endian",
           got.get((k1, "p", b"amount"), [(0, b"")])[0][1] == b"\xfa" + struct.pack(">d", 9.5),
           got.get((k1, "p", b"amount")))
    expect("a TEXT is its bytes",
           got.get((k1, "p", b"mode"), [(0, b"")])[0][1] == b"card", got.get((k1, "p", b"mode")))
    expect("a NULL is no cell",
           (b"000123_2024-01-02_000000002", "p", b"mode") not in got)
    marker = got.get((k1, "_", b"\x00"))
    expect("the row marker is the cell _:\\x00, 0x01 then the row's stamp",
           marker is not None and marker[0][1][:1] == b"\x01" and len(marker[0][1]) >= 9, marker)
    ts = marker[0][0] if marker else 0
    expect("cells are stamped in milliseconds, the row's cells alike",
           1600000000000 < ts < 4200000000000
           and got[(k1, "p", b"amount")][0][0] == ts, (ts, got.get((k1, "p", b"amount"))))
    fams = sorted(client("describe", "check:payments"))
    expect("CREATE makes the families, each with NEW_VERSION_BEHAVIOR",
           fams == ["_ VERSIONS 1 TTL 2147483647 NEW_VERSION_BEHAVIOR true",
                    "p VERSIONS 1 TTL 2147483647 NEW_VERSION_BEHAVIOR true"], fams)

    # An INTEGER, a BLOB, a versioned table's NULL, VERSIONS and TTL.
    db.execute("""CREATE VIRTUAL TABLE hv USING widecol(k TEXT, n INTEGER, b BLOB,
      ROWKEY(k), VERSIONS 3, TTL 86400, STORAGE HBASE 'check:hv')""")
    db.execute("INSERT INTO hv(k, n, b, rowtime) VALUES ('a', -2, x'00ff', 4102444700000000)")
    db.execute("INSERT OR REPLACE INTO hv(k, n, b, rowtime) VALUES ('a', 5, NULL, 4102444701000000)")
    got = cells("check:hv")
    expect("an INTEGER is 0xF9 and 8 bytes big-endian; versions are cell versions",
           [v for _, v in got.get((b"a", "_", b"n"), [])]
           == [b"\xf9" + struct.pack(">q", 5), b"\xf9" + struct.pack(">q", -2)],
           got.get((b"a", "_", b"n")))
    expect("a rowtime is the cells' timestamp, in milliseconds",
           [t for t, _ in got.get((b"a", "_", b"n"), [])] == [4102444701000, 4102444700000],
           got.get((b"a", "_", b"n")))
    expect("a BLOB is 0xFB and its bytes; a versioned NULL the byte 0xF8",
           [v for _, v in got.get((b"a", "_", b"b"), [])] == [b"\xf8", b"\xfb\x00\xff"],
           got.get((b"a", "_", b"b")))
    fams = client("describe", "check:hv")
    expect("VERSIONS and TTL are the family's",
           fams == ["_ VERSIONS 3 TTL 86400 NEW_VERSION_BEHAVIOR true"], fams)

    # SPLITS: HBase's regions start at the split keys.
    db.execute("""CREATE VIRTUAL TABLE hs USING widecol(k TEXT, v INTEGER, ROWKEY(k),
      SPLITS ('g', 'p'), STORAGE HBASE 'check:hs')""")
    regions = client("regions", "check:hs")
    expect("SPLITS are the regions' start keys",
           regions == ["", b"g".hex(), b"p".hex()], regions)

    # An INDEX is a table of its own; DROP TABLE deletes every table.
    db.execute("""CREATE VIRTUAL TABLE hi USING widecol(k TEXT, v TEXT, ROWKEY(k),
      INDEX by_v(v), STORAGE HBASE 'check:hi')""")
    tables = client("tables")
    expect("an INDEX is the table <table>_idx_<index>",
           "check:hi" in tables and "check:hi_idx_by_v" in tables, tables)
    for t in ("hb_payments", "hv", "hs", "hi"):
        db.execute("DROP TABLE %s" % t)
    tables = [t for t in client("tables") if t.startswith("check:")]
    expect("DROP TABLE disables and deletes the HBase tables (the namespace's "
           "catalog of designs stays)", tables == ["check:widecol_catalog"], tables)
    left = cells("check:widecol_catalog")
    expect("DROP TABLE deletes the tables' design records", left == {}, sorted(left)[:4])
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
