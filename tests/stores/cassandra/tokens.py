#!/usr/bin/env python3
"""rk_token against Cassandra's own token() (tests/stores/cassandra/run.sh
runs this, with WIDECOL_CASSANDRA set): 100,000 partition keys written
through CQL into tables keyed by each CQL type widecol maps (text, bigint,
int, double, blob) and by composite partition keys, read back with
`SELECT token(...)`; every token the server gives must equal what
rk_token() computes from the same values, as docs/functions.md#rk_tokenv-
says a Cassandra type is passed to it (an int as its 4 bytes).

The keys reach the places where Murmur3 is easy to get wrong: every
length from 1 to 40 bytes (each tail length, one and two blocks), tail
bytes of 0x80 and above (Java reads them signed), negative numbers, -0.0
and the infinities (no NaN: SQLite has none), non-ASCII text, and empty parts of composite keys.

    tests/stores/cassandra/tokens.py --extension ./widecol
"""
import math
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from cassandra_session import make_keyspace, rules_session, wc_args  # noqa: E402

KEYSPACE = "tokens%d" % os.getpid()
TOTAL = 100000


def rand_bytes(rng):
    return bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))


def rand_text(rng):
    alphabet = "ab_Z09 \u00e9\u4e2d\U0001F600"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))


def rand_int(rng, bits):
    edge = [0, 1, -1, 2 ** (bits - 1) - 1, -2 ** (bits - 1)]
    return rng.choice(edge) if rng.random() < 0.02 else rng.randint(-2 ** (bits - 1), 2 ** (bits - 1) - 1)


def rand_double(rng):
    if rng.random() < 0.02:
        return rng.choice([0.0, -0.0, math.inf, -math.inf, 1e-310, 5e-324])
    if rng.random() < 0.5:
        return rng.uniform(-1e6, 1e6)
    # Any bit pattern but a NaN: SQLite holds no NaN (it reads one as NULL).
    while True:
        v = struct.unpack(">d", struct.pack(">q", rng.randint(-2 ** 63, 2 ** 63 - 1)))[0]
        if not math.isnan(v):
            return v


# table: (CQL columns of the partition key, a row's values, how rk_token
# takes them as SQL).  An int is 4 bytes on the wire: rk_token hashes it
# as the blob of those bytes.
TABLES = {
    "t_text": ([("p", "text")], lambda r: (rand_text(r),), "rk_token(?)"),
    "t_bigint": ([("p", "bigint")], lambda r: (rand_int(r, 64),), "rk_token(?)"),
    "t_int": ([("p", "int")], lambda r: (rand_int(r, 32),), "rk_token(?)"),
    "t_double": ([("p", "double")], lambda r: (rand_double(r),), "rk_token(?)"),
    "t_blob": ([("p", "blob")], lambda r: (rand_bytes(r),), "rk_token(?)"),
    "t_text_bigint": ([("a", "text"), ("b", "bigint")],
                      lambda r: (rand_text(r) if r.random() < 0.9 else "", rand_int(r, 64)),
                      "rk_token(?, ?)"),
    "t_blob_double_text": ([("a", "blob"), ("b", "double"), ("c", "text")],
                           lambda r: (rand_bytes(r) if r.random() < 0.9 else b"",
                                      rand_double(r), rand_text(r)),
                           "rk_token(?, ?, ?)"),
}


def sql_value(cql, v):
    """The SQLite value rk_token hashes as Cassandra hashes v of type cql."""
    if cql == "int":
        return struct.pack(">i", v)
    return v


def main():
    _, db = wc_args(__doc__)
    from cassandra.concurrent import execute_concurrent_with_args
    cluster, session = rules_session()
    make_keyspace(session, KEYSPACE, rf=1)
    session.set_keyspace(KEYSPACE)
    rng = random.Random(33)
    per_table = TOTAL // len(TABLES) + 1
    checked = failed = 0
    for table, (cols, gen, token_sql) in TABLES.items():
        names = ", ".join(c for c, _ in cols)
        session.execute("CREATE TABLE %s (%s, PRIMARY KEY ((%s)))" % (
            table, ", ".join("%s %s" % c for c in cols), names))
        keys = set()
        while len(keys) < per_table:
            keys.add(gen(rng))
        insert = session.prepare("INSERT INTO %s (%s) VALUES (%s)" % (
            table, names, ", ".join("?" for _ in cols)))
        for ok, res in execute_concurrent_with_args(session, insert, list(keys), concurrency=64,
                                                    raise_on_first_error=False):
            if not ok:
                raise SystemExit("cassandra tokens: writing %s: %s" % (table, res))
        rows = session.execute("SELECT token(%s), %s FROM %s" % (names, names, table))
        seen = 0
        for row in rows:
            values = tuple(sql_value(c[1], v) for c, v in zip(cols, row[1:]))
            mine = db.execute("SELECT " + token_sql, values).fetchone()[0]
            seen += 1
            if mine != row[0]:
                failed += 1
                if failed <= 10:
                    print("cassandra tokens: %s %r: FAILED (Cassandra's token %d, rk_token %r)"
                          % (table, row[1:], row[0], mine))
        if seen != len(keys):
            print("cassandra tokens: %s: FAILED (%d keys written, %d read back)"
                  % (table, len(keys), seen))
            failed += 1
        checked += seen
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra tokens: %d partition keys over %d tables (text, bigint, int, double, blob, "
          "composite), Cassandra's token() against rk_token(): %d failed"
          % (checked, len(TABLES), failed))
    return 1 if failed or checked < TOTAL else 0


if __name__ == "__main__":
    sys.exit(main())
