#!/usr/bin/env python3
"""Differential test: widecol tables against ordinary SQLite tables.

For each design below, the same rows go into a widecol table `w` and into an
ordinary WITHOUT ROWID table `o` with the same columns and a PRIMARY KEY on
the key fields (BINARY collation, like widecol's byte keys). Designs with
INDEX and FAMILY clauses give `o` the matching CREATE INDEX and NOT NULL on
the index fields, and after every write widecol_check('w') must say 'ok'. Then random
statements run on both: SELECTs with =, IS, IN, ranges, BETWEEN, LIKE, GLOB,
!=, OR, ORDER BY, LIMIT/OFFSET and joins, with constants of every type as
literals and as bound parameters, and INSERT OR REPLACE/IGNORE, UPDATE and
DELETE. Results, errors and table contents must agree. A mismatch prints a
script that reproduces it.

Besides the fixed designs, every run adds random ones (--random N): column
types, ROWKEY elements with every transform, both encodings, delimiters,
SALT and BUCKET, RANDOM(n) (o then has no key: rows may share every key
field), indexes and families, with values that fit them.
A mismatch is shrunk to the fewest statements that still show it before
it is printed. --seconds N keeps running new seeds until N seconds have
passed (`make soak`).

With --bigtable ./widecol_bigtable every widecol table keeps its rows in
Bigtable (STORAGE BIGTABLE, a new Bigtable table per design, dropped after
it), on the endpoint BIGTABLE_EMULATOR_HOST names: the same statements,
the same ordinary tables to agree with.  Versioned designs are left out
there too, with rowtimes in whole milliseconds (Bigtable's granularity).
About a third of the designs that can be are opened as EXISTING WRITABLE
tables over a Bigtable table another CREATE made, their columns in CELLS
(as_existing): every statement must agree there too.

Usage: differential.py [--extension ./widecol] [--seed N] [--cases N]
                       [--random N] [--seconds N]
                       [--bigtable ./widecol_bigtable]
"""
import argparse
import collections
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402
from fault_proxy import FaultProxy, NodesProxy  # noqa: E402

INT64_MAX = 2**63 - 1


def lit(v):
    """A Python value as an SQL literal."""
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "X'" + v.hex() + "'"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, float):
        return repr(v) if v == v and abs(v) != float("inf") else (
            "9e999" if v > 0 else "-9e999")
    return str(v)


def text(rng, alphabet, lo, hi):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


# Text that reads as a number: a TEXT key field compared with a number
# matches some of these and not others, by SQLite's affinity rules.
NUMTEXT = ["5", "05", "5.0", " 5", "-5", "5e0", "1", "01", "1.0", "10", "0"]


def as_number(v):
    """The number a text value reads as, or None."""
    if not isinstance(v, str):
        return None
    try:
        f = float(v)
    except ValueError:
        return None
    if f != f or abs(f) == float("inf"):
        return None
    return int(f) if f == int(f) and abs(f) < 2**53 else f


