#!/usr/bin/env python3
"""widecol on Cassandra against Cassandra's Java driver (4.x, the engine's
fastest official client: bench/cassandra/, built with Maven) and its
Python driver (Debian's python3-cassandra), same run, same rows.

Makes N likes (eBay's Item_By_User: PRIMARY KEY ((user_id), liked_at DESC,
item_id), a hundred likes a user) and loads them into two CQL tables of
that design on the Cassandra of the tests (warmed up first by an untimed
load of 300,000 rows: a cold server took the first load at half the
speed of the next): one by widecol (INSERT OR
REPLACE ... SELECT from a local table: upserts in flight), one by the
driver (a prepared INSERT run by execute_concurrent_with_args, as its
docs recommend for bulk writes), then reads the driver's table back
through widecol to check it holds the same rows.  Then the same work on
each: plain INSERTs (IF NOT EXISTS, a lightweight transaction each) of a
tenth as many rows (10,000 at most: --lwt-rows), UPDATEs of as many (each a lightweight transaction
conditional on the row as read: against the driver's conditional and
plain UPDATEs, what Paxos costs), one partition's slice (liked_at above a
time) for random users, their oldest 10 likes (the slice read reversed,
LIMIT 10), a scan of the whole table (token ranges, in pages), and point reads of
random rows.  Prints rows/s or ms with the ratio widecol /
driver (above 1: widecol is faster).  The load is also timed against
cqlsh's COPY FROM of the same rows from a CSV file: cqlsh ships in
Cassandra's tarball, not in its Maven artifact, so the benchmark installs
it from the Python package index (pip's `cqlsh`) into build/cqlsh-venv
the first time; without it that line says why and is left out.

The Java driver does the same work on tables of its own: the load (a
partition's run of rows one UNLOGGED BATCH of prepared INSERTs, as widecol
sends them, asynchronous, 1,024 in flight), the slices, the
oldest 10s, the scan and the point reads, token-aware at LOCAL_QUORUM as
widecol is, each run timed inside its JVM (its start and connecting left
out).

Starts Cassandra itself (tests/servers/cassandra.sh start --nodes N,
default 3) unless WIDECOL_CASSANDRA names one.  `make bench-cassandra` runs
it at 1,000,000 rows on 3 nodes, then on one.

Usage: bench/cassandra_scale.py [--rows N] [--reads N] [--nodes N] [--lwt-rows N]
           [--extension ./widecol] [--cassandra ./widecol_cassandra]
"""
import os
import sys

# bench/token.py is a benchmark, not the standard library's token module,
# which the driver's logging imports.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))

import argparse  # noqa: E402
import csv  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import wctest  # noqa: E402

KEYSPACE = "bench%d" % os.getpid()
WARM_ROWS = 300000   # Rows loaded, untimed, before the loads timed
DESIGN = ("user_id TEXT, liked_at INTEGER, item_id INTEGER, title TEXT, "
          "PRIMARY KEY ((user_id), liked_at DESC, item_id)")


def progress(msg):
    print("cassandra bench: " + msg, flush=True)


def likes(n, seed):
    rng = random.Random(seed)
    for i in range(n):
        yield ("u%07d" % (i // 100), 1364248490 + rng.randint(0, 10 ** 7), i,
               "item %d" % rng.randint(0, 99999))


def cqlsh():
    """build/cqlsh-venv/bin/cqlsh, installed from PyPI if it is not there
    (None, with why, if it cannot be)."""
    venv = os.path.join("build", "cqlsh-venv")
    exe = os.path.join(venv, "bin", "cqlsh")
    if not os.path.exists(exe):
        progress("installing cqlsh from the Python package index into %s" % venv)
        made = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True,
                              text=True)
        pip = os.path.join(venv, "bin", "pip")
        got = made.returncode == 0 and subprocess.run(
            [pip, "install", "-q", "cqlsh"], capture_output=True, text=True)
        if not got or got.returncode != 0 or not os.path.exists(exe):
            return None, (made.stderr or (got and got.stderr) or "pip failed").strip()[-300:]
    return exe, None


