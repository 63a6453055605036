#!/usr/bin/env python3
"""The HBase store where other clients and failures meet it
(tests/stores/hbase/run.sh runs this, with WIDECOL_HBASE set):

- first CREATEs at the same moment: four processes each making their first
  table in a new namespace (each needs the namespace and widecol's catalog
  of designs there), and four making the same table: every one succeeds,
  as on an ordinary SQLite database, and the table is usable by all;
- a gateway that is not there (nothing listening, a name that does not
  resolve) is reported at once, its reason said once, not after the
  deadline;
- a write to a table another program disabled is reported as that, with
  how to enable it, within seconds, where the gateway would hold it until
  the deadline; a read says the same;
- no message of the HBase store names gRPC (HBase is not gRPC).

    tests/stores/hbase/errors.py --extension ./widecol --hbase ./widecol_hbase
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from checks import Checks  # noqa: E402
from hbase_session import connect_from_args  # noqa: E402
import wctest  # noqa: E402


# One process of a race: waits until the start time, runs its statements,
# prints what each gave as JSON.
CHILD = r'''
import json, sqlite3, sys, time
ext, lib, start, statements = sys.argv[1], sys.argv[2], float(sys.argv[3]), json.loads(sys.argv[4])
db = sqlite3.connect(":memory:", isolation_level=None)
db.enable_load_extension(True)
db.load_extension(ext)
db.load_extension(lib)
while time.time() < start:
    time.sleep(0.001)
out = []
for sql in statements:
    try:
        out.append(["ok", db.execute(sql).fetchall()])
    except sqlite3.Error as e:
        out.append(["error", str(e)])
print(json.dumps(out))
'''


CHECKS = Checks("hbase errors")
expect = CHECKS.expect


def race(ext, lib, scripts, env=None):
    """Each list of statements run by a process of its own, all starting at
    the same moment: each process's [kind, answer] per statement."""
    start = time.time() + 3.0
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, ext, lib, str(start),
                               json.dumps(s)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
             for s in scripts]
    got = []
    for p in procs:
        out, err = p.communicate(timeout=600)
        got.append(json.loads(out) if p.returncode == 0 and out.strip()
                   else [["error", "the process failed: " + err.strip()[-500:]]])
    return got


def one_statement(ext, lib, sql, env):
    """The error of sql in a process of its own under env, and the seconds
    it took."""
    t0 = time.monotonic()
    got = race(ext, lib, [[sql]], env=env)[0][0]
    return got, time.monotonic() - t0 - 3.0


def client(*args):
    out = subprocess.run(["sh", os.path.join(HERE, "..", "..", "servers", "hbase.sh"),
                          "client"] + list(args), capture_output=True, text=True)
    return out.returncode == 0, out.stderr[-500:]