# Each design: the widecol arguments, the columns (name, type, generator of
# valid values), the key fields for the ordinary table's PRIMARY KEY.
ALNUM = "abcABC019 -:."
DESIGNS = [
    dict(name="payments",
         cols=[("customer_id", "INTEGER", lambda r: r.randint(0, 300)),
               ("paid_at", "TEXT", lambda r: "01-0%d-2017 %02d:%02d" % (
                   r.randint(1, 3), r.randint(0, 23), r.choice([0, 30]))
                if r.random() < .9 else text(r, ALNUM, 0, 6)),
               ("payment_id", "INTEGER", lambda r: r.randint(0, 999999999)),
               ("amount", "REAL", lambda r: round(r.uniform(0, 100), 2)),
               ("mode", "TEXT", lambda r: r.choice(["card", "cash", None]))],
         rowkey="customer_id PAD 6, paid_at, payment_id PAD 9",
         key=["customer_id", "paid_at", "payment_id"]),
    dict(name="metrics",
         cols=[("hostname", "TEXT", lambda r: r.choice(["web1", "web12", "web2", "Web1", "db"])),
               ("event", "TEXT", lambda r: r.choice(["load", "cpu", "cpu0", ""])),
               ("ts", "INTEGER", lambda r: r.randint(0, 9999999999)),
               ("value", "REAL", lambda r: r.random())],
         rowkey="hostname, event, ts DESC 9999999999",
         key=["hostname", "event", "ts"]),
    dict(name="orders",
         cols=[("order_id", "INTEGER", lambda r: r.randint(0, 9999999999)),
               ("customer_id", "INTEGER", lambda r: r.randint(0, 50)),
               ("total", "REAL", lambda r: r.random() * 100)],
         rowkey="order_id PAD 10 REVERSE",
         key=["order_id"]),
    dict(name="events",
         cols=[("a", "INTEGER", lambda r: r.choice([0, -1, 1, 2**31, -2**40, INT64_MAX, -INT64_MAX - 1, r.randint(-5, 5)])),
               ("b", "TEXT", lambda r: text(r, "ab\u00e9\u65e5_", 0, 3)),
               ("c", "REAL", lambda r: r.choice([0.0, -0.0, 1.5, -2.25, 1e300, -1e-300, float("inf"), 2.0**53, r.uniform(-3, 3)])),
               ("d", "BLOB", lambda r: bytes(r.choice([0, 1, 255]) for _ in range(r.randint(0, 2)))),
               ("payload", "TEXT", lambda r: text(r, "xyz", 0, 2))],
         rowkey="a, b DESC, c, d", options=", ENCODING BINARY",
         key=["a", "b", "c", "d"]),
    dict(name="numeric",
         cols=[("n", "NUMERIC", lambda r: r.choice([1, 1.5, -3, 2**53, 2**53 + 1, 2.0**53, 2**63 - 1, 9.3e18, -9.3e18, r.randint(-3, 3), r.uniform(-2, 2)])),
               ("r", "REAL", lambda r: r.choice([0.5, -0.5, 3.0, 1e18])),
               ("v", "", lambda r: r.randint(0, 9))],
         rowkey="n, r", options=", ENCODING BINARY",
         key=["n", "r"]),
    dict(name="hosts_fixed",
         cols=[("host", "TEXT", lambda r: text(r, "hst12 \t", 0, 8).rstrip(" ")),
               ("ts", "INTEGER", lambda r: r.randint(0, 10**10 - 1)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="host PAD 8, ts PAD 10", options=", DELIMITER ''",
         key=["host", "ts"]),
    # Cassandra's designs: CQL's PRIMARY KEY form (the token of the
    # partition key first, ENCODING BINARY), and TOKEN in a TEXT key.
    dict(name="cql_likes",
         cols=[("user_id", "TEXT", lambda r: r.choice(["u1", "u2", "u12", "a", "\u00e9"])),
               ("liked_at", "INTEGER", lambda r: r.randint(-5, 40)),
               ("item_id", "INTEGER", lambda r: r.randint(0, 9)),
               ("note", "TEXT", lambda r: r.choice([None, "x", "yy"]))],
         rowkey="", primary="(user_id), liked_at DESC, item_id",
         key=["user_id", "liked_at", "item_id"]),
    dict(name="cql_readings",
         cols=[("sensor", "TEXT", lambda r: r.choice(["s1", "s2", "s10"])),
               ("day", "INTEGER", lambda r: r.randint(20151223, 20151226)),
               ("ts", "INTEGER", lambda r: r.randint(0, 999)),
               ("v", "REAL", lambda r: r.random())],
         rowkey="TOKEN(sensor, day), sensor, day, ts PAD 3",
         key=["sensor", "day", "ts"]),
    dict(name="textlast",
         cols=[("id", "INTEGER", lambda r: r.randint(0, 20)),
               ("name", "TEXT", lambda r: text(r, "aAb_0 \u00e9", 0, 4)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="id PAD 4, name", options=", DELIMITER '|'",
         key=["id", "name"]),
    dict(name="salted",
         cols=[("userid", "TEXT", lambda r: "user%d" % r.randint(0, 40)),
               ("orderid", "INTEGER", lambda r: r.randint(0, 99999999)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="SALT(4, userid), userid, orderid PAD 8",
         key=["userid", "orderid"]),
    dict(name="bucketed",
         cols=[("ts", "INTEGER", lambda r: r.randint(0, 10**4)),
               ("host", "TEXT", lambda r: r.choice(["a", "b", "c"])),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="BUCKET(16, ts), ts PAD 10, host",
         key=["ts", "host"], skip_cols=["ts", "host"], rows=2000),
    # 80 values of g (more than the 64 live scans a merge keeps): skip
    # scans over g, merged with a held row per value under a LIMIT.
    dict(name="skipfield",
         cols=[("g", "INTEGER", lambda r: r.randint(0, 79)),
               ("ts", "INTEGER", lambda r: r.randint(0, 999)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="g PAD 3, ts PAD 10",
         key=["g", "ts"], rows=6000),
    # A bucket of a field that is skipped with it: ties across prefixes
    # are in bucket order, not g order.
    dict(name="bucketfield",
         cols=[("g", "INTEGER", lambda r: r.randint(0, 49)),
               ("ts", "INTEGER", lambda r: r.randint(0, 300)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="BUCKET(4, g), g PAD 2, ts PAD 10",
         key=["g", "ts"], rows=3000),
    # Salts of the range field: short ranges are enumerated, value by
    # value, in the field's order (ascending and DESC); long ones probe
    # 4096 salts (sparse) or visit 64 prefixes (dense).
    dict(name="saltedts",
         cols=[("ts", "INTEGER", lambda r: r.randint(0, 100000)),
               ("host", "TEXT", lambda r: r.choice(["a", "b", "c"])),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="SALT(3, ts), ts PAD 6, host",
         key=["ts", "host"], skip_cols=["ts", "host"], rows=3000),
    dict(name="saltedtsdesc",
         cols=[("ts", "INTEGER", lambda r: r.randint(0, 3000)),
               ("host", "TEXT", lambda r: r.choice(["a", "b", "c"])),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="BUCKET(4, ts), SALT(-1, ts), ts DESC 99999, host",
         key=["ts", "host"], skip_cols=["ts", "host"], rows=3000),
    # COLLATE on key fields: ordered last after a fixed field, in BINARY
    # encoding, and on a field that is not last.  widecol refuses them at
    # CREATE (a byte key cannot honour them); the design then runs with the
    # collation on a column outside the key only.
    dict(name="nocase",
         cols=[("name", "TEXT COLLATE NOCASE", lambda r: text(r, "aAbB", 0, 3)),
               ("n", "INTEGER", lambda r: r.randint(0, 99)),
               ("tag", "TEXT COLLATE NOCASE", lambda r: text(r, "aAbB ", 0, 3)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="name, n PAD 2",
         key=["name", "n"]),
    dict(name="nocaselast",
         cols=[("n", "INTEGER", lambda r: r.randint(0, 9)),
               ("name", "TEXT COLLATE NOCASE", lambda r: text(r, "aAbB", 0, 3)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="n PAD 2, name",
         key=["n", "name"]),
    dict(name="rtrimbin",
         cols=[("name", "TEXT COLLATE RTRIM", lambda r: text(r, "ab ", 0, 3)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="name", options=", ENCODING BINARY",
         key=["name"]),
    dict(name="unpadded",
         cols=[("a", "INTEGER", lambda r: r.randint(-20, 120)),
               ("b", "INTEGER", lambda r: r.randint(-5, 5)),
               ("v", "TEXT", lambda r: text(r, "vw", 0, 2))],
         rowkey="a, b",
         key=["a", "b"]),
    dict(name="textdesc",
         cols=[("g", "TEXT", lambda r: text(r, "ab_\x01", 0, 3)),
               ("n", "INTEGER", lambda r: r.randint(0, 999)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="g DESC, n PAD 3",
         key=["g", "n"]),
    dict(name="blobkey",
         cols=[("k", "BLOB", lambda r: bytes(r.choice([0, 1, 0x41, 0xff]) for _ in range(r.randint(0, 3)))),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="k", options=", DELIMITER '_'",
         key=["k"]),
    # The seeds' CustomerOrder with PaymentsByDate and PaymentsByCustomer
    # as indexes and families C and O; hot columns are chosen more often.
    dict(name="customer_order",
         cols=[("order_id", "INTEGER", lambda r: r.randint(0, 9999999999)),
               ("customer_id", "INTEGER", lambda r: r.randint(0, 30)),
               ("order_ts", "TEXT", lambda r: r.choice([None, "2017-01-0%d" % r.randint(1, 5)])),
               ("payment_ts", "TEXT", lambda r: "2017-0%d-0%d %02d:00" % (
                   r.randint(1, 2), r.randint(1, 5), r.randint(0, 23))
                if r.random() < .9 else text(r, "2017-: ", 0, 6)),
               ("payment_id", "INTEGER", lambda r: r.randint(0, 99)),
               ("first_name", "TEXT", lambda r: r.choice([None, None, "Ann", ""])),
               ("last_name", "TEXT", lambda r: r.choice([None, None, "Lee"])),
               ("total", "REAL", lambda r: r.choice([None, 0.0, round(r.uniform(0, 50), 2)])),
               ("status", "TEXT", lambda r: r.choice([None, "paid", "open"]))],
         rowkey="order_id PAD 10 REVERSE",
         extra=", INDEX payments_by_date(payment_ts, customer_id PAD 6, payment_id PAD 9)"
               ", INDEX payments_by_customer(customer_id PAD 6, payment_ts, payment_id PAD 9) INCLUDE (total)"
               ", FAMILY c(first_name, last_name), FAMILY o(order_ts, total, status)",
         indexes=["payment_ts, customer_id, payment_id", "customer_id, payment_ts, payment_id"],
         notnull=["payment_ts", "customer_id", "payment_id"],
         hot=["customer_id", "payment_ts", "payment_id"],
         key=["order_id"]),
    # eBay's likes: User_By_Item as an index with the user's name
    # de-normalised, a bucketed time index (skip scans over an index), and
    # BINARY encoding with a DESC text field.
    dict(name="likes",
         cols=[("user_id", "INTEGER", lambda r: r.randint(0, 30)),
               ("item_id", "INTEGER", lambda r: r.randint(0, 20)),
               ("ts", "INTEGER", lambda r: r.randint(0, 5000)),
               ("user_name", "TEXT", lambda r: r.choice([None, "ann", "bob", "\u00e9", ""])),
               ("title", "TEXT", lambda r: text(r, "ab_\x00", 0, 3))],
         rowkey="user_id, item_id", options=", ENCODING BINARY",
         extra=", INDEX user_by_item(item_id, ts DESC) INCLUDE (user_name)"
               ", INDEX by_time(BUCKET(4, ts), ts), INDEX by_title(title DESC, ts)"
               ", FAMILY d(title)",
         indexes=["item_id, ts DESC", "ts", "title DESC, ts"],
         notnull=["ts", "title"],
         hot=["item_id", "ts", "title"], skip_cols=["ts"],
         key=["user_id", "item_id"], rows=300),
    # Text keys that read as numbers, changed and deleted by a whole key
    # fixed with '=' whose value is a number at run time.
    dict(name="numtext",
         cols=[("k", "INTEGER", lambda r: r.randint(0, 3)),
               ("t", "TEXT", lambda r: r.choice(NUMTEXT + ["abc", ""])),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="k PAD 3, t",
         key=["k", "t"]),
    # 70 columns: SQLite's colUsed has one bit for columns 63 and up, and
    # skip scans over g probe for its values.
    dict(name="wide",
         cols=[("g", "INTEGER", lambda r: r.randint(0, 30)),
               ("ts", "INTEGER", lambda r: r.randint(0, 999)),
               ("s", "TEXT", lambda r: text(r, "ab", 0, 2))]
              + [("c%d" % i, "INTEGER", lambda r: r.choice([None, r.randint(0, 9)]))
                 for i in range(67)],
         rowkey="g PAD 3, ts PAD 10",
         key=["g", "ts"], rows=600),
    # Text reversed by characters (Lindorm's reversed host names): multibyte
    # values, and values that are not valid UTF-8, which it must refuse.
    dict(name="revtext",
         cols=[("host", "TEXT", lambda r: text(r, "ab\u00e9\u65e50.", 1, 5).rstrip(" ")),
               ("n", "INTEGER", lambda r: r.randint(0, 99)),
               ("v", "INTEGER", lambda r: r.randint(0, 9))],
         rowkey="host PAD 6 REVERSE, n PAD 2",
         key=["host", "n"]),
    # The guides' [userId][orderid][random(100)]: rows that share the
    # fields, told apart by RANDOM's number.  o is a table without a key
    # (duplicates allowed), and no statement names the number.
    dict(name="random_orders",
         cols=[("userid", "TEXT", lambda r: r.choice(["u1", "u2", "u12", "x"])),
               ("orderid", "INTEGER", lambda r: r.randint(0, 30)),
               ("amount", "INTEGER", lambda r: r.choice([15, 20, r.randint(0, 99)])),
               ("note", "TEXT", lambda r: r.choice([None, "a", "b"]))],
         rowkey="userid, orderid PAD 6", random=100, options=", DELIMITER '_'",
         extra=", INDEX by_amount(amount PAD 2) INCLUDE (note), FAMILY f(note)",
         indexes=["amount"], notnull=["amount"], hot=["amount"],
         key=["userid", "orderid"]),
    dict(name="random_binary",
         cols=[("k", "TEXT", lambda r: r.choice(["a", "b", "", "\u00e9"])),
               ("ts", "INTEGER", lambda r: r.randint(-3, 12)),
               ("v", "INTEGER", lambda r: r.choice([None, r.randint(0, 3)]))],
         rowkey="k, ts DESC", random=1000, options=", ENCODING BINARY",
         key=["k", "ts"]),
    dict(name="longdesc",
         cols=[("ts", "INTEGER", lambda r: r.choice([0, 1, INT64_MAX, r.randint(0, 2**62)])),
               ("host", "TEXT", lambda r: r.choice(["x", "y"]))],
         rowkey="ts DESC, host",
         key=["ts", "host"]),
]

# Random designs.  Each column gets a class of values; each element over
# it a transform that every value of the class fits.
INT_EDGES = [0, -1, 1, INT64_MAX, -INT64_MAX - 1, 2**31, -2**40]


def int_digits(width):
    top = 10**width - 1
    return lambda r: r.choice([0, top, r.randint(0, top), r.randint(0, min(99, top))])


def int_any(r):
    return r.choice(INT_EDGES + [r.randint(-50, 50)] * 4)


def text_of(alphabet, hi, fill=None):
    """Text of up to hi characters, sometimes text that reads as a number;
    never ending in fill (a PAD fill), which such a field refuses."""
    def gen(r):
        if r.random() < 0.15:
            t = r.choice([n for n in NUMTEXT if len(n) <= hi] or [""])
        else:
            t = text(r, alphabet, 0, hi)
        return t.rstrip(fill) if fill else t
    return gen


def blob_any(r):
    return bytes(r.choice([0, 1, 0x41, 0x5f, 0xff]) for _ in range(r.randint(0, 3)))


def real_any(r):
    return r.choice([0.0, -0.0, 1.5, -2.25, 1e300, float("inf"), float("-inf"),
                     2.0**53, r.uniform(-3, 3)])


def numeric_any(r):
    return r.choice([1, 1.5, -3, 2**53 + 1, 2.0**53, 9.3e18, r.randint(-3, 3)])


def random_elements(r, col, cls, binary, in_front):
    """ROWKEY or INDEX elements over column col of class cls: one, or a
    SALT or BUCKET of it and then it."""
    kind, arg = cls
    if not binary and in_front and kind in ("int", "text") and r.random() < 0.15:
        return [r.choice(["SALT(%d, %s)" % (r.choice([1, 2, -1]), col),
                          "BUCKET(%d, %s)" % (r.choice([2, 4, 16]), col)])] + \
            random_elements(r, col, cls, binary, False)
    if binary:
        return [col + (" DESC" if r.random() < 0.3 else "")]
    if kind == "int":
        w = arg + r.randint(0, 2)
        return [col + r.choice([" PAD %d" % w, " PAD %d DESC" % w,
                                " DESC %d" % (10**w - 1), " PAD %d REVERSE" % w])]
    if kind == "intany":
        return [col]
    return [col + r.choice(["", "", " DESC", " REVERSE", " PAD %d '.'" % (arg + 1)])]


def fixed_width(elem):
    return any(t in elem for t in ("PAD", "DESC", "SALT(", "BUCKET("))


def random_design(r, n):
    """A random design: 2 to 4 key columns, 1 to 3 others, up to two
    indexes and two families."""
    binary = r.random() < 0.3
    delim = r.choice(["_", "|", "#", "::"])
    alphabet = "aZ0 \u00e9\u65e5-" + ("_" if delim != "_" else "")
    cols, classes = [], {}
    for i in range(r.randint(2, 4)):
        name = "k%d" % i
        if binary:
            typ, gen = r.choice([("INTEGER", int_any), ("TEXT", text_of(alphabet + "_", 3)),
                                 ("BLOB", blob_any), ("REAL", real_any),
                                 ("NUMERIC", numeric_any)])
            cls = ("bin", None)
        elif r.random() < 0.5:
            w = r.randint(1, 12)
            typ, gen, cls = "INTEGER", int_digits(w), ("int", w)
        elif r.random() < 0.2:
            typ, gen, cls = "INTEGER", int_any, ("intany", None)
        else:
            w = r.randint(1, 4)
            typ, gen, cls = "TEXT", text_of(alphabet, w, "."), ("text", w)
        if typ == "TEXT" and r.random() < 0.1:
            typ += r.choice([" COLLATE NOCASE", " COLLATE RTRIM"])
        cols.append((name, typ, gen))
        classes[name] = cls
    key = [c[0] for c in cols]
    for i in range(r.randint(1, 3)):
        name = "v%d" % i
        typ, gen = r.choice([("INTEGER", lambda r: r.choice([None, r.randint(0, 99)])),
                             ("TEXT", lambda r: r.choice([None, text(r, alphabet, 0, 3)])),
                             ("REAL", lambda r: r.choice([None, r.uniform(-1, 1)]))])
        cols.append((name, typ, gen))
    if r.random() < 0.1:
        # A wide table: columns 63 and up share one bit of colUsed.
        cols += [("c%d" % i, "INTEGER", lambda r: r.choice([None, r.randint(0, 9)]))
                 for i in range(r.randint(62, 68))]
    elems = []
    for i, k in enumerate(key):
        elems += random_elements(r, k, classes[k], binary, i == 0)
    extra, indexes, notnull, hot, idx_elems = "", [], [], [], []
    others = [c[0] for c in cols if c[0] not in key]
    for j in range(r.choice([0, 1, 1, 2])):
        fields = r.sample(key, r.randint(1, min(2, len(key))))
        if r.random() < 0.5:
            # A non-key field: it must then hold values that fit.
            name = "x%d" % j
            kcol = r.choice(key)
            kc = [c for c in cols if c[0] == kcol][0]
            cols.append((name, kc[1], kc[2]))
            classes[name] = classes[kcol]
            fields = [name] + fields[1:]
            notnull.append(name)
        parts = []
        for i, f in enumerate(fields):
            parts += random_elements(r, f, classes[f], binary, i == 0)
        idx_elems += parts
        inc = ""
        if others and r.random() < 0.5:
            inc = " INCLUDE (%s)" % r.choice(others)
        extra += ", INDEX i%d(%s)%s" % (j, ", ".join(parts), inc)
        indexes.append(", ".join(fields))
        hot += fields
    fams = list(others)
    r.shuffle(fams)
    for j in range(r.choice([0, 1, 2])):
        if not fams:
            break
        take = fams[:r.randint(1, len(fams))]
        fams = fams[len(take):]
        extra += ", FAMILY f%d(%s)" % (j, ", ".join(take))
    # RANDOM(n) ends a fifth of the row keys; the field before it then
    # needs a fixed width too for DELIMITER ''.
    rnd = r.random() < 0.2
    if not binary and r.random() < 0.3 and all(map(fixed_width, elems[:(None if rnd else -1)] + idx_elems)):
        delim = ""
    spec = dict(name="random%d" % n, cols=cols, rowkey=", ".join(elems), key=key,
                rows=r.choice([20, 60, 150]),
                options=(", ENCODING BINARY" if binary else ", DELIMITER '%s'" % delim))
    if rnd:
        spec["random"] = r.choice([100, 1000, 10000])
    if extra:
        spec.update(extra=extra, indexes=indexes, notnull=notnull, hot=hot)
    if elems[0].startswith(("SALT", "BUCKET")):
        spec["skip_cols"] = key
    return spec


ODD_VALUES = [None, 0, -1, 1, 1.5, -0.0, "1", "01", "1.0", " 1", "abc", "",
              b"", b"\x00", b"a", 2**53 + 1, 9.3e18, -9.3e18, INT64_MAX,
              -INT64_MAX - 1, float("inf"), "\u00e9", "%", "_"]


def answer_lost(message):
    """A write's error saying its answer was lost, so that it may or may
    not have been applied (docs/bigtable.md, docs/cassandra.md: a store's
    retries ran out, or a Cassandra lightweight transaction's row was
    written by another since)."""
    return "may yet apply" in message or "may have been applied before" in message


class Mismatch(Exception):
    pass


def inline(sql, params):
    """The statement with its ? parameters written as literals."""
    for p in params:
        sql = sql.replace("?", lit(p), 1)
    return sql


def for_table(sql, t):
    """A statement template for table t.  "{t}" is the table.  "{(}" and
    "{)}" enclose the FROM of an aggregate: on o they make it a subquery
    (LIMIT -1 keeps SQLite from flattening it), because SQLite 3.40.1 can
    aggregate wrongly over an analyzed ordinary table with IN on its
    primary key: SELECT max(host) FROM o WHERE ts = 1 AND host IN ('y',
    'x') gave 'x' though both rows match, where SELECT host ... gives
    both (docs/reliability.md).  "{ni}" after the table is NOT INDEXED on
    o, so that an UPDATE visits its rows in primary key order."""
    sub = t == "o"
    return (sql.replace("{t}", t).replace("{(}", "(SELECT * FROM " if sub else "")
            .replace("{)}", " LIMIT -1)" if sub else "")
            .replace("{ni}", " NOT INDEXED" if sub else ""))


def log_both(log, sql, params):
    """Records a statement as run on w and on o, for a reproducing script.
    The log is a list of steps, each a list of statements, so that the
    shrinker drops a statement from both tables at once."""
    q = inline(sql, params)
    log.append([for_table(q, "w"), for_table(q, "o")])


def strip_key_collations(spec):
    """The design with COLLATE removed from its key columns (widecol refuses
    a collation on a key field; the design then runs without it)."""
    keyish = set(spec["key"]) | set(", ".join(spec.get("indexes", [])).replace(" DESC", "").split(", "))
    cols = [(n, t.split(" COLLATE")[0] if n in keyish else t, g) for n, t, g in spec["cols"]]
    return dict(spec, cols=cols)


def key_collated(spec):
    keyish = set(spec["key"]) | set(", ".join(spec.get("indexes", [])).replace(" DESC", "").split(", "))
    return any("COLLATE" in t for n, t, _ in spec["cols"] if n in keyish)


def pad_text_fields(spec):
    """{column: (width, fill)} for TEXT columns under PAD in any key."""
    types = {n: t for n, t, _ in spec["cols"]}
    out = {}
    for m in re.finditer(r"(\w+) PAD (\d+)(?: '(.)')?", spec["rowkey"] + spec.get("extra", "")):
        if types.get(m.group(1), "").startswith("TEXT"):
            out[m.group(1)] = (int(m.group(2)), m.group(3) or " ")
    return out


def reversed_text_fields(spec):
    """TEXT columns a key REVERSEs (characters, which only valid UTF-8
    has)."""
    types = {n: t for n, t, _ in spec["cols"]}
    found = re.findall(r"(\w+)(?: PAD \d+(?: '.')?)? REVERSE", spec["rowkey"] + spec.get("extra", ""))
    return sorted({c for c in found if types.get(c, "").startswith("TEXT")})


def shift_field(spec):
    """(column, largest value) if the design's first key element is an
    INTEGER field in ascending byte order, the first column of the
    ordinary table's primary key: UPDATE OR REPLACE of it then visits
    rows in the same order on both tables.  The largest value every key
    that holds the field (the row key, an INDEX) can take."""
    types = {n: t for n, t, _ in spec["cols"]}
    k0 = spec["key"][0]
    if types.get(k0) != "INTEGER":
        return None
    rk, every = spec["rowkey"], spec["rowkey"] + spec.get("extra", "")
    if "ENCODING BINARY" in spec.get("options", ""):
        return (k0, 2**40) if re.match(r"%s(,|$)" % k0, rk) else None
    m = re.match(r"%s PAD (\d+)(,|$)" % k0, rk)
    if not m:
        return None
    tops = [10**int(w) - 1 for w in re.findall(r"\b%s PAD (\d+)" % k0, every)]
    tops += [int(x) for x in re.findall(r"\b%s(?: PAD \d+)? DESC (\d+)" % k0, every)]
    return (k0, min(tops))


class Design:
    def __init__(self, spec, rng):
        self.spec = spec
        self.rng = rng
        self.cols = [c[0] for c in spec["cols"]]
        self.types = {c[0]: c[1] for c in spec["cols"]}
        self.gens = {c[0]: c[2] for c in spec["cols"]}
        self.key = spec["key"]
        self.padtext = pad_text_fields(spec)
        self.reversed = reversed_text_fields(spec)
        self.shift = shift_field(spec)
        self.schema = "main"
        self.storage = ""

    def col_defs(self, notnull=()):
        return ", ".join(("%s %s%s" % (n, t, " NOT NULL" if n in notnull else "")).strip()
                         for n, t, _ in self.spec["cols"])

    def create_sql(self):
        """The widecol table, then the ordinary table and its indexes, in
        self.schema (statements name them unqualified, which finds them
        there).  The primary key and indexes take each column's own
        collation."""
        sch = self.schema + "."
        rnd = ", RANDOM(%d)" % self.spec["random"] if "random" in self.spec else ""
        key = ("PRIMARY KEY (%s)" % self.spec["primary"] if "primary" in self.spec
               else "ROWKEY(%s%s)" % (self.spec["rowkey"], rnd))
        w = "CREATE VIRTUAL TABLE %sw USING widecol(%s, %s%s%s%s)" % (
            sch, self.col_defs(), key, self.spec.get("options", ""),
            self.spec.get("extra", ""), self.storage)
        if rnd:
            # Rows may share every key field: o has no key, its key fields
            # are NOT NULL as w's are.
            o = ["CREATE TABLE %so(%s)" % (sch, self.col_defs(
                tuple(self.spec.get("notnull", ())) + tuple(self.key)))]
        else:
            o = ["CREATE TABLE %so(%s, PRIMARY KEY(%s)) WITHOUT ROWID" % (
                sch, self.col_defs(self.spec.get("notnull", ())), ", ".join(self.key))]
        for i, cols in enumerate(self.spec.get("indexes", [])):
            o.append("CREATE INDEX %so_%d ON o(%s)" % (sch, i, cols))
        return w, o

    def row(self):
        return tuple(self.gens[c](self.rng) for c in self.cols)

    def value(self, col, seen):
        r = self.rng.random()
        if r < 0.15:
            return self.rng.choice(ODD_VALUES)
        if r < 0.6 and seen:
            return self.rng.choice(seen)[self.cols.index(col)]
        return self.gens[col](self.rng)

    def total(self, terms):
        """ORDER BY terms made total: on a RANDOM design rows may share
        every key field, so the other columns follow."""
        if "random" not in self.spec:
            return terms
        named = {t.split(" ")[0] for t in terms}
        return terms + [c for c in self.cols if c not in named]

    def some_cols(self):
        """Every column, or a random few (colUsed differs per statement)."""
        if self.rng.random() < 0.5:
            return list(self.cols)
        pick = set(self.rng.sample(self.cols, self.rng.randint(1, len(self.cols))))
        return [c for c in self.cols if c in pick]


def _match_text(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def contains_like(pattern, value):
    """An application's like(): true where the pattern, its wildcards
    left out, is anywhere in the value, in any case."""
    if pattern is None or value is None:
        return None
    needle = _match_text(pattern).replace("%", "").replace("_", "").lower()
    return int(needle in _match_text(value).lower())


def contains_glob(pattern, value):
    """An application's glob(): contains_like(), case sensitive."""
    if pattern is None or value is None:
        return None
    needle = _match_text(pattern).replace("*", "").replace("?", "")
    return int(needle in _match_text(value))


# The remote store the run's widecol tables use (--bigtable, --hbase): its
# STORAGE kind, engine, how its tables are named, where its endpoint is,
# and whether a new table's regions are its split points (HBase's are; the
# emulator keeps one tablet).
STORE = {"kind": "BIGTABLE", "engine": "Bigtable", "env": "BIGTABLE_EMULATOR_HOST",
         "prefix": "projects/diff/instances/diff/tables/"}
HBASE_STORE = {"kind": "HBASE", "engine": "HBase", "env": "WIDECOL_HBASE",
               "prefix": "diff:", "regions_are_splits": True}
# Cassandra keeps only designs in its own form (the CQL table a design
# means), of one type per column: the PRIMARY KEY designs, DESIGNS' and
# CQL_DESIGNS', the versioned ones of CQL_VERSIONED (one version under a
# TTL), no EXISTING.
CASSANDRA_STORE = {"kind": "CASSANDRA", "engine": "Cassandra", "env": "WIDECOL_CASSANDRA",
                   "prefix": "diff.", "cql_only": True, "no_existing": True,
                   "time_step": 1}

# Further designs in Cassandra's form for the Cassandra store: a
# composite partition key with a DESC REAL clustering column, eBay's likes
# with User_By_Item as an INDEX (a CQL table of its own), an INDEX on a
# column outside the key (a row's entry moves when it changes), a BLOB partition
# key (each column's values of one type, as CQL's columns are; no -0.0,
# which CQL tells from 0.0 and SQLite does not).
CQL_DESIGNS = [
    dict(name="cql_scores",
         cols=[("board", "TEXT", lambda r: r.choice(["b", "bb", "b\u00e9", "Z"])),
               ("season", "INTEGER", lambda r: r.randint(-2, 3)),
               ("score", "REAL", lambda r: r.choice([0.5, 1.0, 2.25, -3.5, 1e10, 7.0])),
               ("player", "TEXT", lambda r: r.choice(["p", "q", "pp", "a b"])),
               ("note", "TEXT", lambda r: r.choice([None, "n", "nn"]))],
         rowkey="", primary="(board, season), score DESC, player",
         key=["board", "season", "score", "player"]),
    dict(name="cql_liked",
         cols=[("user_id", "TEXT", lambda r: r.choice(["u1", "u2", "u12", "a"])),
               ("liked_at", "INTEGER", lambda r: r.randint(-5, 40)),
               ("item_id", "INTEGER", lambda r: r.randint(0, 9)),
               ("title", "TEXT", lambda r: r.choice([None, "x", "yy"]))],
         rowkey="", primary="(user_id), liked_at DESC, item_id",
         extra=", INDEX by_item(TOKEN(item_id), item_id, liked_at DESC) INCLUDE (title)",
         indexes=["item_id, liked_at DESC"],
         key=["user_id", "liked_at", "item_id"]),
    dict(name="cql_tagged",
         cols=[("u", "TEXT", lambda r: r.choice(["u1", "u2", "u3"])),
               ("t", "INTEGER", lambda r: r.randint(0, 12)),
               ("tag", "TEXT", lambda r: r.choice(["a", "b", "c"])),
               ("note", "TEXT", lambda r: r.choice([None, "n"]))],
         rowkey="", primary="(u), t",
         extra=", INDEX by_tag(TOKEN(tag), tag, t) INCLUDE (note)",
         indexes=["tag, t"], notnull=["tag"], hot=["tag"],
         key=["u", "t"]),
    dict(name="cql_blobs",
         cols=[("k", "BLOB", lambda r: r.choice([b"\x00", b"\x01\x02", b"\xff", b"k"])),
               ("n", "INTEGER", lambda r: r.randint(-50, 50)),
               ("v", "TEXT", lambda r: r.choice([None, "v", "w"]))],
         rowkey="", primary="(k), n",
         key=["k", "n"]),
]


class Runner:
    def __init__(self, ext, seed, cases, bigtable=None):
        self.ext = ext
        self.seed = seed
        self.cases = cases
        self.bigtable = bigtable
        self.n_tables = 0
        self.n_partial = 0
        self.n_ambiguous = 0
        self.resync = False
        self.n_cases = 0
        self.n_mismatch = 0
        self.n_refused = 0
        self.w_error = ""
        self.n_existing = 0
        self.existing = False
        self.own_match = False

    def connect(self):
        # Statements are finalized after use, as a C program's are, so that
        # what widecol kept of one cannot outlive it unnoticed (ASan).
        db = wctest.connect(self.ext, bigtable=self.bigtable, isolation_level=None,
                            cached_statements=0)
        db.text_factory = bytes
        if self.own_match:
            db.create_function("like", 2, contains_like, deterministic=True)
            db.create_function("glob", 2, contains_glob, deterministic=True)
        return db

    def new_bigtable(self):
        """A Bigtable table no design has used in this run."""
        self.n_tables += 1
        # Named by process and runner too: an EXISTING design's table
        # outlives its DROP, and each runner counts from 1.  (By the
        # runner's whole name: by its initial, the races took the main
        # runner's tables, were refused at CREATE, and 3 in 4 never ran.)
        return STORE["prefix"] + "p%d_s%d_%s%d" % (
            os.getpid(), self.seed, type(self).__name__.lower(), self.n_tables)

    def fresh_tables(self, line, names):
        """A logged statement with each Bigtable table renamed to a new one,
        so that a replay starts from empty tables; names maps the log's
        tables to the replay's (an EXISTING table opens the one its maker
        made)."""
        def rename(m):
            if m.group(0) not in names:
                names[m.group(0)] = "'%s'" % self.new_bigtable()
            return names[m.group(0)]
        return re.sub(r"'%s[^']*'" % re.escape(STORE["prefix"]), rename, line)

    def drop_w(self, db):
        """Drops w, which deletes its Bigtable tables."""
        if self.bigtable:
            try:
                db.execute("DROP TABLE IF EXISTS w")
            except sqlite3.Error:
                pass

    def run_both(self, db, sql_w, sql_o, params, ordered):
        """Runs a statement on w and on o; returns both outcomes."""
        out = []
        for sql in (sql_w, sql_o):
            try:
                rows = db.execute(sql, params).fetchall()
                if not ordered:
                    rows.sort(key=repr)
                out.append(("ok", rows))
            except sqlite3.Error as e:
                if sql is sql_w:
                    self.w_error = str(e)
                if self.bigtable and sql is sql_w and "keeps no row" in str(e):
                    out.append(("refused", "Bigtable key"))
                elif (self.existing and sql is sql_w
                      and getattr(e, "sqlite_errorcode", 0) == sqlite3.SQLITE_MISMATCH):
                    # A value its column's cell cannot hold (an EXISTING
                    # table's CELLS type), refused as documented.
                    out.append(("refused", "cell type"))
                elif (self.existing and sql is sql_w
                      and getattr(e, "sqlite_errorcode", 0) == sqlite3.SQLITE_CONSTRAINT_CHECK):
                    # A row with no cell, which an EXISTING table cannot
                    # keep, refused as documented.
                    out.append(("refused", "no cell"))
                elif self.bigtable and sql is sql_w and answer_lost(str(e)):
                    # Its answer was lost (--faults): applied or not, as
                    # documented; o takes w's rows.
                    out.append(("maybe", "answer lost"))
                else:
                    out.append(("error", type(e).__name__))
        return out

    def skipped_cellless(self, d, db):
        """True if w and o differ, and only by rows with no cell that o
        took and w skipped (an UPDATE's: w kept the row as it was)."""
        cols = ", ".join(d.cols)
        w = collections.Counter(db.execute("SELECT %s FROM w" % cols).fetchall())
        o = collections.Counter(db.execute("SELECT %s FROM o" % cols).fetchall())
        only_o, only_w = o - w, w - o
        cells = [i for i, c in enumerate(d.cols) if c not in d.key]
        return (bool(only_o) and sum(only_w.values()) <= sum(only_o.values())
                and all(row[i] is None for row in only_o for i in cells))

    def check(self, design, db, log, sql, params=(), ordered=True):
        self.n_cases += 1
        res = self.run_both(db, for_table(sql, "w"), for_table(sql, "o"),
                            params, ordered)
        # Bigtable has no multi-row transactions: a write that fails keeps
        # what it sent before failing (docs/bigtable.md).  When it fails
        # as on o, o takes w's rows and the comparison goes on from there.
        if (self.bigtable and res[0] == res[1] and res[0][0] == "error"
                and re.match(r"\s*(INSERT|UPDATE|DELETE|REPLACE)", sql, re.I)):
            self.resync = True
        # A key Bigtable cannot hold (empty, or over 4 KiB) is refused as
        # documented; o, which took the row, takes w's rows back.
        if res[0][0] == "refused":
            self.n_refused += 1
            self.resync = True
            return res[0]
        if res[0][0] == "maybe":
            self.n_ambiguous += 1
            self.resync = True
            return res[0]
        # OR IGNORE skips, on an EXISTING table, a row that would have no
        # cell (a constraint, as documented) where o takes it: o takes w's
        # rows where each row only o has is such a row.
        if (self.existing and res[0][0] == "ok" and re.search(r"\bOR IGNORE\b", sql)
                and self.skipped_cellless(design, db)):
            self.n_refused += 1
            self.resync = True
            return res[0]
        if res[0] != res[1]:
            q = inline(sql, params)
            qw, qo = for_table(q, "w"), for_table(q, "o")

            def differs(db2):
                return self.run_both(db2, qw, qo, (), ordered) == res
            self.report("MISMATCH in design %s (seed %d)" % (design.spec["name"], self.seed),
                        log, differs, [qw + ";", qo + ";", "-- widecol: %r%s" % (
                            res[0], " (%s)" % self.w_error if res[0][0] == "error" else ""),
                            "-- ordinary: %r" % (res[1],)])
        return res[0]

    def replays(self, log, probe):
        """True if probe(db) holds after the statements of log, run on a
        new database (their errors ignored)."""
        db = self.connect()
        names = {}
        try:
            for step in log:
                for line in step:
                    try:
                        db.execute(self.fresh_tables(line, names) if self.bigtable else line)
                    except sqlite3.Error:
                        pass
            return probe(db)
        finally:
            self.drop_w(db)
            db.close()

    def shrink(self, log, probe, budget=600):
        """The shortest sublist of log found (by removing ever smaller
        chunks, ddmin-style) after which probe still holds."""
        n = 2
        while len(log) >= 2 and budget > 0:
            size = max(len(log) // n, 1)
            for i in range(0, len(log), size):
                budget -= 1
                cand = log[:i] + log[i + size:]
                if self.replays(cand, probe):
                    log, n = cand, max(n - 1, 2)
                    break
                if budget <= 0:
                    break
            else:
                if size == 1:
                    break
                n = min(n * 2, len(log))
        return log

    def report(self, title, log, probe, tail):
        """Prints a minimal script that reproduces a failure, then stops
        the design."""
        self.n_mismatch += 1
        if self.replays(log, probe):
            log = self.shrink(list(log), probe)
        print(title)
        if self.own_match:
            print("-- reproduce in Python: like() and glob() are contains_like() and "
                  "contains_glob() of tests/harness/differential.py")
        else:
            print("-- reproduce with: sqlite3 :memory: then paste")
        print(".load %s" % self.ext)
        if self.bigtable:
            print(".load %s" % self.bigtable)
        for step in log:
            for line in step:
                print(line + ";")
        for line in tail:
            print(line)
        raise Mismatch()

    def predicate(self, d, seen, params):
        col = d.rng.choice(d.key * 3 + d.cols + d.spec.get("hot", []) * 3)
        op = d.rng.choice(["=", "=", "IS", "IN", "<", "<=", ">", ">=",
                           "BETWEEN", "LIKE", "GLOB", "!=", "IS NOT"])
        as_param = d.rng.random() < 0.5

        def val():
            v = d.value(col, seen)
            if as_param:
                params.append(v)
                return "?"
            return lit(v)
        if op == "IN":
            return "%s IN (%s)" % (col, ", ".join(val() for _ in range(d.rng.randint(1, 4))))
        if op == "BETWEEN":
            return "%s BETWEEN %s AND %s" % (col, val(), val())
        if op in ("LIKE", "GLOB"):
            v = d.value(col, seen)
            pat = ("" if v is None else str(v)[:d.rng.randint(0, 3)]) + ("%" if op == "LIKE" else "*")
            if as_param:
                params.append(pat)
                return "%s %s ?" % (col, op)
            return "%s %s %s" % (col, op, lit(pat))
        return "%s %s %s" % (col, op, val())

    def where(self, d, seen, params):
        n = d.rng.choice([0, 1, 2, 2, 3, 3])
        if n == 0:
            return ""
        parts = [self.predicate(d, seen, params) for _ in range(n)]
        glue = " OR " if d.rng.random() < 0.15 else " AND "
        return " WHERE " + glue.join(parts)

    def order_by(self, d):
        """Every key column, so the order is total; sometimes in another
        order than the key's, or with an extra column first."""
        keys = list(d.key)
        hot = d.spec.get("hot")
        if hot and d.rng.random() < 0.5:
            # An index's order, made total by the key.
            keys = d.rng.sample(hot, d.rng.randint(1, len(hot))) + keys
        elif d.rng.random() < 0.3:
            d.rng.shuffle(keys)
        if d.rng.random() < 0.15:
            keys.insert(d.rng.randint(0, len(keys)), d.rng.choice(d.cols))
        keys = d.total(keys)
        if d.rng.random() < 0.05:
            # Every column: on a wide design an ORDER BY of 64 terms or
            # more, which SQLite's planner drops (while a LIMIT still
            # reaches xBestIndex).
            keys += [c for c in d.cols if c not in keys]
        dirs = [d.rng.choice(["", " DESC"]) for _ in keys]
        if d.rng.random() < 0.5:
            dirs = [dirs[0]] * len(keys)
        return ", ".join(k + s for k, s in zip(keys, dirs))

    def skip_select(self, d, db, log, seen):
        """Constraints on the key fields after the first, or after a SALT or
        BUCKET (skip_cols): the shape skip scans and merges are for."""
        params = []
        parts = []
        for col in d.spec.get("skip_cols", d.key[1:]):
            if d.rng.random() < 0.7:
                v = d.value(col, seen)
                op = d.rng.choice(["=", "<", "<=", ">", ">=", "BETWEEN", "NEAR", "NEAR"])
                if op == "NEAR" and isinstance(v, int):
                    # A short range, the kind enumerated value by value.
                    params += [v, min(v + d.rng.randint(0, 40), 2**63 - 1)]
                    parts.append("%s BETWEEN ? AND ?" % col)
                elif op in ("BETWEEN", "NEAR"):
                    params += [v, d.value(col, seen)]
                    parts.append("%s BETWEEN ? AND ?" % col)
                else:
                    params.append(v)
                    parts.append("%s %s ?" % (col, op))
        w = (" WHERE " + " AND ".join(parts)) if parts else ""
        limit = " LIMIT %d" % d.rng.randint(0, 6) if d.rng.random() < 0.5 else ""
        order = self.order_by(d)
        if d.rng.random() < 0.5:
            # The order a merge gives: the fields after the skipped ones,
            # then the skipped ones.
            after = d.spec.get("skip_cols", d.key[1:])
            desc = d.rng.choice(["", " DESC"])
            order = ", ".join(k + desc for k in d.total(after + [k for k in d.key if k not in after]))
        self.check(d, db, log, "SELECT %s FROM {t}%s ORDER BY %s%s" % (
            ", ".join(d.cols), w, order, limit), params)

    def select(self, d, db, log, seen):
        params = []
        w = self.where(d, seen, params)
        cols = ", ".join(d.some_cols())
        r = d.rng.random()
        if len(d.key) > 1 and d.rng.random() < 0.2:
            self.skip_select(d, db, log, seen)
        elif r < 0.4:
            self.check(d, db, log, "SELECT %s FROM {t}%s" % (cols, w), params, ordered=False)
        elif r < 0.72:
            order = self.order_by(d)
            limit = ""
            if d.rng.random() < 0.5:
                limit = " LIMIT %d OFFSET %d" % (d.rng.randint(0, 5), d.rng.randint(0, 3))
            self.check(d, db, log, "SELECT %s FROM {t}%s ORDER BY %s%s" % (cols, w, order, limit), params)
        elif r < 0.82:
            # min() and max() of a column under NOCASE or RTRIM may give
            # either of two values the collation calls equal.
            plain = [c for c in d.cols if "COLLATE" not in d.types[c]]
            agg = d.rng.choice(["count(*)", "count(%s)" % d.rng.choice(d.cols),
                                "min(%s)" % d.rng.choice(plain),
                                "max(%s)" % d.rng.choice(plain),
                                "count(DISTINCT %s)" % d.rng.choice(d.key)])
            self.check(d, db, log, "SELECT %s FROM {(}{t}%s{)}" % (agg, w), params)
        elif r < 0.92:
            self.group_select(d, db, log, w, params)
        else:
            k = d.rng.choice(d.key)
            self.check(d, db, log, "SELECT j.x, {t}.%s FROM j JOIN {t} ON {t}.%s = j.x" % (
                ", {t}.".join(d.cols), k), (), ordered=False)

    def group_select(self, d, db, log, w, params):
        """GROUP BY and window ORDER BY over key fields, in the column's own
        collation (or another one).  What is compared does not depend on
        which row of a group SQLite shows: counts, lengths, ranks."""
        keys = d.rng.sample(d.key, d.rng.randint(1, len(d.key)))
        if d.rng.random() < 0.1:
            keys[0] += d.rng.choice([" COLLATE NOCASE", " COLLATE BINARY"])
        by = ", ".join(keys)
        if d.rng.random() < 0.5:
            sql = "SELECT count(*), total(length(CAST(%s AS BLOB))) FROM {t}%s GROUP BY %s" % (
                keys[0].split(" ")[0], w, by)
        else:
            sql = "SELECT %s, rank() OVER (ORDER BY %s) FROM {t}%s" % (
                ", ".join(d.cols), by, w)
        self.check(d, db, log, sql, params, ordered=False)

    def write_where(self, d, seen, params):
        """A WHERE for UPDATE and DELETE.  Large designs exist to test skip
        scans over many rows, so their writes touch one value of the
        leading key field and the tables stay large."""
        if d.spec.get("rows", 60) <= 60:
            return self.where(d, seen, params)
        params.append(d.value(d.key[0], seen))
        rest = self.where(d, seen, params)
        return " WHERE %s = ?%s" % (d.key[0], rest.replace(" WHERE ", " AND (", 1) + ")" if rest else "")

    def check_or_refused(self, d, db, log, sql, params, why):
        """check() for a statement widecol may refuse, as documented, with
        an error containing `why`: then w must be as it was and the
        statement does not run on o.  Returns "refused", or the outcome
        on w."""
        self.n_cases += 1
        qw, qo = for_table(sql, "w"), for_table(sql, "o")
        before = sorted(db.execute("SELECT * FROM w").fetchall(), key=repr)
        try:
            out_w = ("ok", db.execute(qw, params).fetchall())
        except sqlite3.Error as e:
            if why in str(e):
                after = sorted(db.execute("SELECT * FROM w").fetchall(), key=repr)
                if (after != before and self.bigtable
                        and "What a statement guarantees" in str(e)):
                    # What it sent before the refusal stays (documented).
                    log_both(log, sql, params)
                    self.resync = True
                    self.n_refused += 1
                    return "refused"
                if after != before:
                    q = inline(qw, params)

                    def changed(db2):
                        b = sorted(db2.execute("SELECT * FROM w").fetchall(), key=repr)
                        try:
                            db2.execute(q)
                        except sqlite3.Error:
                            pass
                        return sorted(db2.execute("SELECT * FROM w").fetchall(), key=repr) != b
                    self.report("REFUSED BUT CHANGED in design %s (seed %d)" % (
                        d.spec["name"], self.seed), log, changed,
                        [q + ";", "-- widecol refused it (%s) yet changed w" % e])
                self.n_refused += 1
                return "refused"
            out_w = ("error", type(e).__name__)
        try:
            out_o = ("ok", db.execute(qo, params).fetchall())
        except sqlite3.Error as e:
            out_o = ("error", type(e).__name__)
        if out_w != out_o:
            q = inline(sql, params)
            qw2, qo2 = for_table(q, "w"), for_table(q, "o")

            def differs(db2):
                return self.run_both(db2, qw2, qo2, (), True) == [out_w, out_o]
            self.report("MISMATCH in design %s (seed %d)" % (d.spec["name"], self.seed),
                        log, differs, [qw2 + ";", qo2 + ";", "-- widecol: %r" % (out_w,),
                                       "-- ordinary: %r" % (out_o,)])
        log_both(log, sql, params)
        return out_w[0]

    def point_write(self, d, db, log, seen):
        """UPDATE or DELETE of one row named by its whole key, each field
        with '=' (or IN, or an expression) and a bound value: for a TEXT
        field that reads as a number, often the number, as an application
        binding an integer would."""
        row = d.rng.choice(seen)
        parts, params = [], []
        for k in d.key:
            v = row[d.cols.index(k)]
            num = as_number(v) if d.types[k].startswith("TEXT") else None
            if num is not None and d.rng.random() < 0.6:
                v = num
            form = d.rng.choice(["= ?", "= ?", "IN (?)", "= ? + 0", "= CAST(? AS INTEGER)"])
            parts.append("%s %s" % (k, form))
            params.append(v)
        where = " WHERE " + " AND ".join(parts)
        if d.rng.random() < 0.5:
            sql = "DELETE FROM {t}" + where
        else:
            col = d.rng.choice(d.cols)
            sql = "UPDATE {t} SET %s = ?%s" % (col, where)
            params = [d.gens[col](d.rng)] + params
        self.check(d, db, log, sql, params)
        log_both(log, sql, params)

    def self_write(self, d, db, log, seen):
        """Writes that read the table they write, in the forms whose meaning
        SQLite's virtual-table interface does not change: a subquery over
        columns the statement does not set, rows copied under another
        value of the first key field, a DELETE by a subquery."""
        free = [c for c in d.cols if c not in d.key and c not in d.spec.get("hot", ())
                and c not in d.spec.get("notnull", ())]
        k0, k = d.key[0], d.rng.choice(d.key)
        params = []
        r = d.rng.random()
        if r < 0.35 and free:
            col = d.rng.choice(free)
            w = self.write_where(d, seen, params)
            # max() under NOCASE or RTRIM may give either of two values the
            # collation calls equal, by the order rows are read in.
            subs = ["(SELECT count(*) FROM {t} AS x WHERE x.%s < {t}.%s)" % (k, k)]
            if "COLLATE" not in d.types[col]:
                subs.append("(SELECT max(%s) FROM {t})" % col)
            sub = d.rng.choice(subs)
            sql = "UPDATE {t} SET %s = %s%s" % (col, sub, w)
        elif r < 0.7:
            src, dst = (d.rng.choice(seen)[d.cols.index(k0)] for _ in range(2))
            sel = ", ".join("?" if c == k0 else c for c in d.cols)
            # ORDER BY the key: which 20 rows are copied must not depend on
            # the order either table is read in.
            sql = "%s INTO {t}(%s) SELECT %s FROM {t} WHERE %s = ? ORDER BY %s LIMIT 20" % (
                d.rng.choice(["INSERT OR IGNORE", "INSERT OR REPLACE"]),
                ", ".join(d.cols), sel, k0, ", ".join(d.total(list(d.key))))
            params = [dst, src]
        else:
            inner = self.where(d, seen, params)
            sql = "DELETE FROM {t} WHERE %s IN (SELECT %s FROM {t}%s)" % (k, k, inner)
        self.check(d, db, log, sql, params)
        log_both(log, sql, params)

    def shift_write(self, d, db, log, seen):
        """UPDATE OR REPLACE moving rows along the first key field, on both
        tables in key order (o NOT INDEXED): a row moved onto a key that
        the statement then reaches is either done as SQLite does it for o
        or refused, leaving w as it was."""
        col, top = d.shift
        delta = d.rng.choice([1, 1, 2, 5, -1])
        vals = [r[d.cols.index(col)] for r in seen]
        vals = [v for v in vals if isinstance(v, int)]
        if not vals:
            return
        lo, hi = sorted((d.rng.choice(vals), d.rng.choice(vals)))
        bottom = -2**40 if top == 2**40 else 0
        lo = max(lo, bottom + max(0, -delta))
        hi = min(hi, top - max(0, delta))
        sql = "UPDATE OR REPLACE {t}{ni} SET %s = %s + ? WHERE %s BETWEEN ? AND ?" % (col, col, col)
        self.check_or_refused(d, db, log, sql, [delta, lo, hi], "still had to update")

    def fill_write(self, d, db, log, seen):
        """A PAD text field at full width ending in its fill, then the same
        row with the fill stripped, which would share its key: widecol
        refuses the first."""
        col = d.rng.choice(sorted(d.padtext))
        width, fill = d.padtext[col]
        row = list(d.row())
        row[d.cols.index(col)] = "a" * (width - 1) + fill
        sql = "INSERT INTO {t}(%s) VALUES (%s)" % (", ".join(d.cols), ", ".join("?" * len(d.cols)))
        if self.check_or_refused(d, db, log, sql, row, "PAD fill") == "ok":
            seen.append(tuple(row))
        row[d.cols.index(col)] = "a" * (width - 1)
        sql = sql.replace("INSERT", "INSERT OR REPLACE", 1)
        if self.check(d, db, log, sql, row)[0] == "ok":
            seen.append(tuple(row))
        log_both(log, sql, row)

    def utf8_write(self, d, db, log, seen):
        """A REVERSEd or PADded TEXT field given two values that are not
        valid UTF-8: for REVERSE two whose characters, reversed, would be
        the same bytes; for PAD two that, with the next field's bytes,
        could share a key.  widecol must refuse both (characters are what
        REVERSE reverses and PAD counts)."""
        col = d.rng.choice(sorted(set(d.reversed) | set(d.padtext)))
        row = list(d.row())
        for i, raw in enumerate((b"\xb2" * 7 + b"0\xb2", b"\xb2" * 8 + b"0")):
            row[d.cols.index(col)] = raw
            vals = ", ".join("CAST(? AS TEXT)" if c == col else "?" for c in d.cols)
            sql = "%s INTO {t}(%s) VALUES (%s)" % (
                "INSERT OR REPLACE" if i else "INSERT", ", ".join(d.cols), vals)
            self.check_or_refused(d, db, log, sql, row, "not valid UTF-8")

    def bulk_write(self, d, db, log, seen):
        """A load: one INSERT (OR REPLACE, OR IGNORE) of 5 to 40 rows in no
        order, new rows mixed with rows of keys in use (other values), and a
        key twice, as INSERT ... SELECT from a staging table writes them.
        On a store whose reads are calls widecol reads the rows they replace
        ahead, many a call (vtab/wc_prefetch.c): each must still be the row
        there, the statement's own writes included."""
        rows = [d.row() for _ in range(d.rng.randint(5, 40))]
        for i in range(len(rows)):
            if seen and d.rng.random() < 0.4:
                old = d.rng.choice(seen)
                rows[i] = tuple(old[j] if c in d.key else rows[i][j]
                                for j, c in enumerate(d.cols))
        rows.append(rows[d.rng.randrange(len(rows))])
        d.rng.shuffle(rows)
        if d.rng.random() < 0.5:
            rows.sort(key=lambda row: [str(row[d.cols.index(k)]) for k in d.key])
        verb = d.rng.choice(["INSERT OR REPLACE", "INSERT OR REPLACE", "INSERT OR IGNORE",
                             "INSERT"])
        sql = "%s INTO {t}(%s) SELECT * FROM (VALUES %s)" % (verb, ", ".join(d.cols), ", ".join(
            "(%s)" % ", ".join("?" * len(d.cols)) for _ in rows))
        params = [v for row in rows for v in row]
        out = self.check(d, db, log, sql, params)
        if out[0] == "ok":
            seen.extend(rows)
        log_both(log, sql, params)

    def write(self, d, db, log, seen):
        r = d.rng.random()
        if r < 0.03:
            self.bulk_write(d, db, log, seen)
        elif r < 0.04 and (d.reversed or d.padtext):
            self.utf8_write(d, db, log, seen)
        elif r < 0.12 and seen:
            self.point_write(d, db, log, seen)
        elif r < 0.2 and seen:
            self.self_write(d, db, log, seen)
        elif r < 0.25 and d.shift and seen:
            self.shift_write(d, db, log, seen)
        elif r < 0.28 and d.padtext:
            self.fill_write(d, db, log, seen)
        else:
            self.plain_write(d, db, log, seen)
        self.after_write(d, db, log)

    def plain_write(self, d, db, log, seen):
        r = d.rng.random()
        if r < 0.08:
            # Several rows, sometimes one with a NULL key field: the
            # statement fails whole or succeeds whole.
            rows = [d.row() for _ in range(d.rng.randint(2, 3))]
            if d.rng.random() < 0.5:
                bad = list(rows[-1])
                bad[d.cols.index(d.rng.choice(d.key))] = None
                rows[d.rng.randrange(len(rows))] = tuple(bad)
            sql = "INSERT INTO {t}(%s) VALUES %s" % (", ".join(d.cols), ", ".join(
                "(%s)" % ", ".join("?" * len(d.cols)) for _ in rows))
            params = [v for row in rows for v in row]
            out = self.check(d, db, log, sql, params)
            if out[0] == "ok":
                seen.extend(rows)
            log_both(log, sql, params)
        elif r < 0.4:
            row = d.row() if d.rng.random() < 0.8 or not seen else d.rng.choice(seen)
            verb = d.rng.choice(["INSERT", "INSERT OR REPLACE", "INSERT OR IGNORE"])
            sql = "%s INTO {t}(%s) VALUES (%s)" % (verb, ", ".join(d.cols), ", ".join("?" * len(d.cols)))
            out = self.check(d, db, log, sql, row)
            if out[0] == "ok":
                seen.append(row)
            log_both(log, sql, row)
            if (self.bigtable and verb == "INSERT OR IGNORE" and out[0] == "ok"
                    and self.bigtable_refuses(d, db, row)):
                # Bigtable's refusal of the key is a constraint, which OR
                # IGNORE skips (docs/bigtable.md): o drops the row too.
                sql = "DELETE FROM o WHERE %s" % " AND ".join(
                    "%s IS %s" % (k, lit(row[d.cols.index(k)])) for k in d.key)
                db.execute(sql)
                log.append([sql])
                self.n_refused += 1
        elif r < 0.75:
            col = d.rng.choice(d.cols)
            new = d.gens[col](d.rng)
            params = [new]
            w = self.write_where(d, seen, params)
            # Which of several rows moved onto one key survives OR REPLACE or
            # OR IGNORE depends on the order rows are visited, which differs
            # between any two storage orders: such conflicts use plain UPDATE.
            verb = "UPDATE" if col in d.key else d.rng.choice(
                ["UPDATE", "UPDATE OR REPLACE", "UPDATE OR IGNORE"])
            sql = "%s {t} SET %s = ?%s" % (verb, col, w)
            self.check(d, db, log, sql, params)
            log_both(log, sql, params)
        else:
            params = []
            w = self.write_where(d, seen, params)
            sql = "DELETE FROM {t}%s" % w
            self.check(d, db, log, sql, params)
            log_both(log, sql, params)

    def bigtable_refuses(self, d, db, row):
        """True if row's key (or an index key) is one Bigtable cannot hold,
        empty or over 4,096 bytes: the same keys, byte for byte, as a local
        widecol table of the design computes them."""
        if not getattr(d, "probe", False):
            w = d.create_sql()[0]
            w = re.sub(r"CREATE VIRTUAL TABLE \S+ USING", "CREATE VIRTUAL TABLE temp.wprobe USING", w, count=1)
            w = re.sub(r", CELLS\((?:[^()']|'[^']*')*\)", "", w)
            db.execute(re.sub(r", STORAGE \w+ '[^']*'( EXISTING WRITABLE)?", "", w))
            d.probe = True
        db.execute("DELETE FROM temp.wprobe")
        try:
            db.execute("INSERT INTO temp.wprobe(%s) VALUES (%s)" % (
                ", ".join(d.cols), ", ".join("?" * len(d.cols))), row)
        except sqlite3.Error:
            return False
        lengths = [db.execute("SELECT length(rowkey) FROM temp.wprobe_rows").fetchone()[0]]
        for (name,) in db.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table' "
                                  "AND name LIKE 'wprobe\\_idx\\_%' ESCAPE '\\'").fetchall():
            name = name.decode() if isinstance(name, bytes) else name
            lengths += [r[0] for r in db.execute('SELECT length(ikey) FROM temp."%s"' % name)]
        return any(n == 0 or n > 4096 for n in lengths)

    def after_write(self, d, db, log):
        """After every write the tables must hold the same rows, and the
        tables behind w must agree with each other (found by schema and
        name when w is in an attached database)."""
        if self.resync:
            self.resync = False
            cols = ", ".join(d.cols)
            # As multisets: a RANDOM design's rows may repeat.
            counted = "SELECT %s, count(*) FROM %%s GROUP BY %s" % (cols, cols)
            same = [r[0] for r in db.execute(
                "SELECT (SELECT count(*) FROM (%s EXCEPT %s))"
                " + (SELECT count(*) FROM (%s EXCEPT %s))"
                % (counted % "w", counted % "o", counted % "o", counted % "w"))]
            if same != [0]:
                self.n_partial += 1
                steps = ["DELETE FROM o", "INSERT INTO o SELECT %s FROM w" % cols]
                for sql in steps:
                    db.execute(sql)
                log.append(steps)
        self.check(d, db, log, "SELECT %s FROM {t}" % ", ".join(d.cols), (), ordered=False)
        if "extra" in d.spec or "random" in d.spec or d.schema != "main":
            self.n_cases += 1
            sql = "SELECT * FROM widecol_check('%s.w')" % d.schema
            try:
                got = db.execute(sql).fetchall()
            except sqlite3.Error as e:
                got = [("error", str(e))]

            def broken(db2):
                try:
                    return db2.execute(sql).fetchall() == got
                except sqlite3.Error as e:
                    return [("error", str(e))] == got
            if got != [(b"ok",)]:
                self.report("CHECK FAILED in design %s (seed %d)" % (d.spec["name"], self.seed),
                            log, broken, [sql + ";", "-- gave %r" % (got,)])

    def create(self, spec, rng):
        """The design's tables on a new connection.  A COLLATE on a key field
        must be refused, naming the collation; the design then runs with
        its key fields in BINARY."""
        # Some applications have a like() and glob() of their own (ICU's,
        # or one that matches anywhere in the text), or make LIKE case
        # sensitive: SQLite calls theirs, whose matches need not share the
        # pattern's prefix.
        match = rng.choice([None] * 6 + ["functions"] * 2 + ["pragma"])
        self.own_match = match == "functions"
        db = self.connect()
        d = Design(spec, rng)
        # A fifth of the designs live in an attached database: the tools
        # must find them as 'aux.w'.
        attach = []
        if match == "pragma":
            attach.append("PRAGMA case_sensitive_like = 1")
            db.execute(attach[-1])
        if rng.random() < 0.2:
            d.schema = "aux"
            attach.append("ATTACH ':memory:' AS aux")
            db.execute(attach[-1])
        self.existing = False
        if self.bigtable:
            d.storage = ", STORAGE %s '%s'" % (STORE["kind"], self.new_bigtable())
            if not STORE.get("no_existing"):
                attach += self.as_existing(d, db, rng)
        w, o = d.create_sql()
        try:
            db.execute(w)
        except sqlite3.Error as e:
            if not key_collated(spec) or "COLLATE" not in str(e):
                raise
            self.n_cases += 1
            self.n_refused += 1
            db.close()
            return self.create(strip_key_collations(spec), rng)
        if STORE.get("regions_are_splits") and not self.existing:
            self.check_regions(d, db, attach + [w])
        for sql in o + ["CREATE TABLE j(x)"]:
            db.execute(sql)
        return d, db, [attach + [w] + o + ["CREATE TABLE j(x)"]]

    def check_regions(self, d, db, made):
        """The engine's regions of a new w are the split points widecol_ddl
        gives its design: one region more than SPLITS has keys (a CREATE
        once made only as many as it had arguments)."""
        w = "%s.w" % d.schema
        # The row table's create (a namespace's comes first).
        ddl = [line for line in db.execute(
            "SELECT CAST(widecol_ddl(?, 'hbase') AS BLOB)", (w,)).fetchone()[0].decode(
            ).splitlines() if line.startswith("create '")][0]
        want = 1 + (len(re.findall(r"'[^']*'", ddl.split("SPLITS => [", 1)[1]))
                    if "SPLITS => [" in ddl else 0)
        got = db.execute("SELECT count(*) FROM widecol_regions(?)", (w,)).fetchone()[0]
        if got != want:
            self.n_mismatch += 1
            print("MISMATCH: %s on %s has %d regions; widecol_ddl's SPLITS for its design "
                  "make %d" % (w, STORE["engine"], got, want))
            print("-- reproduce with: sqlite3 :memory: then paste")
            print(".load %s" % self.ext)
            print(".load %s" % self.bigtable)
            for line in made:
                print(line + ";")
            print("SELECT widecol_ddl(%s, 'hbase');" % lit(w))
            print("SELECT count(*) FROM widecol_regions(%s);" % lit(w))
            raise Mismatch()

    # The CELLS type that holds every value of one storage class.
    CELL_TYPES = {"integer": "LONG", "real": "DOUBLE", "text": "STRING", "blob": "BYTES"}

    def as_existing(self, d, db, rng):
        """For some designs on Bigtable, w opens as EXISTING WRITABLE the
        Bigtable table another CREATE made (EXTERNAL, then dropped), each
        column not in the key in the cell CELLS names, of the type that
        holds what its generator makes after the column's affinity (a value
        of another type is refused, as documented).  Returns the statements
        run, for the log; d.storage is w's.  Designs with what an EXISTING
        table cannot have (INDEX, FAMILY, RANDOM, SPLITS, values of two
        storage classes in a column) stay as they are."""
        spec = d.spec
        if ("extra" in spec or "random" in spec or "SPLITS" in spec.get("options", "")
                or rng.random() >= 0.3):
            return []
        fields = set(d.key)
        cells = []
        probe = random.Random(rng.random())
        for name, typ, gen in spec["cols"]:
            if name in fields:
                continue
            db.execute("CREATE TEMP TABLE cellprobe(c %s)" % typ)
            db.executemany("INSERT INTO cellprobe VALUES (?)", [(gen(probe),) for _ in range(200)])
            kinds = {r[0] for r in db.execute("SELECT DISTINCT typeof(c) FROM cellprobe")}
            db.execute("DROP TABLE cellprobe")
            kinds = {k.decode() if isinstance(k, bytes) else k for k in kinds} - {"null"}
            if len(kinds) > 1:
                return []
            cells.append("%s '_:%s' %s" % (name, name, self.CELL_TYPES[kinds.pop()]
                                           if kinds else "STRING"))
        if not cells:
            # Every column a field of the key: a row would have no cell.
            return []
        res = re.search(r"'[^']*'", d.storage).group(0)
        maker = [re.sub(r"CREATE VIRTUAL TABLE \S+ USING", "CREATE VIRTUAL TABLE temp.wmaker USING",
                        d.create_sql()[0], count=1).replace(res + ")", res + " EXTERNAL)"),
                 "DROP TABLE temp.wmaker"]
        storage = ", CELLS(%s), STORAGE %s %s EXISTING WRITABLE" % (
            ", ".join(cells), STORE["kind"], res)
        try:
            for sql in maker:
                db.execute(sql)
            # What EXISTING cannot read back (a SALT's source that is no
            # field of the key) is refused at CREATE: such a design stays.
            db.execute(re.sub(r"CREATE VIRTUAL TABLE \S+ USING", "CREATE VIRTUAL TABLE temp.wtry USING",
                              d.create_sql()[0], count=1).replace(d.storage, storage))
            db.execute("DROP TABLE temp.wtry")
        except sqlite3.Error:
            d.storage = ", STORAGE %s '%s'" % (STORE["kind"], self.new_bigtable())
            return []
        d.storage = storage
        self.existing = True
        self.n_existing += 1
        return maker

    def run_design(self, spec, seed):
        rng = random.Random(seed)
        d, db, log = self.create(spec, rng)
        seen = []
        for _ in range(spec.get("rows", 60)):
            row = d.row()
            try:
                db.execute("INSERT INTO o VALUES (%s)" % ", ".join("?" * len(row)), row)
            except sqlite3.IntegrityError:
                continue
            try:
                db.execute("INSERT INTO w(%s) VALUES (%s)" % (", ".join(d.cols), ", ".join("?" * len(row))), row)
            except sqlite3.Error as e:
                if not (self.bigtable and "keeps no row" in str(e)):
                    raise
                db.execute("DELETE FROM o WHERE (%s) IS (%s)" % (", ".join(d.key), ", ".join("?" * len(d.key))),
                           [row[d.cols.index(k)] for k in d.key])
                self.n_refused += 1
                continue
            log_both(log, "INSERT INTO {t}(%s) VALUES (%s)" % (", ".join(d.cols), ", ".join("?" * len(row))), row)
            seen.append(row)
        for v in {r[d.cols.index(d.key[0])] for r in seen[:8]} | {None, 1, "1"}:
            db.execute("INSERT INTO j VALUES (?)", (v,))
            log.append(["INSERT INTO j VALUES (%s)" % lit(v)])
        # Statistics for w's planner (its row count, from w_rows).  Not
        # for o: SQLite 3.40.1, with them, answers an IN on an index whose
        # columns are followed by a range on the primary key wrongly
        # (WHERE x1 = 'a' AND k0 <= -1 AND k2 IN (1e300, 2.0) returned a
        # row with k0 = 0; docs/reliability.md).
        # (On Bigtable there is nothing to analyze: w_rows is a virtual
        # table, and w is taken to be large.)
        if not self.bigtable:
            analyze = 'ANALYZE "%s"."w_rows"' % d.schema
            db.execute(analyze)
            log.append([analyze])
        try:
            for _ in range(self.cases):
                if rng.random() < 0.8:
                    self.select(d, db, log, seen)
                else:
                    self.write(d, db, log, seen)
            self.check_tools(d, db, log)
        finally:
            self.drop_w(db)
            db.close()

    def check_tools(self, d, db, log):
        """The design tools take every table the tester makes: widecol_lint
        and widecol_report on w, after its statements (their history is
        the lint's evidence), end without an error and leave nothing of
        theirs behind in the connection's temp schema."""
        w = lit("%s.w" % d.schema)
        temp = "SELECT count(*) FROM temp.sqlite_schema"
        before = db.execute(temp).fetchone()[0]
        for sql in ("SELECT count(*) FROM widecol_lint(%s)" % w,
                    "SELECT length(widecol_report(%s)) > 0" % w):
            try:
                db.execute(sql).fetchall()
                if db.execute(temp).fetchone()[0] != before:
                    raise sqlite3.Error("left %s in the temp schema" % ", ".join(
                        str(r[0]) for r in db.execute("SELECT name FROM temp.sqlite_schema")))
            except sqlite3.Error as e:
                err = str(e)

                def fails(db2, sql=sql, err=err):
                    try:
                        n = db2.execute(temp).fetchone()[0]
                        db2.execute(sql).fetchall()
                        return (err.startswith("left ")
                                and db2.execute(temp).fetchone()[0] != n)
                    except sqlite3.Error as e2:
                        return str(e2) == err
                self.report("TOOL FAILED in design %s (seed %d)" % (d.spec["name"], self.seed),
                            log, fails, [sql + ";", "-- %s" % err, temp + ";"])


# Versioned designs (VERSIONS n, TTL seconds).  Each runs on w and on a
# model kept in ordinary tables: mv holds every version written, keyed by
# (key fields, rowtime), with the rules of versions applied in SQL that
# reads the model's own state (so a shrunk script still models what it
# keeps).  What a read may see is worked out from mv: the n newest
# versions of each key (VERSIONS n) whose rowtime is not before the cutoff
# now - TTL (clk), a key gone whole when its latest version has expired.
VERSIONED = [
    dict(name="vmetrics",
         cols=[("host", "TEXT", lambda r: r.choice(["h1", "h2", "h10", "web"])),
               ("metric", "TEXT", lambda r: r.choice(["cpu", "mem", "disk", ""])),
               ("value", "REAL", lambda r: r.choice([None, round(r.uniform(0, 1), 3)])),
               ("note", "TEXT", lambda r: r.choice([None, "a", "b", "05"]))],
         rowkey="host, metric", versions=3, ttl=5, key=["host", "metric"]),
    dict(name="vorders",
         cols=[("id", "INTEGER", lambda r: r.randint(0, 40)),
               ("status", "TEXT", lambda r: r.choice(["new", "paid", "shipped", "5"])),
               ("total", "REAL", lambda r: r.choice([None, r.randint(0, 9) * 1.5]))],
         rowkey="id PAD 4", extra=", INDEX by_status(status), FAMILY money(total)",
         versions=4, ttl=0, key=["id"], indexes=["status"], notnull=["status"],
         hot=["status"]),
    dict(name="vsalted",
         cols=[("userid", "TEXT", lambda r: r.choice(["u1", "u2", "u3", "u12"])),
               ("orderid", "INTEGER", lambda r: r.randint(0, 30)),
               ("v", "INTEGER", lambda r: r.choice([None, r.randint(0, 9)]))],
         rowkey="SALT(1, userid), userid, orderid PAD 6",
         extra=", INDEX by_order(orderid PAD 6, userid)",
         versions=2, ttl=3, key=["userid", "orderid"], skip_cols=["userid", "orderid"],
         indexes=["orderid, userid"], hot=["orderid"]),
    dict(name="vttl",
         cols=[("k", "INTEGER", lambda r: r.randint(0, 60)),
               ("v", "TEXT", lambda r: r.choice([None, "x", "y", "10"]))],
         rowkey="k PAD 3", versions=1, ttl=2, key=["k"]),
]


# Versioned designs in Cassandra's form for the Cassandra store: one
# version a key under a TTL (Cassandra keeps one value per cell).
CQL_VERSIONED = [
    dict(name="cql_vttl",
         cols=[("k", "INTEGER", lambda r: r.randint(0, 60)),
               ("v", "TEXT", lambda r: r.choice([None, "x", "y", "10"]))],
         rowkey="TOKEN(k), k", options=", ENCODING BINARY", versions=1, ttl=2, key=["k"]),
    dict(name="cql_vmetrics",
         cols=[("host", "TEXT", lambda r: r.choice(["h1", "h2", "h10", "web"])),
               ("ts", "INTEGER", lambda r: r.randint(0, 30)),
               ("value", "REAL", lambda r: r.choice([None, 0.5, 1.25, 3.0]))],
         rowkey="TOKEN(host), host, ts", options=", ENCODING BINARY", versions=1, ttl=5,
         key=["host", "ts"]),
]


def versioned_random(r, n):
    """A random design (without collations on its key fields) under random
    VERSIONS and TTL."""
    spec = strip_key_collations(random_design(r, n))
    spec = dict(spec, name="vrandom%d" % n, versions=r.choice([1, 2, 3, 5]),
                ttl=r.choice([0, 1, 4]))
    if spec["versions"] == 1 and spec["ttl"] == 0:
        spec["versions"] = 2
    return spec


class VersionRunner(Runner):
    """Versioned designs: w against the model (see VERSIONED)."""

    def setup(self, spec, rng):
        d = Design(spec, rng)
        db = self.connect()
        opts = ", VERSIONS %d" % spec["versions"] + (", TTL %d" % spec["ttl"] if spec["ttl"] else "")
        if spec["versions"] == 1 and not spec["ttl"]:
            opts = ", VERSIONS 1"
        if self.bigtable:
            opts += ", STORAGE %s '%s'" % (STORE["kind"], self.new_bigtable())
        w = "CREATE VIRTUAL TABLE w USING widecol(%s, ROWKEY(%s)%s%s%s)" % (
            d.col_defs(), spec["rowkey"], spec.get("options", ""), spec.get("extra", ""), opts)
        cols = ", ".join(d.cols)
        key = ", ".join(d.key)
        model = [
            "CREATE TABLE mv(%s, rowtime INTEGER, PRIMARY KEY(%s, rowtime)) WITHOUT ROWID" % (d.col_defs(), key),
            "CREATE TABLE stage(%s, rowtime INTEGER)" % d.col_defs(),
            "CREATE TABLE stage_old(%s, rowtime INTEGER)" % d.col_defs(),
            "CREATE TABLE flag(ok)",
            "CREATE TABLE clk(now INTEGER, cutoff INTEGER)",
            "INSERT INTO clk VALUES (0, %d)" % (-2**62),
            "CREATE TABLE j(x)",
            # The versions each key keeps: its n newest, not expired.
            "CREATE VIEW kept AS SELECT * FROM (SELECT mv.*, row_number() OVER "
            "(PARTITION BY %s ORDER BY rowtime DESC) AS rn FROM mv) WHERE rn <= %d "
            "AND rowtime >= (SELECT cutoff FROM clk)" % (key, spec["versions"]),
            "CREATE VIEW latest AS SELECT %s, rowtime FROM kept WHERE rn = 1" % cols,
        ]
        db.execute(w)
        for sql in model:
            db.execute(sql)
        d.vkey = d.key
        return d, db, [[w] + model]

    def match(self, a, b, d):
        return " AND ".join("%s.%s = %s.%s" % (a, k, b, k) for k in d.key)

    def run_step(self, db, log, w_sql, w_params, model_sqls):
        """Runs a write on w and its model statements; returns w's outcome."""
        try:
            db.execute(w_sql, w_params)
            out = ("ok", None)
        except sqlite3.Error as e:
            out = ("error", str(e))
        for m in model_sqls:
            db.execute(m)
        log.append([inline(w_sql, w_params)] + model_sqls)
        return out

    def put_sql(self, d, mode, t_expr):
        """The model of writing each row of stage as a version of its key:
        an expired key is gone first; a key in use takes the version when
        mode is REPLACE (else nothing is written: UNIQUE, or IGNORE)."""
        cols = ", ".join(d.cols)
        scols = ", ".join("s." + c for c in d.cols)
        step = self.step()
        implicit = ("max((SELECT now FROM clk) / %d * %d, coalesce((SELECT max(m.rowtime) + %d "
                    "FROM mv m WHERE %s), 0))" % (step, step, step, self.match("m", "s", d)))
        t = implicit if t_expr is None else t_expr
        allowed = "1" if mode == "REPLACE" else (
            "NOT EXISTS (SELECT 1 FROM latest l WHERE %s)" % self.match("l", "s", d))
        return [
            "DELETE FROM mv WHERE EXISTS (SELECT 1 FROM stage s WHERE %s) AND NOT EXISTS "
            "(SELECT 1 FROM latest l, stage s WHERE %s AND %s)" % (
                self.match("mv", "s", d), self.match("l", "s", d), self.match("l", "mv", d)),
            "INSERT OR REPLACE INTO mv(%s, rowtime) SELECT %s, %s FROM stage s WHERE %s" % (
                cols, scols, t, allowed),
        ]

    def key_live(self, db, d, table="stage"):
        return db.execute("SELECT count(*) FROM latest l, %s s WHERE %s" % (
            table, self.match("l", "s", d))).fetchone()[0] > 0

    def step(self):
        """The step between rowtimes: a microsecond, or on Bigtable and
        HBase (whose cell timestamps are whole milliseconds) a millisecond;
        the store's own where it says (Cassandra keeps rowtime as it is)."""
        return STORE.get("time_step", 1000) if self.bigtable else 1

    def time_value(self, d, db):
        """An explicit rowtime: near now, before or after, or one in use."""
        now = db.execute("SELECT now FROM clk").fetchone()[0]
        r = d.rng.random()
        if r < 0.3:
            got = db.execute("SELECT rowtime FROM mv ORDER BY random() LIMIT 1").fetchone()
            if got:
                return got[0]
        if r < 0.5:
            t = max(0, now - d.rng.randint(0, 8000000))
        else:
            t = now + d.rng.randint(0, 2000000)
        return t // self.step() * self.step()

    def compare(self, d, db, log, sql_w, sql_m, params, ordered):
        self.n_cases += 1
        res = self.run_both(db, sql_w, sql_m, params, ordered)
        if res[0] != res[1]:
            qw, qm = inline(sql_w, params), inline(sql_m, params)

            def differs(db2):
                return self.run_both(db2, qw, qm, (), ordered) == res
            self.report("VERSIONS MISMATCH in design %s (seed %d)" % (d.spec["name"], self.seed),
                        log, differs, [qw + ";", qm + ";", "-- widecol: %r" % (res[0],),
                                       "-- model: %r" % (res[1],)])

    def vread(self, d, db, log, seen):
        params = []
        pred = self.where(d, seen, params)
        pred = pred.replace(" WHERE ", "", 1)
        if len(d.cols) >= 60 and " OR " in pred:
            # Past 59 columns SQLite's colUsed cannot tell widecol that a
            # statement reads versions, and an OR may be read branch by
            # branch (documented in widecol.md): such reads use AND.
            params = []
            pred = " AND ".join(self.predicate(d, seen, params) for _ in range(2))
        hot, got = d.spec.get("hot"), None
        if hot and d.rng.random() < 0.3:
            # A value an older version had in an indexed column, as of
            # then: what an index holding only the latest would miss.
            col = d.rng.choice(hot)
            got = db.execute("SELECT %s, rowtime FROM mv ORDER BY random() LIMIT 1" % col).fetchone()
            if got:
                pred, params = "%s = ?" % col, [got[0]]
        cols = ", ".join(d.some_cols()) + ", rowtime"
        r = d.rng.random()
        order = d.rng.random() < 0.5
        # Total orders: the key (either way), then rowtime, which no two
        # versions of a key share.
        kdir = d.rng.choice(["", " DESC"])
        tail = d.rng.choice(["rowtime DESC", "rowtime DESC", "rowtime",
                             "%s, rowtime DESC" % d.rng.choice(d.cols)])
        ob = " ORDER BY %s, %s" % (", ".join(k + kdir for k in d.key), tail) if order else ""
        if r < 0.35:
            w = " WHERE " + pred if pred else ""
            self.compare(d, db, log, "SELECT %s FROM w%s%s" % (cols, w, ob),
                         "SELECT %s FROM latest%s%s" % (cols, w, ob), params, order)
            return
        n = d.rng.choice([1, 2, 3, 5]) if r < 0.8 else 1
        asof = None
        if r >= 0.6:
            asof = self.time_value(d, db) + d.rng.choice([0, 0, -1, 1])
        if hot and pred.endswith(" = ?") and len(params) == 1 and got and d.rng.random() < 0.7:
            asof, r = got[1], max(r, 0.6)
        parts = ["versions = %s" % (n if d.rng.random() < 0.5 else "?")] if r < 0.8 or d.rng.random() < 0.3 else []
        wparams = list(params)
        if parts and parts[0].endswith("?"):
            wparams.append(n)
        if asof is not None:
            parts.append("asof = ?")
            wparams.append(asof)
        if not parts:
            parts, n = ["versions = 1"], 1
        w = " WHERE " + ("(%s) AND " % pred if pred else "") + " AND ".join(parts)
        model = ("SELECT %s FROM (SELECT *, row_number() OVER (PARTITION BY %s ORDER BY "
                 "rowtime DESC) AS rn2 FROM kept WHERE rowtime <= %d) WHERE rn2 <= %d%s%s" % (
                     cols, ", ".join(d.key), asof if asof is not None else 2**62, n,
                     " AND (%s)" % pred if pred else "", ob))
        sql_w = "SELECT %s FROM w%s%s" % (cols, w, ob)
        if d.rng.random() < 0.15:
            # Aggregates over the versions: per key, and over them all.
            keys = ", ".join(d.key)
            agg = d.rng.choice(["SELECT %s, count(*), max(rowtime) FROM ({q}) GROUP BY %s" % (keys, keys),
                                "SELECT count(*), count(DISTINCT %s), sum(rowtime) FROM ({q})" % d.key[0]])
            cols2 = ", ".join(d.key) + ", rowtime"
            sql_w = agg.replace("{q}", "SELECT %s FROM w%s" % (cols2, w))
            model = agg.replace("{q}", model.replace("SELECT %s FROM" % cols, "SELECT %s FROM" % cols2, 1).replace(ob, ""))
            order = False
        # The model's parameters are the predicate's, then nothing.
        self.n_cases += 1
        res_w = self.run_one(db, sql_w, wparams, order)
        res_m = self.run_one(db, model, params, order)
        if res_w != res_m:
            qw, qm = inline(sql_w, wparams), inline(model, params)

            def differs(db2):
                return [self.run_one(db2, qw, (), order), self.run_one(db2, qm, (), order)] == [res_w, res_m]
            self.report("VERSIONS MISMATCH in design %s (seed %d)" % (d.spec["name"], self.seed),
                        log, differs, [qw + ";", qm + ";", "-- widecol: %r" % (res_w,),
                                       "-- model: %r" % (res_m,)])

    def run_one(self, db, sql, params, ordered):
        try:
            rows = db.execute(sql, params).fetchall()
            if not ordered:
                rows.sort(key=repr)
            return ("ok", rows)
        except sqlite3.Error as e:
            return ("error", type(e).__name__)

    def expect(self, d, db, log, out, want_error, what):
        """w's outcome of a write must be what the model says."""
        self.n_cases += 1
        if (out[0] == "error") != want_error:
            def differs(db2):
                return True
            self.report("VERSIONS WRITE MISMATCH in design %s (seed %d)" % (d.spec["name"], self.seed),
                        log, lambda db2: False,
                        ["-- %s: widecol gave %r, the model expected %s" % (
                            what, out, "an error" if want_error else "success")])

    def vinsert(self, d, db, log, seen):
        row = d.row() if d.rng.random() < 0.6 or not seen else d.rng.choice(seen)
        mode = d.rng.choice(["INSERT", "REPLACE", "REPLACE", "IGNORE"])
        t = self.time_value(d, db) if d.rng.random() < 0.5 else None
        db.execute("DELETE FROM stage")
        db.execute("INSERT INTO stage(%s, rowtime) VALUES (%s)" % (
            ", ".join(d.cols), ", ".join("?" * (len(d.cols) + 1))), list(row) + [t])
        live = self.key_live(db, d)
        verb = {"INSERT": "INSERT", "REPLACE": "INSERT OR REPLACE", "IGNORE": "INSERT OR IGNORE"}[mode]
        cols = d.cols + (["rowtime"] if t is not None or d.rng.random() < 0.2 else [])
        vals = list(row) + ([t] if "rowtime" in cols else [])
        w_sql = "%s INTO w(%s) VALUES (%s)" % (verb, ", ".join(cols), ", ".join("?" * len(vals)))
        stage = ["DELETE FROM stage", "INSERT INTO stage(%s, rowtime) VALUES (%s)" % (
            ", ".join(d.cols), ", ".join(lit(v) for v in list(row) + [t]))]
        model = stage + self.put_sql(d, mode, "s.rowtime" if t is not None else None)
        out = self.run_step(db, log, w_sql, vals, model)
        self.expect(d, db, log, out, mode == "INSERT" and live, inline(w_sql, vals))
        seen.append(row)

    def vupdate(self, d, db, log, seen):
        free = [c for c in d.cols if c not in d.key]
        if not free:
            return
        col = d.rng.choice(free)
        new = d.gens[col](d.rng)
        params = []
        pred = self.where(d, seen, params)
        tform = d.rng.choice([None, None, "lit", "same", "older"])
        t = self.time_value(d, db) if tform == "lit" else None
        step = self.step()
        setr = {None: "", "lit": ", rowtime = %d" % (t or 0), "same": ", rowtime = rowtime",
                "older": ", rowtime = max(rowtime - %d, 0)" % step}[tform]
        texpr = {None: None, "lit": "s.rowtime", "same": "s.rowtime",
                 "older": "max(s.rowtime - %d, 0)" % step}[tform]
        if d.rng.random() < 0.1:
            # Picked by older versions: refused at the first row, nothing
            # written.
            terms, tparams, n, asof = self.history(d, db)
            picked = db.execute("SELECT count(*) FROM %s" % self.history_rows(
                d, pred, n, asof), params).fetchone()[0]
            w_sql = "UPDATE w SET %s = ?%s WHERE %s%s" % (
                col, setr, "(%s) AND " % pred[7:] if pred else "", terms)
            out = self.run_step(db, log, w_sql, [new] + params + tparams, [])
            self.expect(d, db, log, out, picked > 0, inline(w_sql, [new] + params + tparams))
            return
        w_sql = "UPDATE w SET %s = ?%s%s" % (col, setr, pred)
        model = ["DELETE FROM stage",
                 inline("INSERT INTO stage(%s, rowtime) SELECT %s, rowtime FROM latest%s" % (
                     ", ".join(d.cols), ", ".join(d.cols), pred), params),
                 "UPDATE stage SET %s = %s%s" % (col, lit(new), ", rowtime = %d" % t if tform == "lit" else "")]
        model += self.put_sql(d, "REPLACE", texpr)[1:]
        out = self.run_step(db, log, w_sql, [new] + params, model)
        self.expect(d, db, log, out, False, inline(w_sql, [new] + params))

    def vmove(self, d, db, log, seen):
        """An UPDATE of a key field of one row named by its whole key."""
        row = d.rng.choice(seen)
        col = d.rng.choice(d.key)
        new = d.gens[col](d.rng)
        point = " WHERE " + " AND ".join("%s = %s" % (k, lit(row[d.cols.index(k)])) for k in d.key)
        mode = d.rng.choice(["", " OR REPLACE"])
        db.execute("DELETE FROM stage")
        db.execute("INSERT INTO stage(%s) SELECT %s FROM latest%s" % (
            ", ".join(d.cols), ", ".join(d.cols), point))
        db.execute("UPDATE stage SET %s = ?" % col, (new,))
        n_rows = db.execute("SELECT count(*) FROM stage").fetchone()[0]
        same = db.execute("SELECT count(*) FROM stage s, latest l WHERE %s AND %s" % (
            self.match("s", "l", d), " AND ".join("l.%s = %s" % (k, lit(row[d.cols.index(k)])) for k in d.key))).fetchone()[0]
        live = self.key_live(db, d)
        want_error = n_rows > 0 and live and not same and not mode
        ok = "1" if mode else "NOT EXISTS (SELECT 1 FROM latest l, stage s WHERE %s) OR EXISTS " \
            "(SELECT 1 FROM stage s, stage_old o WHERE %s)" % (self.match("l", "s", d), self.match("s", "o", d))
        model = ["DELETE FROM stage", "DELETE FROM stage_old",
                 "INSERT INTO stage_old(%s) SELECT %s FROM latest%s" % (
                     ", ".join(d.cols), ", ".join(d.cols), point),
                 "INSERT INTO stage(%s) SELECT %s FROM stage_old" % (", ".join(d.cols), ", ".join(d.cols)),
                 "UPDATE stage SET %s = %s" % (col, lit(new)),
                 "DELETE FROM flag", "INSERT INTO flag SELECT %s" % ok]
        put = self.put_sql(d, "REPLACE", None)
        model += [put[0] + " AND (SELECT ok FROM flag)", put[1] + " AND (SELECT ok FROM flag)",
                  "DELETE FROM mv WHERE EXISTS (SELECT 1 FROM stage_old o WHERE %s) AND NOT EXISTS "
                  "(SELECT 1 FROM stage s, stage_old o WHERE %s) AND (SELECT ok FROM flag)" % (
                      self.match("mv", "o", d), self.match("s", "o", d))]
        w_sql = "UPDATE%s w SET %s = ?%s" % (mode, col, point)
        out = self.run_step(db, log, w_sql, [new], model)
        self.expect(d, db, log, out, want_error, inline(w_sql, [new]))

    def history(self, d, db):
        """WHERE terms reading older versions, their parameters, and the
        n newest as of the time they read (None: now)."""
        n = d.rng.choice([1, 2, 3])
        asof = self.time_value(d, db) if d.rng.random() < 0.5 else None
        terms, params = ["versions = ?"], [n]
        if asof is not None:
            if d.rng.random() < 0.5:
                terms, params, n = [], [], 1
            terms.append("asof = ?")
            params.append(asof)
        return " AND ".join(terms), params, n, asof

    def history_rows(self, d, pred, n, asof):
        """The model of the versions a read with versions = n, asof = t
        (None: now) and WHERE pred gives."""
        return ("(SELECT *, row_number() OVER (PARTITION BY %s ORDER BY rowtime DESC) "
                "AS rn2 FROM kept WHERE rowtime <= %d) WHERE rn2 <= %d%s" % (
                    ", ".join(d.key), asof if asof is not None else 2**62, n,
                    " AND (%s)" % pred[7:] if pred else ""))

    def vdelete(self, d, db, log, seen):
        params = []
        pred = self.where(d, seen, params)
        keys = ", ".join(d.key)
        if d.rng.random() < 0.2:
            # Rows picked by their older versions go whole.
            terms, tparams, n, asof = self.history(d, db)
            model = [inline("DELETE FROM mv WHERE (%s) IN (SELECT %s FROM %s)" % (
                keys, keys, self.history_rows(d, pred, n, asof)), params)]
            w_sql = "DELETE FROM w WHERE %s%s" % ("(%s) AND " % pred[7:] if pred else "", terms)
            out = self.run_step(db, log, w_sql, params + tparams, model)
            self.expect(d, db, log, out, False, inline(w_sql, params + tparams))
            return
        model = [inline("DELETE FROM mv WHERE (%s) IN (SELECT %s FROM latest%s)" % (
            keys, keys, pred), params)]
        out = self.run_step(db, log, "DELETE FROM w" + pred, params, model)
        self.expect(d, db, log, out, False, inline("DELETE FROM w" + pred, params))

    def vcopy(self, d, db, log, seen):
        """INSERT OR REPLACE ... SELECT from w itself: each row it reads
        takes a new version of itself."""
        params = []
        pred = self.where(d, seen, params)
        cols = ", ".join(d.cols)
        w_sql = "INSERT OR REPLACE INTO w(%s) SELECT %s FROM w%s" % (cols, cols, pred)
        model = ["DELETE FROM stage",
                 inline("INSERT INTO stage(%s) SELECT %s FROM latest%s" % (cols, cols, pred), params)]
        model += self.put_sql(d, "REPLACE", None)[1:]
        out = self.run_step(db, log, w_sql, params, model)
        self.expect(d, db, log, out, False, inline(w_sql, params))

    def tick(self, d, db, log):
        """The clock moves on (or stands, or jumps past the TTL)."""
        now = db.execute("SELECT now FROM clk").fetchone()[0]
        now += d.rng.choice([0, 1, 1000, 700000, 1500000, 4000000])
        ttl = d.spec["ttl"]
        cutoff = now - ttl * 1000000 if ttl else -2**62
        self.run_step(db, log, "SELECT widecol_clock(%d)" % now, (), [
            "UPDATE clk SET now = %d, cutoff = %d" % (now, cutoff)])

    def compact(self, d, db, log):
        """widecol_compact removes exactly what no read sees: afterwards
        the tables behind w hold the model's visible versions, and it says
        how many it removed."""
        vtab = "(SELECT count(*) FROM w_versions)" if d.spec["versions"] > 1 else "0"
        before = db.execute("SELECT (SELECT count(*) FROM w_rows), %s" % vtab).fetchone()
        got = db.execute("SELECT widecol_compact('w')").fetchone()[0]
        log.append(["SELECT widecol_compact('w')"])
        after = db.execute("SELECT (SELECT count(*) FROM w_rows), %s" % vtab).fetchone()
        want = db.execute("SELECT (SELECT count(*) FROM latest), (SELECT count(*) FROM kept) - "
                          "(SELECT count(*) FROM latest)").fetchone()
        said = ('{"rows":%d,"versions":%d}' % (before[0] - after[0], sum(before) - sum(after))).encode()
        self.n_cases += 1
        if tuple(after) != tuple(want) or got != said:
            self.report("COMPACT MISMATCH in design %s (seed %d)" % (d.spec["name"], self.seed),
                        log, lambda db2: False,
                        ["-- widecol_compact gave %r; stored before %r, after %r; visible %r" % (
                            got, before, after, want)])

    def run_design(self, spec, seed):
        rng = random.Random(seed)
        d, db, log = self.setup(spec, rng)
        seen = []
        # On Bigtable the clock is in the future (2100): its GC removes
        # cells a TTL has expired by its own clock, the real one.
        start = (4102444800000000 if self.bigtable else 1700000000000000) + rng.randint(0, 10**9)
        self.run_step(db, log, "SELECT widecol_clock(%d)" % start, (), [
            "UPDATE clk SET now = %d, cutoff = %d" % (
                start, start - spec["ttl"] * 1000000 if spec["ttl"] else -2**62)])
        for _ in range(spec.get("rows", 40) // 2):
            self.vinsert(d, db, log, seen)
        for v in {r[d.cols.index(d.key[0])] for r in seen[:6]} | {2}:
            db.execute("INSERT INTO j VALUES (?)", (v,))
            log.append(["INSERT INTO j VALUES (%s)" % lit(v)])
        for _ in range(self.cases):
            r = rng.random()
            if r < 0.45:
                self.vread(d, db, log, seen)
            elif r < 0.65:
                self.vinsert(d, db, log, seen)
            elif r < 0.75:
                self.vupdate(d, db, log, seen)
                if rng.random() < 0.3:
                    # widecol_compact writes outside any statement's xUpdate:
                    # nothing of the UPDATE's (its scan's stamps) may linger.
                    self.after_vwrite(d, db, log)
                    self.tick(d, db, log)
                    self.compact(d, db, log)
            elif r < 0.79 and seen:
                self.vmove(d, db, log, seen)
            elif r < 0.83:
                self.vdelete(d, db, log, seen)
            elif r < 0.87:
                self.vcopy(d, db, log, seen)
            elif r < 0.97:
                self.tick(d, db, log)
            else:
                self.compact(d, db, log)
            if r >= 0.45 and r < 0.87:
                self.after_vwrite(d, db, log)
        self.drop_w(db)
        db.close()

    def after_vwrite(self, d, db, log):
        """After every write: the latest view equals the model's, and
        widecol_check finds the tables behind w in step."""
        cols = ", ".join(d.cols) + ", rowtime"
        self.compare(d, db, log, "SELECT %s FROM w" % cols, "SELECT %s FROM latest" % cols, (), False)
        self.n_cases += 1
        got = db.execute("SELECT * FROM widecol_check('w')").fetchall()

        def broken(db2):
            try:
                return db2.execute("SELECT * FROM widecol_check('w')").fetchall() == got
            except sqlite3.Error:
                return False
        if got != [(b"ok",)]:
            self.report("CHECK FAILED in design %s (seed %d)" % (d.spec["name"], self.seed),
                        log, broken, ["SELECT * FROM widecol_check('w');", "-- gave %r" % (got,)])


# Races (--race N, on Bigtable): a random design gets a counter column n
# (and at random an INDEX on it, VERSIONS, RANDOM); two writer processes
# (--race-worker) then change one Bigtable table at once: each adds 1 to
# the counter of rows both know (by rowkey), deletes some of them, and
# inserts rows of its own.  Those statements commute, so whatever order
# Bigtable applied them in, the table must end as the acknowledged ones
# make it: a row deleted is gone (no UPDATE brings it back), every other
# row counts exactly the increments acknowledged on it (none lost), each
# row inserted is there with its own values, nothing else is, covering
# reads of the index agree with SELECT *, and widecol_check says ok.  A
# write whose answer was lost (under --faults) may or may not have been
# applied, and is allowed either way.
RACE_STATEMENTS = 60


def race_spec(r, n):
    if STORE.get("cql_only"):
        return cql_race_spec(r, n)
    spec = random_design(r, n)
    spec = dict(spec, name="race%d" % n, cols=spec["cols"] + [("n", "INTEGER", lambda r: 0)])
    if r.random() < 0.4:
        spec["extra"] = spec.get("extra", "") + ", INDEX ic(n PAD 6)"
    if r.random() < 0.3:
        spec["options"] = spec["options"] + ", VERSIONS %d" % r.choice([1, 3])
    spec.pop("notnull", None)
    return spec


def cql_race_spec(r, n):
    """A race's design in Cassandra's form: one of the PRIMARY KEY designs
    (without a column n) with the counter n, and in half of them an INDEX on n (each write of a
    row moves its entry) or the design's own INDEX; a TTL in a fifth."""
    base = r.choice([s for s in DESIGNS + CQL_DESIGNS if "primary" in s
                     and all(c[0] != "n" for c in s["cols"])])
    spec = dict(base, name="race%d" % n, cols=base["cols"] + [("n", "INTEGER", lambda r: 0)])
    if r.random() < 0.5:
        spec["extra"] = spec.get("extra", "") + ", INDEX ic(TOKEN(n), n)"
    if r.random() < 0.2:
        spec["options"] = spec.get("options", "") + ", VERSIONS 1, TTL 100000"
    spec.pop("notnull", None)
    return spec


def race_worker(job):
    """One writer of a race: its statements and their outcomes, as JSON."""
    rng = random.Random(job["seed"])
    db = wctest.connect(job["extension"], bigtable=job["bigtable"], isolation_level=None)
    db.execute(job["create"])
    keys = [bytes.fromhex(k) for k in job["keys"]]
    mine = job["rows"]
    out = []
    while not os.path.exists(job["go"]):
        time.sleep(0.001)
    for i in range(RACE_STATEMENTS):
        x = rng.random()
        if x < 0.7:
            op, sql, params = "inc", "UPDATE w SET n = n + 1 WHERE rowkey = ?", [rng.choice(keys)]
        elif x < 0.8:
            op, sql, params = "del", "DELETE FROM w WHERE rowkey = ?", [rng.choice(keys)]
        elif mine:
            row = mine.pop()
            op, sql, params = "ins", "INSERT INTO w(%s) VALUES (%s)" % (
                ", ".join(job["cols"]), ", ".join("?" * len(row))), row
        else:
            continue
        key = params[0].hex().upper() if op != "ins" else None
        began = time.time()
        try:
            out.append([op, key, "ok", db.execute(sql, params).rowcount, "",
                        job["seed"] % 100, began, time.time()])
        except sqlite3.Error as e:
            out.append([op, key, "error", 0, str(e), job["seed"] % 100, began, time.time()])
    print(json.dumps(out))


class RaceRunner(Runner):
    """Two writer processes on one Bigtable table (see RACE_STATEMENTS)."""

    def __init__(self, ext, seed, bigtable):
        Runner.__init__(self, ext, seed, 0, bigtable)
        self.n_rounds = 0
        self.n_ambiguous = 0
        self.n_conflicts = 0

    def fail(self, spec, what, detail):
        self.n_mismatch += 1
        print("RACE FAILED in design %s (seed %d): %s" % (spec["name"], self.seed, what))
        print("  %s" % (detail,))
        raise Mismatch()

    def run_round(self, spec, seed):
        rng = random.Random(seed)
        d = Design(spec, rng)
        d.storage = ", STORAGE %s '%s'" % (STORE["kind"], self.new_bigtable())
        create = d.create_sql()[0]
        db = self.connect()
        db.text_factory = str
        try:
            db.execute(create)
        except sqlite3.Error:
            db.close()
            return  # a design Bigtable refuses; the main runner checks those
        try:
            self.race(d, db, create, rng)
        finally:
            self.drop_w(db)
            db.close()

    def race(self, d, db, create, rng):
        cols = ", ".join(d.cols)
        marks = ", ".join("?" * len(d.cols))
        # The rows' key fields, kept unique by an ordinary table with w's
        # columns (their types and collations), so that no row a writer
        # inserts takes the key of a row the other deletes.
        db.execute("CREATE TEMP TABLE keys(%s, PRIMARY KEY(%s)) WITHOUT ROWID"
                   % (d.col_defs(), ", ".join(d.key)))

        def fresh(n):
            rows = []
            for _ in range(n * 5):
                row = d.row()
                try:
                    db.execute("INSERT INTO keys VALUES (%s)" % marks, row)
                    rows.append(list(row))
                except sqlite3.Error:
                    pass
                if len(rows) == n:
                    break
            return rows
        for row in fresh(30):
            try:
                db.execute("INSERT INTO w(%s) VALUES (%s)" % (cols, marks), row)
            except sqlite3.Error:
                pass
        start = {k: n for k, n in db.execute("SELECT hex(rowkey), n FROM w")}
        if not start:
            return
        go = tempfile.mktemp(prefix="widecol-race-")
        jobs = []
        # Cassandra lets a second database use a table another one made
        # only as EXTERNAL (docs/cassandra.md).
        theirs = create[:-1] + " EXTERNAL)" if STORE.get("cql_only") else create
        for w in range(2):
            jobs.append(dict(seed=rng.randint(0, 2**31), create=theirs, extension=self.ext,
                             bigtable=self.bigtable, keys=sorted(start), rows=fresh(10),
                             cols=d.cols, go=go))
        procs = [subprocess.Popen([sys.executable, __file__, "--race-worker", json.dumps(
            job, default=lambda b: {"$blob": b.hex()})], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE) for job in jobs]
        time.sleep(0.3)
        open(go, "w").close()
        outs = []
        for p in procs:
            o, e = p.communicate(timeout=600)
            if p.returncode != 0:
                os.remove(go)
                self.fail(d.spec, "a writer process failed", e.decode()[-2000:])
            outs += json.loads(o)
        os.remove(go)
        self.n_rounds += 1
        self.n_cases += len(outs)
        self.verify(d, db, start, outs)

    def verify(self, d, db, start, outs):
        maybe = lambda o: o[2] == "error" and answer_lost(o[4])
        for o in outs:
            if o[2] == "error" and not maybe(o) and "after this statement read it" not in o[4] \
                    and not (o[0] == "ins" and "UNIQUE constraint failed" in o[4]):
                self.fail(d.spec, "a statement failed as no race explains", o)
            self.n_ambiguous += maybe(o)
            self.n_conflicts += "after this statement read it" in o[4]
        now = {k: n for k, n in db.execute("SELECT hex(rowkey), n FROM w")}
        for k, n0 in start.items():
            mine = [o for o in outs if o[1] == k]
            gone = any(o[0] == "del" and o[2] == "ok" and o[3] == 1 for o in mine)
            may_go = gone or any(o[0] == "del" and maybe(o) for o in mine)
            incs = sum(1 for o in mine if o[0] == "inc" and o[2] == "ok" and o[3] == 1)
            more = sum(1 for o in mine if o[0] == "inc" and maybe(o))
            if gone and k in now:
                self.fail(d.spec, "a deleted row came back", (k, now[k], mine))
            if k not in now and not may_go:
                self.fail(d.spec, "a row no one deleted is gone", (k, mine))
            if k in now and not (n0 + incs <= now[k] <= n0 + incs + more) and not may_go:
                self.fail(d.spec, "the counter lost or gained increments",
                          (k, n0, incs, more, now[k], mine))
        # The rows inserted (the writers' own, which no other statement
        # touches): one per INSERT acknowledged, each with n 0.
        new = [n for k, n in now.items() if k not in start]
        acked = sum(1 for o in outs if o[0] == "ins" and o[2] == "ok")
        lost = sum(1 for o in outs if o[0] == "ins" and maybe(o))
        if not acked <= len(new) <= acked + lost or any(n != 0 for n in new):
            self.fail(d.spec, "the rows inserted are not those acknowledged",
                      (acked, lost, new[:10]))
        star = sorted(r[0] for r in db.execute("SELECT n FROM w"))
        cover = sorted(r[0] for r in db.execute("SELECT n FROM w WHERE n >= 0"))
        if star != cover:
            self.fail(d.spec, "a covering read disagrees with SELECT *", (len(star), len(cover)))
        got = db.execute("SELECT * FROM widecol_check('w')").fetchall()
        if got != [("ok",)]:
            self.fail(d.spec, "widecol_check", got)


def run_races(runner, seed, n_rounds):
    """n_rounds races of random designs; the number that failed."""
    failed = 0
    runner.seed = seed
    for n in range(n_rounds):
        try:
            runner.run_round(race_spec(random.Random(seed * 31337 + n), n), seed * 1000 + 700 + n)
        except Mismatch:
            failed += 1
    return failed


def run_seed(runner, vrunner, seed, n_random):
    """Every fixed design and n_random random ones, then the versioned
    ones (fixed, and random ones under VERSIONS and TTL); returns the
    number of designs that failed, and of designs."""
    failed = 0
    specs = DESIGNS + [random_design(random.Random(seed * 7919 + n), n)
                       for n in range(n_random)]
    vspecs = VERSIONED + [versioned_random(random.Random(seed * 104729 + n), n)
                          for n in range(max(1, n_random // 3))]
    if STORE.get("cql_only"):
        specs = [s for s in DESIGNS if "primary" in s
                 or s.get("rowkey", "").startswith("TOKEN(")] + CQL_DESIGNS
        vspecs = CQL_VERSIONED
    runner.seed = vrunner.seed = seed
    for i, spec in enumerate(specs):
        try:
            runner.run_design(spec, seed * 1000 + i)
        except Mismatch:
            failed += 1
    for i, spec in enumerate(vspecs):
        try:
            vrunner.run_design(spec, seed * 1000 + 500 + i)
        except Mismatch:
            failed += 1
    return failed, len(specs) + len(vspecs)


def native_hbase():
    """True if the HBase store speaks HBase's own protocol (docs/hbase.md)."""
    return bool(os.environ.get("WIDECOL_HBASE_NODES")) and \
        os.environ.get("WIDECOL_HBASE_TRANSPORT", "native") != "thrift"


class NodeProxies(NodesProxy):
    """A FaultProxy before each of HBase's servers (WIDECOL_HBASE_NODES: the
    master and each region server), which widecol is pointed at: the nodes
    through the proxies, and the servers' names in hbase:meta mapped to
    them by WIDECOL_HBASE_NAT.  Faults at `rate` a second in all."""

    def __init__(self, nodes, seed):
        super().__init__(nodes, seed)
        routes = []
        for node, proxy in zip(nodes.split(","), self.proxies):
            host, port = node.rsplit(":", 1)
            # The harness names its servers localhost (tests/servers/hbase.sh).
            for name in (host, "localhost"):
                routes.append("%s:%s=%s" % (name, port, proxy.address()))
        os.environ["WIDECOL_HBASE_NODES"] = self.address()
        os.environ["WIDECOL_HBASE_NAT"] = ",".join(routes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=300,
                    help="statements per design")
    ap.add_argument("--random", type=int, default=6,
                    help="random designs per seed")
    ap.add_argument("--seconds", type=float, default=0,
                    help="run seeds --seed, --seed + 1, ... until this many "
                         "seconds have passed")
    ap.add_argument("--bigtable", default=None,
                    help="the Bigtable store's library: every widecol table "
                         "keeps its rows in Bigtable (BIGTABLE_EMULATOR_HOST)")
    ap.add_argument("--hbase", default=None,
                    help="the HBase store's library: every widecol table "
                         "keeps its rows in HBase (WIDECOL_HBASE_NODES, or "
                         "WIDECOL_HBASE's gateway), as with "
                         "--bigtable")
    ap.add_argument("--cassandra", default=None,
                    help="the Cassandra store's library: the designs in "
                         "Cassandra's form keep their rows in Cassandra "
                         "(WIDECOL_CASSANDRA), as with --bigtable")
    ap.add_argument("--race", type=int, default=0,
                    help="with --bigtable, --hbase or --cassandra: races per seed, two "
                         "writer processes on one table (see RACE_STATEMENTS)")
    ap.add_argument("--faults", type=float, default=0,
                    help="with --bigtable, --hbase or --cassandra: connections to the "
                         "engine severed at random, this many times a second "
                         "on average (on HBase's own protocol, through a proxy "
                         "before each server)")
    ap.add_argument("--lose", type=float, default=0,
                    help="with --bigtable, --hbase or --cassandra: a connection severed "
                         "instead of passing on the server's answer, with this "
                         "probability each (a write applied, its answer lost)")
    ap.add_argument("--race-worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.race_worker:
        race_worker(json.loads(args.race_worker, object_hook=lambda o: bytes.fromhex(
            o["$blob"]) if "$blob" in o else o))
        return 0
    if args.hbase:
        STORE.update(HBASE_STORE)
        args.bigtable = args.hbase
    if args.cassandra:
        STORE.update(CASSANDRA_STORE)
        args.bigtable = args.cassandra
    proxy = None
    if (args.faults or args.lose) and args.bigtable:
        if args.hbase and native_hbase():
            proxy = NodeProxies(os.environ["WIDECOL_HBASE_NODES"], args.seed)
        elif args.cassandra:
            # A proxy before each node of the cluster, the proxies the
            # contact points: every node is reached through one.
            proxy = NodesProxy(os.environ[STORE["env"]], seed=args.seed)
            os.environ[STORE["env"]] = proxy.address()
        else:
            host, port = os.environ[STORE["env"]].rsplit(":", 1)
            proxy = FaultProxy(host, int(port), seed=args.seed)
            os.environ[STORE["env"]] = proxy.address()
        proxy.chaos(args.faults)
        proxy.lose(args.lose)
    runner = Runner(args.extension, args.seed, args.cases, args.bigtable)
    vrunner = VersionRunner(args.extension, args.seed, args.cases, args.bigtable)
    rrunner = RaceRunner(args.extension, args.seed, args.bigtable)
    failed = designs = seeds = 0
    start = time.time()
    seed = args.seed
    while True:
        if args.cases > 0:
            f, n = run_seed(runner, vrunner, seed, args.random)
            failed += f
            designs += n
        if args.race and args.bigtable:
            failed += run_races(rrunner, seed, args.race)
            designs += args.race
        seeds += 1
        seed += 1
        if time.time() - start >= args.seconds:
            break
    if proxy:
        proxy.close()
    print("differential%s: %d seeds, %d designs, %d statements compared "
          "(%d refused as documented; %d of them on versioned designs against "
          "the model%s%s%s), %d designs with a mismatch"
          % (" (%s store)" % STORE["engine"] if args.bigtable else "",
             seeds, designs, runner.n_cases + vrunner.n_cases + rrunner.n_cases,
             runner.n_refused, vrunner.n_cases,
             "; %d failed writes kept what they sent, as documented; %d designs opened "
             "as EXISTING WRITABLE tables" % (runner.n_partial, runner.n_existing)
             if args.bigtable else "",
             "; %d of %d races of two writer processes run%s, %d statements, %d conflicts"
             " refused, %d answers lost" % (
                 rrunner.n_rounds, args.race * seeds,
                 " (the others' designs refused at CREATE or left with no row)"
                 if rrunner.n_rounds < args.race * seeds else "",
                 rrunner.n_cases, rrunner.n_conflicts, rrunner.n_ambiguous)
             if args.race and args.bigtable else "",
             "; %d connections severed at random, %d as the server answered, %d writes"
             " left in doubt, kept as documented" % (
                 proxy.counts()["severed"], proxy.counts()["lost"],
                 runner.n_ambiguous + vrunner.n_ambiguous)
             if proxy else "", failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
