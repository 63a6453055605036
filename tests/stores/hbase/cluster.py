#!/usr/bin/env python3
"""Nothing acknowledged lost on an HBase cluster (tests/stores/hbase/run.sh
runs this on three region servers, after the other HBase tests: its last
case leaves no region server up).

Each case runs widecol on HBase's own protocol while the cluster changes
under it (tests/servers/hbase.sh rs and region), then asks HBase's Java
client what the table holds and widecol_check whether it is whole:

- a region server killed (as a crash) during a 100,000-row load: every
  row of a statement that succeeded is in HBase, with its values; a
  statement that failed said why; the load goes on once HBase has given
  the dead server's regions to the others;
- a region server killed during a full scan: the scan gives every row
  exactly once, in key order, or fails with an error that says so;
- regions split, moved and balanced under a load: as the first;
- the seeds' date-first payments key, three days of history and a busy
  day on a table split at each day: widecol_regions('<table>') shows each
  region's server and HBase's request counts, the region HBase counts
  most writes on is the one widecol_regions' simulation predicts hottest,
  and widecol_report's page draws the counts beside its Key Visualizer
  map, whose hottest cell lies in that region;
- every region server down: a statement ends at its deadline with an
  error that names the table and what was tried.

    tests/stores/hbase/cluster.py --extension ./widecol --hbase ./widecol_hbase
"""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checks import Checks  # noqa: E402
from hbase_session import Session, connect_from_args  # noqa: E402

HBASE_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "servers",
                        "hbase.sh")
ROWS = 100000
CHUNK = 1000          # rows a statement: a statement is what is acknowledged
SALT = 6              # regions of the pre-split table


CHECKS = Checks("hbase cluster")
expect = CHECKS.expect


