#!/usr/bin/env python3
"""The Cassandra store on a cluster whose nodes fail (tests/stores/cassandra/
run.sh runs this on the 3-node cluster of tests/servers/cassandra.sh, with
WIDECOL_CASSANDRA listing the nodes).  Ground truth is Cassandra's own: the
Python driver reading at ALL, and each node's system_views.clients (the
requests each client connection made, counted by the node itself).

- routing: in a keyspace of one replica, point reads by partition key go
  to the node that owns the key's token (as the cluster's tokens and the
  server's token() place it): the owner's request count, by the owner's
  own system_views.clients, grows by every read, the other nodes' barely;
  widecol_cassandra_nodes' own counts agree;
- a node killed under load: 100,000 rows written by widecol (RF 3,
  LOCAL_QUORUM) while node 2 is SIGKILLed part way; the load succeeds,
  every row is there exactly once as the driver reads it at ALL once the
  node is back; while it is down, reads at LOCAL_QUORUM answer every row;
  restarted, the node is seen UP by a widecol connection that stayed open
  (its event) and takes requests again;
- two nodes down: a write and a read fail with SQLITE_BUSY, the message
  naming LOCAL_QUORUM, the replicas it needs and those alive, and what to
  do; the rows acknowledged before are all there after;
- a node frozen (SIGSTOP): reads whose first node is the frozen one time
  out within WIDECOL_CASSANDRA_TIMEOUT_MS and are answered by another
  replica, each statement within its deadline; the node is shown down.

Nodes are started, killed, frozen and continued with the binding commands
(sh tests/servers/cassandra.sh node ...).  A node restarted takes a while
to be seen UP by the others; the deadlines scale with
WIDECOL_CASSANDRA_START_SECONDS as the server's start does.

    tests/stores/cassandra/cluster.py --extension ./widecol --cassandra ./widecol_cassandra
"""
import argparse
import os
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import wctest  # noqa: E402
from cassandra_session import connect, endpoints, node_session  # noqa: E402

KEYSPACE = "cluster%d" % os.getpid()
SERVERS = os.path.join(HERE, "..", "..", "servers", "cassandra.sh")
LOAD_ROWS = 100000


def node(*words):
    """Runs `sh tests/servers/cassandra.sh node WORDS...`; its output."""
    done = subprocess.run(["sh", SERVERS, "node"] + [str(w) for w in words],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit("cassandra cluster: node %s failed: %s"
                         % (" ".join(map(str, words)), done.stderr.strip()))
    return done.stdout


def series(n):
    """A CTE s(value) of 1 to n (SQLite's generate_series is not in every
    build)."""
    return ("WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s "
            "WHERE value < %d)" % n)


def widecol(args, env=None):
    """A widecol connection with the Cassandra store (env: the process's
    environment changed for the store, which reads it at its first call)."""
    if env:
        os.environ.update(env)
    db = wctest.connect(args.extension, isolation_level=None)
    db.load_extension(args.cassandra)
    return db


def child(args, sql, env=None, timeout=900):
    """Runs statements in a child process (its own environment and
    connection): [(ok, code or rows, message)] per statement."""
    code = r'''
import json, sqlite3, sys
sys.path.insert(0, %r)
import wctest
db = wctest.connect(%r, isolation_level=None)
db.load_extension(%r)
out = []
for s in json.loads(sys.argv[1]):
    try:
        out.append([True, db.execute(s).fetchall(), None])
    except sqlite3.Error as e:
        out.append([False, getattr(e, "sqlite_errorcode", None), str(e)])
print(json.dumps(out))
''' % (os.path.join(HERE, "..", "..", "lib"), args.extension, args.cassandra)
    import json
    done = subprocess.run([sys.executable, "-c", code, json.dumps(sql)], capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})), timeout=timeout)
    if done.returncode != 0:
        raise SystemExit("cassandra cluster: a child failed: %s" % done.stderr[-2000:])
    return json.loads(done.stdout)


def node_sessions():
    """A driver session per node, each talking to that node alone (its
    system_views are its own): {address: session}, and their clusters."""
    out, clusters = {}, []
    for host, port in endpoints():
        c, s = node_session(host, port)
        clusters.append(c)
        out["%s:%d" % (host, port)] = s
    return out, clusters