def main():
    db = connect_from_args()
    ext, lib = sys.argv[sys.argv.index("--extension") + 1], sys.argv[sys.argv.index("--hbase") + 1]
    ns = "race%d" % os.getpid()
    design = "k TEXT, v INTEGER, ROWKEY(k)"

    # Four first tables in a new namespace, at once.
    got = race(ext, lib, [[
        "CREATE VIRTUAL TABLE t%d USING widecol(%s, STORAGE HBASE '%s:t%d')" % (i, design, ns, i),
        "INSERT INTO t%d VALUES ('a', %d)" % (i, i),
        "SELECT k, v FROM t%d" % i] for i in range(4)])
    expect("four first CREATEs in one new namespace at once all succeed",
           all(r[0][0] == "ok" for r in got), [r[0] for r in got if r[0][0] != "ok"])
    expect("... and each table holds its row",
           [r[2] for r in got] == [["ok", [["a", i]]] for i in range(4)], got)

    # Four CREATEs of the same table, at once; then each writes a row of
    # its own and all read every row.
    got = race(ext, lib, [[
        "CREATE VIRTUAL TABLE s USING widecol(%s, STORAGE HBASE '%s:same')" % (design, ns),
        "INSERT INTO s VALUES ('p%d', %d)" % (i, i)] for i in range(4)])
    expect("four CREATEs of one table at once all succeed",
           all(r[0][0] == "ok" for r in got), [r[0] for r in got if r[0][0] != "ok"])
    expect("... and every one writes to it", all(r[1][0] == "ok" for r in got),
           [r[1] for r in got])
    db.execute("CREATE VIRTUAL TABLE s USING widecol(%s, STORAGE HBASE '%s:same')"
               % (design, ns))
    rows = db.execute("SELECT k, v FROM s ORDER BY k").fetchall()
    expect("... and holds their four rows", rows == [("p%d" % i, i) for i in range(4)], rows)
    errors = [r[0][1] for r in got if r[0][0] == "error"]
    expect("a failed concurrent CREATE's error is one line, no Java stack trace",
           all("\n" not in e and "\tat " not in e for e in errors), errors)

    # Servers that are not there, on either transport: said at once, the
    # reason once.
    sql = "CREATE VIRTUAL TABLE r USING widecol(%s, STORAGE HBASE 'r')" % design
    env = dict(os.environ, WIDECOL_HBASE_NODES="127.0.0.1:%d,127.0.0.1:%d"
               % (wctest.free_port(), wctest.free_port()))
    env.pop("WIDECOL_HBASE_TIMEOUT_MS", None)
    (kind, msg), secs = one_statement(ext, lib, sql, env)
    expect("bootstrap nodes that refuse are reported at once (%.1f s, the deadline is 30 s)"
           % secs, kind == "error" and secs < 5.0, (kind, msg))
    expect("... saying no server answers, the connection refused once, and what to check",
           msg.count("Connection refused") == 1 and "no HBase server answers" in msg
           and "WIDECOL_HBASE_NODES" in msg and "gRPC" not in msg, msg)
    env = dict(os.environ, WIDECOL_HBASE_TRANSPORT="thrift",
               WIDECOL_HBASE="127.0.0.1:%d" % wctest.free_port())
    env.pop("WIDECOL_HBASE_TIMEOUT_MS", None)
    (kind, msg), secs = one_statement(ext, lib, sql, env)
    expect("a refused gateway is reported at once (%.1f s, the deadline is 30 s)" % secs,
           kind == "error" and secs < 5.0, (kind, msg))
    expect("... saying the connection was refused, once, and what to run",
           msg.count("Connection refused") == 1 and "hbase thrift2 start" in msg
           and "gRPC" not in msg, msg)
    env["WIDECOL_HBASE"] = "no-such-host.invalid:9090"
    (kind, msg), secs = one_statement(ext, lib, sql, env)
    expect("a gateway whose name does not resolve is reported at once (%.1f s)" % secs,
           kind == "error" and secs < 5.0 and msg.count("cannot resolve") == 1, (kind, msg))
    for nat in ("rs1:16020", "rs1:16020=nowhere", "rs1=127.0.0.1:1"):
        env = dict(os.environ, WIDECOL_HBASE_NAT="localhost:1=127.0.0.1:2," + nat)
        env.pop("WIDECOL_HBASE_TRANSPORT", None)
        (kind, msg), secs = one_statement(ext, lib, sql, env)
        expect("WIDECOL_HBASE_NAT=...,%s is refused, saying what is not name=address" % nat,
               kind == "error" and "WIDECOL_HBASE_NAT must be name=address" in msg
               and "'%s' is not" % nat in msg, (kind, msg))
    env = dict(os.environ, WIDECOL_HBASE_TRANSPORT="nonsense")
    (kind, msg), secs = one_statement(ext, lib, "SELECT 1", env)
    expect("a transport that is neither native nor thrift is refused, saying which are",
           kind == "error" and "WIDECOL_HBASE_TRANSPORT must be native" in msg, (kind, msg))

    # A table another program disabled.
    db.execute("CREATE VIRTUAL TABLE d USING widecol(%s, STORAGE HBASE '%s:dis')" % (design, ns))
    db.execute("INSERT INTO d VALUES ('a', 1)")
    ok, why = client("disable", "%s:dis" % ns)
    expect("HBase's client disables the table", ok, why)
    for sql, what in (("INSERT INTO d VALUES ('b', 2)", "a plain INSERT"),
                      ("INSERT OR REPLACE INTO d VALUES ('b', 2)", "an INSERT OR REPLACE"),
                      ("SELECT * FROM d", "a read")):
        t0 = time.monotonic()
        try:
            db.execute(sql).fetchall()
            msg = None
        except Exception as e:  # sqlite3.Error
            msg = str(e)
        secs = time.monotonic() - t0
        expect("%s of a disabled table is refused within seconds (%.1f s)" % (what, secs),
               msg is not None and secs < 10.0, msg)
        expect("... saying it is disabled and how to enable it, never gRPC",
               msg is not None and "disabled" in msg
               and "enable '%s:dis'" % ns in msg and "gRPC" not in msg, msg)
    ok, why = client("enable", "%s:dis" % ns)
    expect("HBase's client enables it again", ok, why)
    rows = db.execute("SELECT k, v FROM d WHERE k = 'a'").fetchall()
    expect("... and the row written before is there", rows == [("a", 1)], rows)

    for t in ["d", "s"]:
        db.execute("DROP TABLE %s" % t)
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
