#!/usr/bin/env python3
"""The Cassandra store's failures, each an SQL error that names the table,
the endpoint and what to do, with its SQLite code chosen by what failed
(tests/stores/cassandra/run.sh runs this, with WIDECOL_CASSANDRA set):

- no WIDECOL_CASSANDRA, or not host:port[,host:port...]: SQLITE_CANTOPEN,
  saying how;
- no server at the contact point: SQLITE_CANTOPEN, naming it;
- an unknown WIDECOL_CASSANDRA_CONSISTENCY: the levels it may be; an
  unknown WIDECOL_CASSANDRA_PROTOCOL: the versions it may be;
- a contact point that speaks protocol v4 only (V4Only below, in front
  of the first node): widecol falls back from v5 and works; with v5 asked
  for, the connection fails saying so;
- a consistency level the replicas cannot meet (QUORUM on a keyspace of
  twice as many replicas as the cluster has nodes): Cassandra's
  Unavailable, SQLITE_BUSY, naming the level and the replicas it needs,
  for a write in flight (at the statement's end) and a read;
- connections that fail under a read or a write (a proxy before each node,
  tests/lib/fault_proxy.py's NodesProxy, given as the contact points):
  the call is made again on a new one, counted in widecol_stats's retries,
  and the statement answers as if nothing happened (a write whose answer
  was lost is sent again, a lightweight transaction's read back at SERIAL
  first); the connection severed 50 times a second: a read either
  answers right or fails saying what failed, writes in flight either
  succeed or fail with SQLITE_IOERR saying that they may yet apply; the
  next statement connects again.

A read's failure comes while the statement is planned (the planner counts
the rows first), and SQLite gives any failure of a plan as SQLITE_ERROR,
with the store's words: the reads' codes are not checked, their words
are; a write's code is its own (SQLITE_BUSY for Unavailable).

Each runs in a child process of its own, so that each starts with its own
environment.

    tests/stores/cassandra/errors.py --extension ./widecol --cassandra ./widecol_cassandra
"""
import argparse
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import wctest  # noqa: E402,F401  (one line, not a traceback, on an error no test caught)

KEYSPACE = "errs%d" % os.getpid()

CHILD = r'''
import json, sqlite3, sys
ext, lib, statements = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
db = sqlite3.connect(sys.argv[4], isolation_level=None)
db.enable_load_extension(True)
db.load_extension(ext)
db.load_extension(lib)
out = []
for sql in statements:
    try:
        out.append(["ok", None, None, db.execute(sql).fetchall()])
    except sqlite3.Error as e:
        out.append(["error", getattr(e, "sqlite_errorcode", None), str(e)])
print(json.dumps(out))
'''


class V4Only:
    """A node of Cassandra before protocol v5, in front of the real one:
    it answers a connection whose first message is v5 with the protocol
    error a v4 node sends (in v4, code 0x000A) and closes it; any other it
    passes on."""

    def __init__(self, host, port):
        self.target = (host, port)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def address(self):
        return "127.0.0.1:%d" % self.listener.getsockname()[1]

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            first = client.recv(1, socket.MSG_PEEK)
            if first == b"\x05":
                msg = b"Invalid or unsupported protocol version (5); supported versions are (3/v3, 4/v4)"
                body = struct.pack(">iH", 0x000A, len(msg)) + msg
                client.sendall(struct.pack(">BBhBi", 0x84, 0, 0, 0x00, len(body)) + body)
                client.close()
                self.refused += 1
                continue
            server = socket.create_connection(self.target)
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.close()
            except OSError:
                pass

    def close(self):
        self.listener.close()