def java_peer():
    """The classpath of bench/cassandra's Java peer, built with Maven the
    first time (None, with why, if it cannot be)."""
    here = os.path.join(HERE, "cassandra")
    out = os.path.abspath(os.path.join("build", "cassandra-peer"))
    cp = os.path.join(out, "classpath.txt")
    jar = os.path.join(out, "widecol-cassandra-peer-1.jar")
    java_home = "/usr/lib/jvm/java-17-openjdk-amd64"
    if not (os.path.exists(cp) and os.path.exists(jar)):
        progress("building the Java driver's peer (bench/cassandra/pom.xml)")
        got = subprocess.run(["mvn", "-q", "-B", "-f", os.path.join(here, "pom.xml"),
                              "package", "dependency:build-classpath",
                              "-Dmdep.outputFile=" + cp],
                             capture_output=True, text=True,
                             env=dict(os.environ, JAVA_HOME=java_home))
        if got.returncode != 0 or not os.path.exists(jar):
            return None, (got.stdout + got.stderr).strip()[-300:]
    with open(cp) as f:
        return [os.path.join(java_home, "bin", "java"), "-cp", jar + ":" + f.read().strip(),
                "WidecolCassandraPeer"], None


def peer(cmd, dc, table, *words):
    """Runs the Java peer's command on table: (seconds, rows)."""
    import json
    got = subprocess.run(cmd + [os.environ["WIDECOL_CASSANDRA"], dc, KEYSPACE, table]
                         + [str(w) for w in words], capture_output=True, text=True)
    if got.returncode != 0:
        raise SystemExit("cassandra bench: FAILED: the Java driver's %s: %s"
                         % (words[0], got.stderr.strip()[-500:]))
    out = json.loads(got.stdout.strip().splitlines()[-1])
    return out["seconds"], out["rows"]


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def paxos(args, db, session, rows, m):
    """What a lightweight transaction costs: the first m rows (m / 100
    users) updated by widecol, each UPDATE conditional on the row as read
    (IF "_stamp" = ?, Paxos), against the driver's plain UPDATEs of the
    same rows (no condition: one write each) and its conditional ones (IF
    title = ?, Paxos too), each concurrent as its docs recommend.  1 when
    a result is wrong."""
    from cassandra.concurrent import execute_concurrent_with_args
    users = sorted({r[0] for r in rows[:m]})
    sql = "UPDATE w SET title = title || '!' WHERE user_id IN (%s)" % ", ".join("?" * len(users))
    cur, tw = timed(lambda: db.execute(sql, users))
    plain = session.prepare("UPDATE d SET title = ? WHERE user_id = ? AND liked_at = ? "
                            "AND item_id = ?")
    cas = session.prepare("UPDATE d SET title = ? WHERE user_id = ? AND liked_at = ? "
                          "AND item_id = ? IF title = ?")
    # The driver's rows end as widecol's: title '!' (the reads after
    # compare the two tables).
    _, tp = timed(lambda: execute_concurrent_with_args(
        session, plain, [(r[3] + "?",) + tuple(r[:3]) for r in rows[:m]], concurrency=100))
    got, tc = timed(lambda: execute_concurrent_with_args(
        session, cas, [(r[3] + "!",) + tuple(r[:3]) + (r[3] + "?",) for r in rows[:m]],
        concurrency=100, raise_on_first_error=False))
    applied = sum(1 for ok, res in got if ok and res.one()[0])
    # A Paxos round timed out ("CAS operation result is unknown") is the
    # driver's caller's to settle: counted, not settled.
    unknown = sum(1 for ok, _ in got if not ok)
    print("UPDATE, %d rows, each a lightweight transaction (Paxos): widecol %.0f rows/s, Python "
          "driver %.0f rows/s conditional (IF title = ?%s), %.0f rows/s plain: %.2fx the "
          "driver's conditional, %.2fx its plain" % (
              m, m / tw, m / tc, ", %d failed" % unknown if unknown else "", m / tp, tc / tw,
              tp / tw), flush=True)
    changed = db.execute("SELECT count(*) FROM w WHERE user_id IN (%s) AND title LIKE '%%!'"
                         % ", ".join("?" * len(users)), users).fetchone()[0]
    if unknown:
        # The rows whose round failed, as the others are (the reads after
        # compare the two tables).
        execute_concurrent_with_args(session, plain, [
            (r[3] + "!",) + tuple(r[:3]) for r, (ok, _) in zip(rows[:m], got) if not ok],
            concurrency=100)
    if cur.rowcount != m or changed != m or applied + unknown != m:
        print("cassandra bench: FAILED: widecol's UPDATE changed %d rows (%d read back) of %d; "
              "the driver's conditional UPDATEs applied %d" % (cur.rowcount, changed, m, applied))
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--reads", type=int, default=1000)
    ap.add_argument("--lwt-rows", type=int, default=10000,
                    help="rows of the lightweight transactions' lines, at most")
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    args = ap.parse_args()
    started = None
    if not os.environ.get("WIDECOL_CASSANDRA"):
        os.environ.setdefault("WIDECOL_CASSANDRA_DIR", "build/cassandra-bench")
        progress("starting a cluster of %d node(s)" % args.nodes)
        out = subprocess.run(["sh", "tests/servers/cassandra.sh", "start", "--nodes",
                              str(args.nodes)], check=True, capture_output=True,
                             text=True).stdout
        for line in out.split():
            k, v = line.split("=", 1)
            os.environ[k] = v
        started = True
    try:
        return run(args)
    finally:
        if started:
            subprocess.run(["sh", "tests/servers/cassandra.sh", "stop"], check=False)