def widecol_requests(sessions):
    """{address: requests} the nodes count for connections that are not a
    driver's (widecol's name none)."""
    out = {}
    for at, s in sessions.items():
        out[at] = sum(r.request_count or 0 for r in
                      s.execute("SELECT driver_name, request_count FROM system_views.clients")
                      if not r.driver_name)
    return out


def wait_state(db, nodes, state, seconds=120):
    """Waits until widecol_cassandra_nodes shows each of nodes (host, port)
    in `state` (the cluster's events say it), `seconds` at most."""
    want = {"%s:%d" % n for n in nodes}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        states = dict(db.execute("SELECT address, state FROM widecol_cassandra_nodes"))
        if all(states.get(at) == state for at in want):
            return True
        time.sleep(0.5)
    return False


def owner_of(token, ring):
    """The node (name) owning `token` on ring [(token, name)...] sorted."""
    for t, name in ring:
        if token <= t:
            return name
    return ring[0][1]


def case_routing(args, session, report):
    """Point reads by partition key go to the owner of the key's token."""
    from cassandra_session import make_keyspace
    ks = KEYSPACE + "_r1"
    make_keyspace(session, ks, rf=1)
    db = widecol(args)
    db.execute("CREATE VIRTUAL TABLE r USING widecol(k TEXT, v INTEGER, PRIMARY KEY ((k)), "
               "STORAGE CASSANDRA '%s.r')" % ks)
    db.execute("INSERT INTO r %s SELECT 'k' || value, value FROM s" % series(300))
    ring = sorted((int(t), name) for name, tokens in db.execute(
        "SELECT name, tokens FROM widecol_cassandra_nodes") for t in tokens.split(", "))
    owners = {}
    for k, tok in session.execute("SELECT k, token(k) FROM \"%s\".r" % ks):
        owners.setdefault(owner_of(tok, ring), []).append(k)
    sessions, clusters = node_sessions()
    ok = True
    said = []
    # Each statement's first read goes to any node (its routing is known
    # once a node prepared it): one read first.
    db.execute("SELECT v FROM r WHERE k = 'k1'").fetchall()
    for name, keys in sorted(owners.items()):
        keys = keys[:50]
        before = widecol_requests(sessions)
        mine_before = dict(db.execute("SELECT name, requests FROM widecol_cassandra_nodes"))
        for k in keys:
            got = db.execute("SELECT v FROM r WHERE k = ?", (k,)).fetchall()
            if got != [(int(k[1:]),)]:
                ok = False
        after = widecol_requests(sessions)
        mine_after = dict(db.execute("SELECT name, requests FROM widecol_cassandra_nodes"))
        server = {at: after[at] - before[at] for at in after}
        mine = {at: mine_after[at] - mine_before.get(at, 0) for at in mine_after}
        # The owner's own count has every read; another node's at most a
        # few (the store's control connection asks its node for events).
        others = [n for at, n in server.items() if at != name]
        if server.get(name, 0) < len(keys) or any(n > len(keys) // 10 for n in others) \
           or mine.get(name) != len(keys) or any(n for at, n in mine.items() if at != name):
            ok = False
        said.append("%s: %d reads, the nodes counted %s, widecol %s" % (
            name, len(keys), server, mine))
    # A scan of every token goes in parts, each to a replica of its ranges
    # (one replica here: every node reads its own).
    before = widecol_requests(sessions)
    mine_before = dict(db.execute("SELECT name, requests FROM widecol_cassandra_nodes"))
    count = db.execute("SELECT count(*), sum(v) FROM r").fetchone()
    after = widecol_requests(sessions)
    mine_after = dict(db.execute("SELECT name, requests FROM widecol_cassandra_nodes"))
    server = {at: after[at] - before[at] for at in after}
    mine = {at: mine_after[at] - mine_before.get(at, 0) for at in mine_after}
    report("a scan of every token on a keyspace of one replica: each node read its own "
           "ranges (%s: the nodes counted %s, widecol %s)" % (count, server, mine),
           count == (300, 45150) and all(server.get(at, 0) >= 1 for at in owners)
           and all(mine.get(at, 0) >= 1 for at in owners))
    for c in clusters:
        c.shutdown()
    db.execute("DROP TABLE r")
    session.execute('DROP KEYSPACE "%s"' % ks)
    report("point reads by partition key go to the node that owns the token, by the "
           "nodes' own counts (%s)" % "; ".join(said), ok)


def case_kill_under_load(args, session, report):
    """100,000 rows written while node 2 is killed; restarted, it is used."""
    db = widecol(args)
    db.execute("CREATE VIRTUAL TABLE load USING widecol(k INTEGER, v TEXT, PRIMARY KEY ((k)), "
               "STORAGE CASSANDRA '%s.load')" % KEYSPACE)
    code = r'''
import sqlite3, sys
sys.path.insert(0, %r)
import wctest
db = wctest.connect(%r, isolation_level=None)
db.load_extension(%r)
db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS load USING widecol(k INTEGER, v TEXT, "
           "PRIMARY KEY ((k)), STORAGE CASSANDRA '%s.load' EXTERNAL)")
db.execute("INSERT OR REPLACE INTO load WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL "
           "SELECT value + 1 FROM s WHERE value < %d) SELECT value, 'v' || value FROM s")
print(db.execute("SELECT json_extract(widecol_stats('load'), '$.retries')").fetchone()[0])
''' % (os.path.join(HERE, "..", "..", "lib"), args.extension, args.cassandra, KEYSPACE,
       LOAD_ROWS)
    start = time.monotonic()
    load = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # Part way: rows are landing (the load takes far longer than this).
    while load.poll() is None and time.monotonic() - start < 5:
        time.sleep(0.1)
    running = load.poll() is None
    killed_at = time.monotonic() - start
    node("kill", 2)
    out, err = load.communicate(timeout=900)
    loaded = load.returncode == 0
    report("a load of %d rows with node 2 killed after %.1f s, while it ran: acknowledged "
           "(%s)" % (LOAD_ROWS, killed_at, ("retries %s" % out.strip()) if loaded
                     else err.strip()[-300:]), loaded and running)
    got = child(args, ["CREATE VIRTUAL TABLE load USING widecol(k INTEGER, v TEXT, "
                       "PRIMARY KEY ((k)), STORAGE CASSANDRA '%s.load' EXTERNAL)" % KEYSPACE,
                       "SELECT count(*), sum(v = 'v' || k) FROM load"])
    report("node 2 down: a read at LOCAL_QUORUM answers every row (%s)" % (got[1][1],),
           got[1][0] and got[1][1] == [[LOAD_ROWS, LOAD_ROWS]])
    # A connection that stays open sees the node come back, by its event.
    seen = dict(db.execute("SELECT address, state FROM widecol_cassandra_nodes"))
    node2 = endpoints()[1]
    at2 = "%s:%d" % node2
    node("start", 2)
    deadline = time.monotonic() + 120
    state = None
    while time.monotonic() < deadline:
        state = dict(db.execute("SELECT address, state FROM widecol_cassandra_nodes"))[at2]
        if state == "up":
            break
        time.sleep(0.5)
    before = dict(db.execute("SELECT address, requests FROM widecol_cassandra_nodes"))[at2]
    for i in range(1, 301):
        db.execute("SELECT v FROM load WHERE k = ?", (i,)).fetchall()
    after = dict(db.execute("SELECT address, requests FROM widecol_cassandra_nodes"))[at2]
    report("node 2 restarted: the open connection saw it %s, then %s; it took %d of 300 "
           "reads" % (seen.get(at2), state, after - before),
           seen.get(at2) == "down" and state == "up" and after - before > 0)
    rows = {r.k: r.v for r in session.execute('SELECT k, v FROM "%s".load' % KEYSPACE,
                                              timeout=120)}
    report("every acknowledged row there exactly once, as the driver reads it at ALL "
           "(%d rows)" % len(rows),
           len(rows) == LOAD_ROWS and all(rows.get(k) == "v%d" % k
                                           for k in range(1, LOAD_ROWS + 1)))
    db.execute("DROP TABLE load")


def case_two_down(args, session, report):
    """Two of three replicas down: Unavailable, said so; nothing lost."""
    db = widecol(args)
    db.execute("CREATE VIRTUAL TABLE two USING widecol(k INTEGER, v TEXT, PRIMARY KEY ((k)), "
               "STORAGE CASSANDRA '%s.two')" % KEYSPACE)
    db.execute("INSERT INTO two %s SELECT value, 'before' FROM s" % series(100))
    node("kill", 2)
    node("kill", 3)
    # Node 1 must see them down (its gossip, which its events tell).
    wait_state(db, [endpoints()[1], endpoints()[2]], "down")
    create = ("CREATE VIRTUAL TABLE two USING widecol(k INTEGER, v TEXT, PRIMARY KEY ((k)), "
              "STORAGE CASSANDRA '%s.two' EXTERNAL)" % KEYSPACE)
    got = child(args, [create, "INSERT OR REPLACE INTO two VALUES (101, 'during')",
                       "SELECT v FROM two WHERE k = 1"])
    words = ("consistency LOCAL_QUORUM needs 2 replicas alive and the node knows of 1",
             "start the nodes that are down")
    report("two nodes down: a write fails with SQLITE_BUSY, saying why (%s)" % (got[1][2],),
           not got[1][0] and got[1][1] == sqlite3.SQLITE_BUSY
           and all(w in (got[1][2] or "") for w in words))
    report("two nodes down: a read fails saying why (%s)" % (got[2][2],),
           not got[2][0] and all(w in (got[2][2] or "") for w in words))
    node("start", 2)
    node("start", 3)
    rows = {r.k: r.v for r in session.execute('SELECT k, v FROM "%s".two' % KEYSPACE)}
    report("the nodes back: the 100 rows acknowledged before are there (%d rows)"
           % len(rows), all(rows.get(k) == "before" for k in range(1, 101)))
    db.execute("DROP TABLE two")


def case_frozen(args, session, report):
    """A frozen node: its requests time out and go to another replica."""
    timeout_ms = 3000
    # A connection of its own, its requests' wait 3 s (read at its first
    # call), open to every node before the node freezes.
    db = widecol(args, env={"WIDECOL_CASSANDRA_TIMEOUT_MS": str(timeout_ms)})
    db.execute("CREATE VIRTUAL TABLE fz USING widecol(k INTEGER, v TEXT, PRIMARY KEY ((k)), "
               "STORAGE CASSANDRA '%s.fz')" % KEYSPACE)
    db.execute("INSERT INTO fz %s SELECT value, 'v' || value FROM s" % series(200))
    at2 = "%s:%d" % endpoints()[1]
    for k in range(1, 31):
        db.execute("SELECT v FROM fz WHERE k = ?", (k,)).fetchall()
    before = dict(db.execute("SELECT address, requests FROM widecol_cassandra_nodes"))
    db.execute("SELECT widecol_stats('fz', 1)").fetchall()
    node("stop", 2)
    slowest, right = 0.0, True
    try:
        for k in range(1, 31):
            start = time.monotonic()
            got = db.execute("SELECT v FROM fz WHERE k = ?", (k,)).fetchall()
            slowest = max(slowest, time.monotonic() - start)
            right = right and got == [("v%d" % k,)]
        retries = db.execute("SELECT json_extract(widecol_stats('fz'), '$.retries')").fetchone()[0]
        after = dict(db.execute("SELECT address, requests FROM widecol_cassandra_nodes"))
        state = dict(db.execute("SELECT address, state FROM widecol_cassandra_nodes"))[at2]
    finally:
        node("cont", 2)
    # The first read sent to it waits its deadline, then goes on; the node
    # is down after that, and the reads after go to the others.
    report("node 2 frozen: 30 reads answered right, the slowest in %.1f s (a request's "
           "deadline %d ms); %s retried on another replica; node 2 sent %d, shown %s"
           % (slowest, timeout_ms, retries, after[at2] - before[at2], state),
           right and retries >= 1 and state == "down"
           and timeout_ms / 1000.0 <= slowest < 2 * timeout_ms / 1000.0 + 5)
    db.execute("DROP TABLE fz")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    args = ap.parse_args()
    if len(endpoints()) < 3:
        print("cassandra cluster: SKIPPED: WIDECOL_CASSANDRA names %d node(s); these cases "
              "need 3 (sh tests/servers/cassandra.sh start --nodes 3)" % len(endpoints()))
        return 0
    cluster, session = connect()
    failed = passed = 0

    def report(what, ok):
        nonlocal failed, passed
        print("cassandra cluster: %s: %s" % (what, "ok" if ok else "FAILED"))
        if ok:
            passed += 1
        else:
            failed += 1

    for case in (case_routing, case_kill_under_load, case_two_down, case_frozen):
        try:
            case(args, session, report)
        except Exception as e:  # noqa: BLE001 - each case reports, the next runs
            report("%s: %s: %s" % (case.__name__, type(e).__name__, e), False)
            for i in (1, 2, 3):
                if "down" in node("list").splitlines()[i - 1]:
                    node("start", i)
    session.execute('DROP KEYSPACE IF EXISTS "%s"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra cluster: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
