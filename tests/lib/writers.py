"""Writer processes racing on one table, for the stores' reliability
scripts (tests/stores/bigtable/reliability.py,
tests/stores/cassandra/reliability.py).

race(script, extension, store, specs) starts one process per spec, each
running `script --worker JSON` (the script calls worker() for it), lets
them all go at once, and returns each one's outcomes in order: ["ok",
rows] or ["error", message] per statement.  A spec: "statements" ([sql,
params] each, "{i}" in a text parameter replaced by the repetition's
number), "repeat" (1), "setup" (statements run first), "db" (the
database file, ":memory:")."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import wctest


def run(db, sql, params=()):
    """("ok", rows) or ("error", message)."""
    try:
        return ("ok", db.execute(sql, params).fetchall())
    except sqlite3.Error as e:
        return ("error", str(e))


def worker(spec):
    """Runs spec's statements once the file spec["go"] exists, then prints
    a JSON list of outcomes."""
    db = wctest.connect(spec["extension"], spec.get("db", ":memory:"), bigtable=spec["store"],
                        isolation_level=None, timeout=30)
    for sql in spec.get("setup", []):
        db.execute(sql)
    while not os.path.exists(spec["go"]):
        time.sleep(0.001)
    out = []
    for i in range(spec.get("repeat", 1)):
        for sql, params in spec["statements"]:
            params = [p.replace("{i}", str(i)) if isinstance(p, str) else p for p in params]
            out.append(run(db, sql, params))
    print(json.dumps(out))
    db.close()


def race(script, extension, store, specs):
    """Runs writer processes of specs together; their outcomes, in order."""
    go = tempfile.mktemp(prefix="widecol-go-")
    procs = []
    for spec in specs:
        spec = dict(spec, extension=extension, store=store, go=go)
        procs.append(subprocess.Popen([sys.executable, script, "--worker", json.dumps(spec)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=dict(os.environ)))
    time.sleep(0.3)
    open(go, "w").close()
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        if p.returncode != 0:
            raise RuntimeError("a writer failed: %s" % err.decode())
        outs.append(json.loads(out))
    os.remove(go)
    return outs