def hbase_sh(*args):
    """hbase.sh's answer, its lines; a failure raises with its words."""
    done = subprocess.run(["sh", HBASE_SH] + list(args), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("hbase.sh %s: %s" % (" ".join(args), done.stderr.strip()))
    return done.stdout.splitlines()


def live_servers():
    """(number, regions) of each live region server, most regions first."""
    live = []
    for line in hbase_sh("rs", "list"):
        words = line.split()
        if len(words) >= 3 and words[2] != "down":
            live.append((int(words[0]), int(words[2])))
    return sorted(live, key=lambda s: -s[1])


def value_of(i):
    return "v%d" % i


def create(db, name, table):
    db.execute("CREATE VIRTUAL TABLE %s USING widecol(id INTEGER, v TEXT, n INTEGER, "
               "ROWKEY(SALT(%d, id), id PAD 6), STORAGE HBASE '%s')" % (name, SALT, table))


def load(db, name, during=None, at_row=0):
    """ROWS rows in statements of CHUNK, running `during` (a callable) once
    at_row rows were acknowledged: the ids acknowledged, the failures'
    messages, the seconds taken."""
    acked, errors = set(), []
    started = time.time()
    load.longest = 0
    fired = during is None
    for lo in range(0, ROWS, CHUNK):
        if not fired and lo >= at_row:
            during()
            fired = True
        began = time.time()
        try:
            db.execute("INSERT INTO %s SELECT id, 'v' || id, id * 7 FROM src "
                       "WHERE id >= ? AND id < ?" % name, (lo, lo + CHUNK))
            acked.update(range(lo, lo + CHUNK))
            load.longest = max(load.longest, time.time() - began)
        except Exception as e:  # noqa: BLE001 - any failure is reported
            errors.append("rows %d-%d: %s" % (lo, lo + CHUNK - 1, e))
    return acked, errors, time.time() - started


def background(*args):
    """hbase.sh with args, running beside the caller."""
    return subprocess.Popen(["sh", HBASE_SH] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def held(table, session):
    """What HBase's Java client reads of table: {id: (v, n)} from the
    newest cells, and the number of rows."""
    rows = {}
    for line in session.ask("cells " + table):
        key, family, qual, _, value = line.split(" ")
        if family != "_" or qual == "00":
            continue
        rowid = int(bytes.fromhex(key)[-6:].decode())
        col = bytes.fromhex(qual).decode()
        cur = rows.setdefault(rowid, {})
        if col not in cur:   # the newest version comes first
            cur[col] = bytes.fromhex(value)
    return rows


def check_loaded(db, name, table, session, acked, errors, what):
    rows = held(table, session)
    missing = [i for i in acked if i not in rows]
    expect(what + ": every acknowledged row is in HBase", not missing,
           "%d missing, the first %s" % (len(missing), sorted(missing)[:5]))
    wrong = [i for i, cols in rows.items()
             if cols.get("v") != value_of(i).encode() or "n" not in cols]
    expect(what + ": every row HBase holds has its values", not wrong,
           "%d wrong, the first %s" % (len(wrong), sorted(wrong)[:5]))
    unsaid = [e for e in errors if "HBase" not in e]
    expect(what + ": each failed statement said why", not unsaid, "; ".join(unsaid[:2]))
    count = db.execute("SELECT count(*) FROM %s" % name).fetchone()[0]
    expect(what + ": widecol counts what HBase holds", count == len(rows),
           "widecol %d, HBase %d" % (count, len(rows)))
    problems = [r[0] for r in db.execute("SELECT * FROM widecol_check('%s')" % name)]
    expect(what + ": widecol_check finds the table whole", problems == ["ok"],
           "; ".join(map(str, problems[:3])))


def kill_during_load(db, session):
    what = "a region server killed during a %d-row load" % ROWS
    create(db, "ld", "cl:load")
    live = live_servers()
    victim = live[0][0]

    def kill():
        print("hbase cluster: killing region server %d of %s" % (victim, live), flush=True)
        kill.proc = background("rs", "kill", str(victim))
    acked, errors, seconds = load(db, "ld", kill, ROWS // 4)
    kill.proc.wait()
    print("hbase cluster: %s: %d rows acknowledged in %.1f s (the longest statement %.1f s), "
          "%d statements failed%s" % (what, len(acked), seconds, load.longest, len(errors),
                                      (": " + errors[0]) if errors else ""), flush=True)
    expect(what + ": the load went on after the regions were reassigned",
           set(range(ROWS - CHUNK, ROWS)) <= acked, "the last statement failed")
    check_loaded(db, "ld", "cl:load", session, acked, errors, what)


def kill_during_scan(db):
    what = "a region server killed during a full scan"
    hbase_sh("rs", "start")
    live = live_servers()
    expected = [r[0] for r in db.execute("SELECT id FROM ld ORDER BY rowkey")]
    cur = db.execute("SELECT id FROM ld")
    got, err, proc = [], None, None
    try:
        for row in cur:
            got.append(row[0])
            if proc is None and len(got) == len(expected) // 3:
                print("hbase cluster: killing region server %d of %s" % (live[0][0], live),
                      flush=True)
                # The rest is read once the server is dead: the scanner
                # open on it, and the pages after, must be found again.
                proc = background("rs", "kill", str(live[0][0]))
                proc.wait()
    except Exception as e:  # noqa: BLE001 - the test is what it says
        err = str(e)
    if proc:
        proc.wait()
    print("hbase cluster: %s: %d of %d rows%s" % (what, len(got), len(expected),
                                                  ", then: " + err if err else ""), flush=True)
    expect(what + ": the scan was under way when the server died", proc is not None)
    if err is None:
        expect(what + ": every row exactly once, in key order", got == expected,
               "%d rows, %d distinct, %d expected" % (len(got), len(set(got)), len(expected)))
    else:
        expect(what + ": the failure says what failed", "HBase" in err, err)
        expect(what + ": the rows before it were the first ones, once each",
               got == expected[:len(got)])


def changes_under_load(db, session):
    what = "regions split, moved and balanced under a load"
    hbase_sh("rs", "start")
    create(db, "mv", "cl:moves")
    procs = []

    def shake():
        # A split inside a salt's region, a move of another, the balancer.
        first = db.execute("SELECT hex(rowkey) FROM mv ORDER BY rowkey LIMIT 1 OFFSET 500"
                           ).fetchone()[0]
        last = db.execute("SELECT hex(rowkey) FROM mv ORDER BY rowkey DESC LIMIT 1").fetchone()[0]
        procs.append(background("region", "split", "cl:moves", first))
        procs.append(background("region", "move", "cl:moves", last))
        procs.append(background("region", "balance"))
    acked, errors, seconds = load(db, "mv", shake, ROWS // 4)
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            print("hbase cluster: %s: hbase.sh said: %s" % (what, err.strip()), flush=True)
    print("hbase cluster: %s: %d rows acknowledged in %.1f s (the longest statement %.1f s), "
          "%d statements failed%s" % (what, len(acked), seconds, load.longest, len(errors),
                                      (": " + errors[0]) if errors else ""), flush=True)
    expect(what + ": every statement succeeded", not errors, "; ".join(errors[:2]))
    check_loaded(db, "mv", "cl:moves", session, acked, errors, what)


def hottest_region(db):
    """The seeds' date-first payments key (PaymentDateTime_CustomerID_
    PaymentID) on a table split at each day: three days of history, then
    a busy day.  widecol_regions('<table>') shows each region's server and
    HBase's own request counts; the region with the most writes must be
    the one widecol_regions' simulation of the same writes predicts
    hottest."""
    what = "the region HBase counts hottest"
    design = ("customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, "
              "ROWKEY(paid_at, customer_id PAD 6, payment_id PAD 9)")
    db.execute("CREATE VIRTUAL TABLE hot USING widecol(%s, SPLITS ('2017-01-02', '2017-01-03', "
               "'2017-01-04'), STORAGE HBASE 'cl:hot')" % design)
    db.execute("CREATE VIRTUAL TABLE hot_local USING widecol(%s)" % design)
    rows = []
    for day, n in ((1, 1000), (2, 1000), (3, 1000), (4, 3000)):
        for i in range(n):
            secs = i * 86400 // n
            rows.append((i * 7919 % 99999 + 1, "2017-01-%02d %02d:%02d:%02d" % (
                day, secs // 3600, secs // 60 % 60, secs % 60), len(rows), i % 500 + 0.5))
    for lo in range(0, len(rows), 500):
        db.executemany("INSERT INTO hot VALUES (?, ?, ?, ?)", rows[lo:lo + 500])
    db.executemany("INSERT INTO hot_local VALUES (?, ?, ?, ?)", rows)
    live = {line.split()[1].split(",")[0] + ":" + line.split()[1].split(",")[1]
            for line in hbase_sh("rs", "list") if "down" not in line}
    measured = db.execute("SELECT region, CAST(start_key AS TEXT), CAST(end_key AS TEXT), server, "
                          "read_requests, write_requests FROM widecol_regions('hot')").fetchall()
    print("hbase cluster: %s: measured %s" % (what, [(r[1], r[3], r[5]) for r in measured]),
          flush=True)
    expect(what + ": widecol_regions shows each region with its live server and counts",
           len(measured) == 4 and all(r[3] in live and r[5] is not None for r in measured),
           "%s, live %s" % (measured, sorted(live)))
    predicted = db.execute(
        "SELECT CAST(start_key AS TEXT), CAST(end_key AS TEXT), recent_writes FROM "
        "widecol_regions('SELECT rowkey FROM hot_local ORDER BY paid_at, payment_id', 1000, 3000) "
        "ORDER BY recent_writes DESC LIMIT 1").fetchone()
    hot = max(measured, key=lambda r: r[5] or 0)
    print("hbase cluster: %s: %s to %s (%d writes); predicted %s to %s (%d of the last 3000 "
          "writes)" % (what, hot[1], hot[2], hot[5] or 0, predicted[0], predicted[1],
                       predicted[2]), flush=True)
    inside = (hot[1] is None or predicted[0] is not None and predicted[0] >= hot[1]) and \
        (hot[2] is None or predicted[1] is not None and predicted[1] <= hot[2])
    expect(what + " is the one widecol predicts hottest for the same writes", inside,
           "measured %s, predicted %s" % (hot[1:3], predicted[:2]))
    # The report page: the measured strip beside the Key Visualizer's map.
    page = db.execute("SELECT widecol_report('hot')").fetchone()[0]
    strip = re.search(r'<svg class="heat measured"[^>]*data-hot-bucket="(\d+)"', page)
    cells = re.search(r'<svg class="heat" [^>]*data-hot-bucket="(\d+)"', page)
    measured = {int(b): float(w) for b, w in re.findall(
        r'<tr data-bucket="(\d+)"[^>]*data-measured="([0-9.]+)"', page)}
    expect(what + ": the report draws HBase's counts beside its map",
           strip is not None and cells is not None and measured,
           "strip %s, map %s, %d buckets measured" % (bool(strip), bool(cells), len(measured)))
    if strip and cells and measured:
        hot_cell = int(cells.group(1))
        print("hbase cluster: %s: the report's hottest cell is in bucket %d, where HBase "
              "counted %.0f writes on the region (the most: %.0f)"
              % (what, hot_cell, measured.get(hot_cell, 0), max(measured.values())),
              flush=True)
        expect(what + ": the report's hottest cell lies in the region HBase counted hottest",
               measured.get(hot_cell) == max(measured.values()),
               "bucket %d: %s" % (hot_cell, measured.get(hot_cell)))
    db.execute("DROP TABLE hot")
    db.execute("DROP TABLE hot_local")


def all_down(db):
    what = "every region server down"
    # Numbers are places in the list of live servers: the last first.
    for number in sorted((n for n, _ in live_servers()), reverse=True):
        hbase_sh("rs", "kill", str(number))
    started = time.time()
    err = None
    try:
        db.execute("SELECT count(*) FROM ld").fetchone()
    except Exception as e:  # noqa: BLE001 - the error is the test
        err = str(e)
    seconds = time.time() - started
    deadline = int(os.environ.get("WIDECOL_HBASE_TIMEOUT_MS", "30000")) / 1000
    print("hbase cluster: %s: %.1f s, then: %s" % (what, seconds, err), flush=True)
    expect(what + ": the statement failed", err is not None)
    expect(what + ": it waited for the deadline, not much longer",
           deadline * 0.9 <= seconds <= deadline * 2 + 10,
           "%.1f s, the deadline %.0f s" % (seconds, deadline))
    expect(what + ": the error names the table and what was tried",
           err is not None and "cl:load" in err and "127.0.0.1:" in err, err)


def main():
    db = connect_from_args()
    db.execute("CREATE TEMP TABLE src(id INTEGER PRIMARY KEY)")
    db.executemany("INSERT INTO src VALUES (?)", ((i,) for i in range(ROWS)))
    if len(live_servers()) < 3:
        expect("three region servers up (hbase.sh start --regionservers 3)", False)
        return 1
    session = Session()
    try:
        kill_during_load(db, session)
        kill_during_scan(db)
        changes_under_load(db, session)
        db.execute("DROP TABLE mv")
        hottest_region(db)
        all_down(db)
    finally:
        session.close()
    return CHECKS.end()


if __name__ == "__main__":
    sys.exit(main())