def run(args):
    from cassandra.concurrent import execute_concurrent_with_args
    from cassandra.query import SimpleStatement
    from cassandra_session import connect, make_keyspace
    from cassandra import ConsistencyLevel
    n = args.rows
    # At widecol's consistency (the tests' sessions read at ALL).
    cluster, session = connect(ConsistencyLevel.LOCAL_QUORUM)
    make_keyspace(session, KEYSPACE)
    db = wctest.connect(args.extension, isolation_level=None)
    db.load_extension(args.cassandra)
    db.execute("CREATE TEMP TABLE src(user_id TEXT, liked_at INTEGER, item_id INTEGER, title TEXT)")
    db.executemany("INSERT INTO src VALUES (?, ?, ?, ?)", likes(n, 1))
    rows = db.execute("SELECT * FROM src").fetchall()
    db.execute("CREATE VIRTUAL TABLE w USING widecol(%s, STORAGE CASSANDRA '%s.w')"
               % (DESIGN, KEYSPACE))
    db.execute("CREATE VIRTUAL TABLE plain USING widecol(%s)" % DESIGN)
    ddl = db.execute("SELECT widecol_ddl('plain', 'cql')").fetchone()[0].strip().rstrip(";")
    session.set_keyspace(KEYSPACE)
    for name in ("d", "w_cas", "d_cas"):
        session.execute(ddl.replace('CREATE TABLE "plain"', 'CREATE TABLE "%s"' % name))
    db.execute("CREATE VIRTUAL TABLE w_cas USING widecol(%s, STORAGE CASSANDRA '%s.w_cas' "
               "EXTERNAL)" % (DESIGN, KEYSPACE))
    insert = session.prepare("INSERT INTO d (user_id, liked_at, item_id, title) VALUES (?, ?, ?, ?)")
    insert_cas = session.prepare("INSERT INTO d_cas (user_id, liked_at, item_id, title) "
                                 "VALUES (?, ?, ?, ?) IF NOT EXISTS")
    nodes = db.execute("SELECT count(*), max(dc) FROM widecol_cassandra_nodes").fetchone()
    progress("%d rows made; loading, on %d node(s), keyspace of %d replicas"
             % (n, nodes[0], min(3, nodes[0])))
    java, why = java_peer()
    session.execute(ddl.replace('CREATE TABLE "plain"', 'CREATE TABLE "j"'))
    csv_path = os.path.abspath(os.path.join("build", "cassandra-bench-likes.csv"))
    with open(csv_path, "w", newline="") as f:
        csv.writer(f).writerows(rows)

    # The server warmed up first (its JIT, its memtables), untimed: the
    # first load into a cold server ran at half the speed of the next.
    db.execute("CREATE VIRTUAL TABLE warm USING widecol(%s, STORAGE CASSANDRA '%s.warm')"
               % (DESIGN, KEYSPACE))
    db.execute("INSERT OR REPLACE INTO warm SELECT * FROM src LIMIT %d" % min(n, WARM_ROWS))
    db.execute("DROP TABLE warm")
    _, tw = timed(lambda: db.execute("INSERT OR REPLACE INTO w SELECT * FROM src"))
    if java is None:
        print("Java driver: left out: its peer could not be built: %s" % why, flush=True)
    else:
        tj, loaded = peer(java, nodes[1], "j", "load", csv_path)
        print("load (upserts), %d rows: widecol %.0f rows/s, Java driver %.0f rows/s: %.2fx"
              % (n, n / tw, loaded / tj, tj / tw), flush=True)
    _, td = timed(lambda: execute_concurrent_with_args(session, insert, rows, concurrency=100))
    print("load (upserts), %d rows: widecol %.0f rows/s, Python driver %.0f rows/s: %.2fx"
          % (n, n / tw, n / td, td / tw), flush=True)
    exe, why = cqlsh()
    if exe is None:
        print("COPY FROM: left out: cqlsh could not be installed: %s" % why, flush=True)
    else:
        session.execute(ddl.replace('CREATE TABLE "plain"', 'CREATE TABLE "c"'))
        host, port = os.environ["WIDECOL_CASSANDRA"].split(",")[0].rsplit(":", 1)
        copy = ("COPY \"%s\".c (user_id, liked_at, item_id, title) FROM '%s' "
                "WITH HEADER = false" % (KEYSPACE, csv_path))
        got, tc = timed(lambda: subprocess.run([exe, host, port, "-e", copy],
                                               capture_output=True, text=True))
        db.execute("CREATE VIRTUAL TABLE c USING widecol(%s, STORAGE CASSANDRA '%s.c' EXTERNAL)"
                   % (DESIGN, KEYSPACE))
        copied = db.execute("SELECT count(*) FROM c").fetchone()[0]
        if got.returncode != 0 or copied != n:
            print("cassandra bench: FAILED: COPY FROM loaded %d rows of %d: %s"
                  % (copied, n, (got.stderr or got.stdout)[-300:]))
            return 1
        print("load, %d rows: widecol %.0f rows/s, cqlsh COPY FROM %.0f rows/s: %.2fx"
              % (n, n / tw, n / tc, tc / tw), flush=True)
    same = db.execute("SELECT count(*) FROM w").fetchone()[0]
    # (EXTERNAL adds widecol's _stamp column: the driver names its columns.)
    db.execute("CREATE VIRTUAL TABLE d USING widecol(%s, STORAGE CASSANDRA '%s.d' EXTERNAL)"
               % (DESIGN, KEYSPACE))
    differ = db.execute("SELECT count(*) FROM (SELECT * FROM d EXCEPT SELECT * FROM src)").fetchone()[0]
    if same != n or differ:
        print("cassandra bench: FAILED: widecol's table holds %d rows of %d; the driver's, "
              "%d rows not loaded" % (same, n, differ))
        return 1

    # Lightweight transactions are Paxos rounds (four round trips to a
    # quorum each): a tenth of the rows, up to --lwt-rows.
    m = max(1, min(n // 10, args.lwt_rows))
    _, tw = timed(lambda: db.execute("INSERT INTO w_cas SELECT * FROM src LIMIT %d" % m))
    got, td = timed(lambda: execute_concurrent_with_args(
        session, insert_cas, rows[:m], concurrency=100, raise_on_first_error=False))
    # On a loaded machine a Paxos round may time out ("CAS operation result
    # is unknown"); the driver leaves it to the caller: counted here.
    unknown = sum(1 for ok, _ in got if not ok)
    print("plain INSERT (IF NOT EXISTS), %d rows: widecol %.0f rows/s, Python driver %.0f rows/s"
          "%s: %.2fx" % (m, m / tw, m / td, " (%d failed)" % unknown if unknown else "",
                         td / tw), flush=True)

    if paxos(args, db, session, rows, m):
        return 1

    rng = random.Random(2)
    users = ["u%07d" % rng.randint(0, (n - 1) // 100) for _ in range(args.reads)]
    since = 1364248490 + 5 * 10 ** 6
    slice_w = "SELECT * FROM w WHERE user_id = ? AND liked_at > ?"
    slice_d = session.prepare("SELECT user_id, liked_at, item_id, title FROM d "
                              "WHERE user_id = ? AND liked_at > ?")
    got_w, tw = timed(lambda: sum(len(db.execute(slice_w, (u, since)).fetchall()) for u in users))
    got_d, td = timed(lambda: sum(len(list(session.execute(slice_d, (u, since)))) for u in users))
    users_path = os.path.abspath(os.path.join("build", "cassandra-bench-users.txt"))
    with open(users_path, "w") as f:
        f.write("".join(u + "\n" for u in users))
    if java:
        tj, got_j = peer(java, nodes[1], "j", "slices", users_path, since)
        print("one partition's slice, %d users (%d rows): widecol %.2f ms each, Java driver "
              "%.2f ms each: %.2fx" % (len(users), got_w, 1000 * tw / len(users),
                                       1000 * tj / len(users), tj / tw), flush=True)
        if got_j != got_w:
            print("cassandra bench: FAILED: the Java driver's slices gave %d rows, widecol's %d"
                  % (got_j, got_w))
            return 1
    print("one partition's slice, %d users (%d rows): widecol %.2f ms each, Python driver %.2f "
          "ms each: %.2fx" % (len(users), got_w, 1000 * tw / len(users), 1000 * td / len(users),
                              td / tw), flush=True)
    if got_w != got_d:
        print("cassandra bench: FAILED: the slices gave %d rows, the driver's %d" % (got_w, got_d))
        return 1

    # A user's oldest 10 in a design that keeps them newest first: the
    # slice read reversed, 10 rows asked for.
    oldest_w = "SELECT * FROM w WHERE user_id = ? ORDER BY liked_at, item_id DESC LIMIT 10"
    oldest_d = session.prepare("SELECT user_id, liked_at, item_id, title FROM d "
                               "WHERE user_id = ? ORDER BY liked_at ASC, item_id DESC LIMIT 10")
    got_w, tw = timed(lambda: [tuple(r) for u in users for r in db.execute(oldest_w, (u,))])
    got_d, td = timed(lambda: [tuple(r) for u in users for r in session.execute(oldest_d, (u,))])
    if java:
        tj, got_j = peer(java, nodes[1], "j", "oldest", users_path)
        print("a user's oldest 10 (reversed slice, LIMIT 10), %d users (%d rows): widecol %.2f "
              "ms each, Java driver %.2f ms each: %.2fx" % (
                  len(users), len(got_w), 1000 * tw / len(users), 1000 * tj / len(users),
                  tj / tw), flush=True)
    print("a user's oldest 10 (reversed slice, LIMIT 10), %d users (%d rows): widecol %.2f ms "
          "each, Python driver %.2f ms each: %.2fx" % (len(users), len(got_w),
                                                      1000 * tw / len(users),
                                                      1000 * td / len(users), td / tw),
          flush=True)
    if got_w != got_d:
        print("cassandra bench: FAILED: the oldest 10s differ from the driver's")
        return 1

    got_w, tw = timed(lambda: sum(1 for _ in db.execute("SELECT * FROM w")))
    got_d, td = timed(lambda: sum(1 for _ in session.execute(
        SimpleStatement("SELECT user_id, liked_at, item_id, title FROM d", fetch_size=5000))))
    if java:
        tj, got_j = peer(java, nodes[1], "j", "scan")
        print("token-range scan, %d rows: widecol %.0f rows/s, Java driver %.0f rows/s (%d "
              "rows): %.2fx" % (got_w, got_w / tw, got_j / tj, got_j, tj / tw), flush=True)
    print("token-range scan, %d rows: widecol %.0f rows/s, Python driver %.0f rows/s: %.2fx"
          % (got_w, got_w / tw, got_d / td, td / tw), flush=True)

    keys = [rows[rng.randrange(n)][:3] for _ in range(args.reads)]
    point_w = "SELECT title FROM w WHERE user_id = ? AND liked_at = ? AND item_id = ?"
    point_d = session.prepare("SELECT title FROM d WHERE user_id = ? AND liked_at = ? "
                              "AND item_id = ?")
    got_w, tw = timed(lambda: sum(len(db.execute(point_w, k).fetchall()) for k in keys))
    got_d, td = timed(lambda: sum(len(list(session.execute(point_d, k))) for k in keys))
    if java:
        keys_path = os.path.abspath(os.path.join("build", "cassandra-bench-keys.csv"))
        with open(keys_path, "w", newline="") as f:
            csv.writer(f).writerows(keys)
        tj, got_j = peer(java, nodes[1], "j", "points", keys_path)
        os.unlink(keys_path)
        print("point reads, %d: widecol %.2f ms each (%d found), Java driver %.2f ms each (%d "
              "found): %.2fx" % (len(keys), 1000 * tw / len(keys), got_w,
                                 1000 * tj / len(keys), got_j, tj / tw), flush=True)
    print("point reads, %d: widecol %.2f ms each (%d found), Python driver %.2f ms each (%d "
          "found): %.2fx" % (len(keys), 1000 * tw / len(keys), got_w, 1000 * td / len(keys),
                             got_d, td / tw), flush=True)
    os.unlink(csv_path)
    os.unlink(users_path)
    db.close()
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    cluster.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
