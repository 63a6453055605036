#!/usr/bin/env python3
"""The Cassandra store under several writer processes on one CQL table:
docs/cassandra.md, "What a statement guarantees", checked case by case
against what Cassandra's own driver reads at ALL and against
widecol_check.  Each case is one an outside tester's probes found against
the store before its UPDATE and DELETE were conditional (issue 44); its
name says what must hold.

Usage: tests/stores/cassandra/reliability.py [--extension ./widecol]
                               [--cassandra ./widecol_cassandra] [--only NAME]
       tests/stores/cassandra/reliability.py --worker JSON   (a writer process; internal)
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from checks import Checks  # noqa: E402
import wctest  # noqa: E402
import writers  # noqa: E402
from writers import run  # noqa: E402
from fault_proxy import NodesProxy  # noqa: E402
from cassandra_session import connect as cql_connect, make_keyspace  # noqa: E402

KEYSPACE = "rel%d" % os.getpid()

CHECKS = Checks("cassandra reliability")
expect = CHECKS.expect


def connect(args, path):
    return wctest.connect(args.extension, path, bigtable=args.cassandra,
                          isolation_level=None, timeout=30)


def race(args, specs):
    """Runs writer processes of specs together; their outcomes, in order."""
    return writers.race(__file__, args.extension, args.cassandra, specs)


def table_sql(name, extra="", external=False):
    """A table of the cases: k, n (a counter), v; its design in
    Cassandra's form.  The writers' own databases use it as EXTERNAL."""
    return ("CREATE VIRTUAL TABLE %s%s USING widecol(k INTEGER, n INTEGER, v TEXT, "
            "PRIMARY KEY ((k))%s, STORAGE CASSANDRA '%s.%s'%s)"
            % ("IF NOT EXISTS " if external else "", name, extra, KEYSPACE, name,
               " EXTERNAL" if external else ""))


def driver_rows(session, name):
    """{k: (n, v)} as the driver reads the CQL table at ALL."""
    from cassandra import ConsistencyLevel
    from cassandra.query import SimpleStatement
    q = SimpleStatement('SELECT k, n, v FROM "%s"."%s"' % (KEYSPACE, name),
                        consistency_level=ConsistencyLevel.ALL)
    return {r.k: (r.n, r.v) for r in session.execute(q)}


def seed_rows(db, name, n):
    db.execute("WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
               "INSERT INTO %s SELECT x, 0, 'v' || x FROM i" % (n, name))


def conflict(message):
    return "after this statement read it" in message


def in_doubt(message):
    """A write whose answer was lost and whose row another client wrote
    since: it may have been applied before that write, or not."""
    return "may have been applied before that one, or not" in message


def explained(message):
    """A failure a race explains: a conflict, or a write in doubt."""
    return conflict(message) or in_doubt(message)


def case_lost_update(args, session, path, extra, label):
    """Three processes adding 1 to one row's counter, each 25 times: every
    UPDATE acknowledged is counted once (one that acted on a row another
    changed after the statement read it fails, saying so)."""
    name = "lost" + ("_i" if extra else "")
    db = connect(args, path)
    db.execute(table_sql(name, extra))
    db.execute("INSERT INTO %s VALUES (1, 0, 'x')" % name)
    spec = {"setup": [table_sql(name, extra, True)], "repeat": 25,
            "statements": [["UPDATE %s SET n = n + 1, v = 'w' || n WHERE k = 1" % name, []]]}
    outs = race(args, [spec, spec, spec])
    acked = sum(1 for out in outs for o in out if o[0] == "ok")
    errors = [o[1] for out in outs for o in out if o[0] == "error"]
    unclear = [e for e in errors if not explained(e)]
    doubt = sum(1 for e in errors if in_doubt(e))
    held = driver_rows(session, name)
    n = held.get(1, (None,))[0]
    expect("three processes incrementing one row %s: every acknowledged UPDATE counted once, "
           "as the driver reads it (%d of 75 acknowledged, %d in doubt, the others refused as "
           "conflicts)" % (label, acked, doubt),
           n is not None and acked <= n <= acked + doubt and not unclear and acked > 0,
           (acked, doubt, held, unclear[:2]))
    db.execute("DROP TABLE %s" % name)
    db.close()


def case_update_delete_race(args, session, path, bIndex):
    """UPDATE racing DELETE over the same keys: no row whose DELETE was
    acknowledged comes back, and with an INDEX reads by it return only rows
    a scan returns, and widecol_check is clean."""
    name = "upd_del" + ("_i" if bIndex else "")
    extra = ", INDEX by_n(TOKEN(n), n)" if bIndex else ""
    db = connect(args, path)
    resurrected = broken = conflicts = 0
    detail = []
    for r in range(3):
        run(db, "DROP TABLE IF EXISTS %s" % name)
        db.execute(table_sql(name, extra))
        seed_rows(db, name, 60)
        spec_u = {"setup": [table_sql(name, extra, True)], "repeat": 2,
                  "statements": [["UPDATE %s SET n = n + 1, v = v || 'u' WHERE k = ?" % name,
                                  [k]] for k in range(1, 61)]}
        spec_d = {"setup": spec_u["setup"],
                  "statements": [["DELETE FROM %s WHERE k = ?" % name, [k]]
                                 for k in range(1, 61)]}
        out_u, out_d = race(args, [spec_u, spec_d])
        held = driver_rows(session, name)
        for k, o in zip(range(1, 61), out_d):
            if o[0] == "ok" and k in held:
                resurrected += 1
                detail.append(("round", r, "key", k, "back as", held[k]))
            elif o[0] == "error":
                conflicts += conflict(o[1])
        conflicts += sum(1 for o in out_u if o[0] == "error" and conflict(o[1]))
        odd = [o for o in out_u + out_d if o[0] == "error" and not explained(o[1])]
        if odd:
            broken += 1
            detail.append(("round", r, "failed as no race explains", odd[:2]))
        if bIndex:
            star = sorted(run(db, "SELECT k, n FROM %s" % name)[1])
            by_index = sorted(run(db, "SELECT k, n FROM %s WHERE n >= 0" % name)[1])
            chk = run(db, "SELECT * FROM widecol_check('%s')" % name)
            if star != by_index or chk != ("ok", [("ok",)]):
                broken += 1
                detail.append(("round", r, "scan", len(star), "by index", len(by_index), chk))
    label = "with an INDEX" if bIndex else "without an index"
    expect("UPDATE racing DELETE %s: no row whose DELETE was acknowledged comes back "
           "(%d statements reported a conflict)" % (label, conflicts), resurrected == 0,
           detail[:5])
    expect("UPDATE racing DELETE %s: every failure a conflict or in doubt%s" % (
        label, "; reads by the INDEX equal a scan and widecol_check is clean" if bIndex else ""),
        broken == 0, detail[:5])
    run(db, "DROP TABLE IF EXISTS %s" % name)
    db.close()


def case_replace_race(args, session, path, bUpdate):
    """Two processes doing INSERT OR REPLACE of the same keys with an
    INDEX (or one of them UPDATE, moving the rows' entries): reads by the
    INDEX equal a scan, widecol_check is clean, every row is there once,
    every failure a conflict (an UPDATE's, on the row it read)."""
    name = "repl" + ("_u" if bUpdate else "")
    extra = ", INDEX by_v(TOKEN(v), v)"
    db = connect(args, path)
    db.execute(table_sql(name, extra))
    seed_rows(db, name, 30)
    # (A replace that keeps a row's value once kept its entry too, which
    # an UPDATE between its read and its put may have deleted; it puts
    # every entry anew now.)
    specs = [{"setup": [table_sql(name, extra, True)], "repeat": 8,
              "statements": [["INSERT OR REPLACE INTO %s VALUES (?, ?, ?)" % name,
                              [k, w, "w%d" % w if bUpdate else "w%d-{i}" % w]]
                             for k in range(1, 31)]}
             for w in (1, 2)]
    if bUpdate:
        specs[1]["statements"] = [["UPDATE %s SET v = 'u{i}-' || k WHERE k = ?" % name, [k]]
                                  for k in range(1, 31)]
    outs = race(args, specs)
    odd = [o for out in outs for o in out if o[0] == "error" and not explained(o[1])]
    star = sorted(run(db, "SELECT k, v FROM %s" % name)[1])
    by_index = sorted(run(db, "SELECT k, v FROM %s WHERE v >= ''" % name)[1])
    chk = run(db, "SELECT * FROM widecol_check('%s')" % name)
    held = driver_rows(session, name)
    expect("two processes %s rows with an INDEX: reads by the INDEX equal a scan, "
           "widecol_check is clean, 30 rows, every failure a conflict or in doubt"
           % ("replacing and updating" if bUpdate else "replacing"),
           not odd and star == by_index and chk == ("ok", [("ok",)]) and len(held) == 30
           and [k for k, _ in star] == list(range(1, 31)),
           (odd[:2], len(star), len(by_index), chk, len(held)))
    db.execute("DROP TABLE %s" % name)
    db.close()


def case_replace_severed(args, session, path):
    """INSERT OR REPLACE of a row that exists, with an INDEX, through a
    connection severed about 20 times a second: after every statement,
    failed or not, the driver reads the row as it was or as the statement
    makes it, never absent (a replace is one write, never a delete and an
    insert), and reads by the INDEX agree with a scan."""
    name = "sev"
    extra = ", INDEX by_v(TOKEN(v), v)"
    db = connect(args, path)
    db.execute(table_sql(name, extra))
    db.execute("INSERT INTO %s VALUES (1, 0, 'v0')" % name)
    bad, failed = [], 0
    with NodesProxy(os.environ["WIDECOL_CASSANDRA"], seed=44) as proxy:
        env = dict(os.environ)
        os.environ["WIDECOL_CASSANDRA"] = proxy.address()
        try:
            wdb = connect(args, path)
            proxy.chaos(20)
            before = "v0"
            for i in range(1, 61):
                got = run(wdb, "INSERT OR REPLACE INTO %s VALUES (1, ?, ?)" % name,
                          (i, "v%d" % i))
                failed += got[0] == "error"
                held = driver_rows(session, name).get(1)
                if held is None or held[1] not in (before, "v%d" % i):
                    bad.append((i, got, held))
                before = held[1] if held else before
            proxy.chaos(0)
            wdb.close()
        finally:
            os.environ.clear()
            os.environ.update(env)
    star = run(db, "SELECT k, v FROM %s" % name)
    by_index = run(db, "SELECT k, v FROM %s WHERE v >= ''" % name)
    expect("INSERT OR REPLACE with an INDEX, its connection severed 20 times a second: the "
           "row as it was or as written after every statement (%d of 60 failed), never "
           "absent; reads by the INDEX equal a scan" % failed,
           not bad and star[0] == "ok" and star == by_index and len(star[1]) == 1,
           (bad[:3], star, by_index))
    db.execute("DROP TABLE %s" % name)
    db.close()


def cql_tables(session):
    return sorted(r.table_name for r in session.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = %s", (KEYSPACE,)))


def case_ddl_transactions(args, session, path):
    """DDL inside a transaction: a DROP drops the CQL tables at COMMIT
    only; a CREATE rolled back (or rolled back to a savepoint) leaves no
    CQL table behind, so the same CREATE works again."""
    extra = ", INDEX by_n(TOKEN(n), n)"
    db = connect(args, path)
    db.execute(table_sql("d1", extra))
    db.execute("INSERT INTO d1 VALUES (1, 10, 'a'), (2, 20, 'b')")
    db.execute("BEGIN")
    db.execute("DROP TABLE d1")
    db.execute("ROLLBACK")
    tables = cql_tables(session)
    got = run(db, "SELECT k, n, v FROM d1 ORDER BY k")
    by_n = run(db, "SELECT k FROM d1 WHERE n = 20")
    expect("BEGIN; DROP TABLE; ROLLBACK keeps the CQL tables and their rows",
           "d1" in tables and "d1_idx_by_n" in tables
           and got == ("ok", [(1, 10, "a"), (2, 20, "b")]) and by_n == ("ok", [(2,)]),
           (tables, got, by_n))
    db.execute("BEGIN")
    db.execute(table_sql("d2", extra))
    db.execute("INSERT INTO d2 VALUES (1, 1, 'x')")
    db.execute("ROLLBACK")
    tables = cql_tables(session)
    again = run(db, table_sql("d2", extra))
    expect("BEGIN; CREATE ... INDEX; ROLLBACK leaves no CQL table, and the same CREATE works",
           "d2" not in tables and "d2_idx_by_n" not in tables and again[0] == "ok",
           (tables, again))
    # (A row written after the CREATE goes with it.)
    db.execute("BEGIN")
    db.execute("SAVEPOINT s")
    db.execute(table_sql("d3", extra))
    db.execute("INSERT INTO d3 VALUES (1, 1, 'x')")
    db.execute("ROLLBACK TO s")
    db.execute("COMMIT")
    tables = cql_tables(session)
    again = run(db, table_sql("d3", extra))
    expect("SAVEPOINT; CREATE; ROLLBACK TO leaves no CQL table, and the same CREATE works",
           "d3" not in tables and "d3_idx_by_n" not in tables and again[0] == "ok",
           (tables, again))
    db.execute("BEGIN")
    db.execute("DROP TABLE d1")
    made = run(db, table_sql("d1", extra))
    db.execute("ROLLBACK")
    got = run(db, "SELECT count(*) FROM d1")
    expect("a CREATE of a CQL table its transaction drops is refused until COMMIT",
           made[0] == "error" and "is dropped at the COMMIT" in made[1]
           and got == ("ok", [(2,)]), (made, got))
    db.execute("BEGIN")
    db.execute("DROP TABLE d1")
    before = cql_tables(session)
    db.execute("COMMIT")
    after = cql_tables(session)
    expect("DROP TABLE drops the CQL tables at COMMIT",
           "d1" in before and "d1_idx_by_n" in before
           and "d1" not in after and "d1_idx_by_n" not in after, (before, after))
    for t in ("d2", "d3"):
        db.execute("DROP TABLE %s" % t)
    db.close()


CASES = [
    ("ddl_transactions", case_ddl_transactions),
    ("lost_update", lambda a, s, p: case_lost_update(a, s, p, "", "without an index")),
    ("lost_update_index", lambda a, s, p: case_lost_update(
        a, s, p, ", INDEX by_n(TOKEN(n), n)", "with an INDEX on it")),
    ("update_delete_race", lambda a, s, p: case_update_delete_race(a, s, p, False)),
    ("update_delete_race_index", lambda a, s, p: case_update_delete_race(a, s, p, True)),
    ("replace_race", lambda a, s, p: case_replace_race(a, s, p, False)),
    ("replace_update_race", lambda a, s, p: case_replace_race(a, s, p, True)),
    ("replace_severed", case_replace_severed),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    ap.add_argument("--only", action="append")
    ap.add_argument("--worker")
    args = ap.parse_args()
    if args.worker:
        writers.worker(json.loads(args.worker))
        return 0
    cluster, session = cql_connect()
    make_keyspace(session, KEYSPACE)
    tmp = tempfile.mkdtemp(prefix="widecol-cqrel-")
    try:
        for name, fn in CASES:
            if args.only and name not in args.only:
                continue
            try:
                fn(args, session, os.path.join(tmp, name + ".db"))
            except Exception as e:  # a case that cannot run is a failure
                expect(name, False, "%s: %s" % (type(e).__name__, e))
    finally:
        session.execute('DROP KEYSPACE IF EXISTS "%s"' % KEYSPACE)
        cluster.shutdown()
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