def run(args, env, statements, database=":memory:"):
    """Each statement's outcome: ("ok"|"error", extended code, message)."""
    p = subprocess.run([sys.executable, "-c", CHILD, args.extension, args.cassandra,
                        json.dumps(statements), database], env=env, capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit("cassandra errors: the child failed (exit %d) running %s: %s"
                         % (p.returncode, statements, p.stderr[-20000:]))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra")
    args = ap.parse_args()
    import sqlite3
    from cassandra_session import connect
    from fault_proxy import FaultProxy, NodesProxy
    failed = checked = 0
    at = os.environ["WIDECOL_CASSANDRA"]
    first = at.split(",")[0]
    nodes = len(at.split(","))
    create = ("CREATE VIRTUAL TABLE t USING widecol(a TEXT, b INTEGER, v TEXT, "
              "PRIMARY KEY ((a), b), STORAGE CASSANDRA '%s.%%s'%%s)" % KEYSPACE)

    def expect(what, got, ok, code, *words):
        nonlocal failed, checked
        checked += 1
        good = (got[0] == ("ok" if ok else "error")
                and (code is None or got[1] == code)
                and all(w in (got[2] or "") for w in words))
        if not good:
            print("cassandra errors: %s: FAILED (got %s; want %s, code %s, with %s)"
                  % (what, got, "ok" if ok else "an error", code, words))
            failed += 1

    env = dict(os.environ)
    del env["WIDECOL_CASSANDRA"]
    got = run(args, env, [create % ("t0", "")])
    expect("no WIDECOL_CASSANDRA", got[0], False, sqlite3.SQLITE_CANTOPEN,
           "no Cassandra: set WIDECOL_CASSANDRA=host:port")
    got = run(args, dict(os.environ, WIDECOL_CASSANDRA="nowhere"), [create % ("t0", "")])
    expect("WIDECOL_CASSANDRA not host:port", got[0], False, sqlite3.SQLITE_CANTOPEN,
           "WIDECOL_CASSANDRA must be host:port", "'nowhere'")
    with FaultProxy("127.0.0.1", 9) as dead:
        dead.refuse(3600)
        got = run(args, dict(os.environ, WIDECOL_CASSANDRA=dead.address()),
                  [create % ("t0", "")])
    expect("a server that closes every connection", got[0], False, None,
           "widecol t: ", dead.address())
    got = run(args, dict(os.environ, WIDECOL_CASSANDRA_CONSISTENCY="MOST"),
              [create % ("t0", "")])
    expect("an unknown consistency level", got[0], False, None,
           "WIDECOL_CASSANDRA_CONSISTENCY is 'MOST'", "QUORUM")
    got = run(args, dict(os.environ, WIDECOL_CASSANDRA_PROTOCOL="3"), [create % ("t0", "")])
    expect("an unknown protocol version", got[0], False, None,
           "WIDECOL_CASSANDRA_PROTOCOL is '3'", "4 or 5")
    host, port = first.rsplit(":", 1)
    old = V4Only(host, int(port))
    env = dict(os.environ, WIDECOL_CASSANDRA=old.address())
    env.pop("WIDECOL_CASSANDRA_PROTOCOL", None)
    # In a keyspace of its own: the case after makes KEYSPACE itself.
    got = run(args, env, [create.replace(KEYSPACE, KEYSPACE + "_v4") % ("v4", ""),
                          "INSERT INTO t VALUES ('x', 1, 'v')", "SELECT v FROM t",
                          "DROP TABLE t"])
    expect("a v4-only node: v5 refused, v4 spoken", got[2], True, None)
    expect("a v4-only node was asked for v5 first", ["ok" if old.refused >= 1 else "error",
                                                     None, None], True, None)
    got = run(args, dict(env, WIDECOL_CASSANDRA_PROTOCOL="5"), [create % ("v5", "")])
    expect("a v4-only node with v5 asked for", got[0], False, sqlite3.SQLITE_CANTOPEN,
           "does not speak CQL's native protocol v5")
    old.close()

    # Twice as many replicas as nodes: QUORUM cannot be met.
    cluster, session = connect()
    session.execute("CREATE KEYSPACE \"%s\" WITH replication = {'class': 'SimpleStrategy', "
                    "'replication_factor': %d}" % (KEYSPACE, 2 * nodes))
    got = run(args, dict(os.environ, WIDECOL_CASSANDRA_CONSISTENCY="QUORUM"), [
        create % ("q", ""),
        "INSERT OR REPLACE INTO t VALUES ('x', 1, 'v')",
        "SELECT * FROM t WHERE a = 'x'",
        "DROP TABLE t"])
    expect("CREATE under QUORUM (no replica needed)", got[0], True, None)
    expect("a write in flight under QUORUM, too few replicas up", got[1], False,
           sqlite3.SQLITE_BUSY, "widecol t: Cassandra at ",
           "consistency QUORUM needs %d replicas alive and the node knows of %d"
           % (nodes + 1, nodes),
           "start the nodes that are down, or set WIDECOL_CASSANDRA_CONSISTENCY")
    # (Planned first: the planner's count of the rows fails, and a failure
    # while planning is SQLITE_ERROR, with the same words.)
    expect("a read under QUORUM, too few replicas up", got[2], False, None,
           "widecol t: Cassandra at ", "refused a read", "consistency QUORUM",
           "start the nodes that are down")

    # A connection severed under a read; the next statement connects again.
    database = os.path.join(tempfile.mkdtemp(), "errors.db")
    with NodesProxy(at) as proxy:
        env = dict(os.environ, WIDECOL_CASSANDRA=proxy.address())
        # Each contact point's first answer lost: the CREATE's opening of
        # the cluster is made again, as any call is (the differential's
        # faults once failed a CREATE so).
        proxy.lose_next(1)
        got = run(args, env, [
            # One replica: a lightweight transaction needs a quorum of
            # them alive (KEYSPACE has two, on one node).
            create.replace(KEYSPACE, KEYSPACE + "_p") % ("s", ""),
            "INSERT OR REPLACE INTO t WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL "
            "SELECT x + 1 FROM i WHERE x < 19999) SELECT 'p' || (x % 50), x, 'v' FROM i",
            "SELECT count(*) FROM t"], database)
        expect("a CREATE whose first answers are lost, made again", got[0], True, None)
        expect("a table through the proxy", got[2], True, None)
        # Answers lost: each call made again on a new connection, the
        # statements' answers those of a connection that never failed.
        proxy.lose_next(3)
        got = run(args, env, [
            "SELECT count(*) FROM t",
            "UPDATE t SET v = 'u' WHERE a = 'p7' AND b = 7",
            "INSERT INTO t VALUES ('new', 1, 'n')",
            "SELECT count(*), sum(v = 'u') FROM t",
            "SELECT json_extract(widecol_stats('t'), '$.retries')"], database)
        expect("reads and writes whose answers are lost, made again",
               ["ok" if [g[0] for g in got] == ["ok"] * 5 and got[0][3] == [[20000]]
                and got[3][3] == [[20001, 1]] and got[4][3][0][0] >= 1 else "error",
                None, None], True, None)
        proxy.lose_next(0)
        proxy.chaos(50)
        got = run(args, env, ["SELECT count(*), sum(b) FROM t"], database)
        proxy.chaos(0)
        # Each call made again up to 6 times, each maybe severed too: right
        # (0 to 19999, and 1), or a failure that says what failed.
        expect("a read whose connection is severed 50 times a second", [
            "ok" if (got[0][0] == "ok" and got[0][3] == [[20001, 199990001]])
            or (got[0][0] == "error" and "widecol t: " in got[0][2]
                and any(p.address() in got[0][2] for p in proxy.proxies)
                and ("is the node up?" in got[0][2]
                     or "start it, or set WIDECOL_CASSANDRA" in got[0][2]))
            else "error", None, None], True, None)
        # Writes in flight when their connection is severed.  A sever that
        # comes while the child's first connection opens is the refused
        # connection of the first case (SQLITE_CANTOPEN), not this one: the
        # case runs again, up to 5 times (seen once in about 12 runs under
        # ASan, whose child is slower to connect).
        for attempt in range(5):
            proxy.chaos(50)
            got = run(args, env, [
                "INSERT OR REPLACE INTO t WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL "
                "SELECT x + 1 FROM i WHERE x < 9999) SELECT 'q' || (x % 50), x, 'w' FROM i"],
                database)
            proxy.chaos(0)
            if got[0][1] != sqlite3.SQLITE_CANTOPEN:
                break
        wrote = got[0]
        got = run(args, env, ["SELECT count(*) FROM t", "DROP TABLE t"], database)
        expect("the next statement, on a new connection", got[0], True, None)
        # Each call made again up to 6 times: all written, or a failure
        # that says the writes may yet apply, or (a connection or a prepare
        # that failed 6 times, before the write was sent) what failed.
        said = wrote[2] or ""
        expect("writes whose connection is severed 50 times a second", [
            "ok" if (wrote[0] == "ok" and got[0][3] == [[30001]])
            or (wrote[0] == "error" and any(p.address() in said for p in proxy.proxies)
                and said.startswith("widecol t: ")
                and (wrote[1] == sqlite3.SQLITE_IOERR and "may yet apply" in said
                     or "is the node up?" in said
                     or "start it, or set WIDECOL_CASSANDRA" in said))
            else "error", None, wrote], True, None)
    os.unlink(database)
    session.execute('DROP KEYSPACE "%s"' % KEYSPACE)
    session.execute('DROP KEYSPACE IF EXISTS "%s_v4"' % KEYSPACE)
    session.execute('DROP KEYSPACE IF EXISTS "%s_p"' % KEYSPACE)
    cluster.shutdown()
    print("cassandra errors: %d failures, each an SQL error with its code and what to do: "
          "%d failed" % (checked, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
