#!/usr/bin/env python3
"""Progress lines of long statements, as the sqlite3 shell's user sees them
(util/wc_progress.h, docs/widecol.md "Progress lines").

1. A load of 800,000 rows (more on a machine that loads them within 2 s)
   into a widecol table with an INDEX, typed into the sqlite3 shell:
   after the first 2 s a line every 2 s on standard error ("widecol big:
   [2.0s] 612345 rows written, 306172 a second"), the counts rising, and
   a last line ending ", done" with every row; the rows unharmed.
2. The same load after SELECT widecol_progress(0): no line, and
   widecol_progress() says 0.
3. WIDECOL_PROGRESS=0 in the environment: no line.
4. widecol_check over those rows: its lines count rows and entries read,
   and end ", done".

Every line is checked for its form; figures are not timed (the machine's
pace changes them), only ordered.

Usage: progress_check.py [--extension ./widecol]
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402,F401  (one line, not a traceback, on an error no test caught)
from checks import Checks  # noqa: E402

ROWS = 800000
LOAD = """
.load {ext}
{pre}
CREATE VIRTUAL TABLE big USING widecol(a INTEGER, b TEXT, ROWKEY(a PAD 8), INDEX by_b(b));
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < {rows})
  INSERT INTO big SELECT x, 'b' || (x * 7919 % {rows}) FROM i;
SELECT count(*), count(DISTINCT b) FROM big;
{post}
"""
LINE = re.compile(r"^widecol (\S+): \[(\d+\.\d)s\] (\d+) (.+?), (\d+) a second(, done)?$")


def run(ext, rows, pre="", post="", env=None):
    script = LOAD.format(ext=ext, pre=pre, post=post, rows=rows)
    out = subprocess.run(["sqlite3", ":memory:"], input=script, capture_output=True,
                         text=True, env=env)
    return out


def lines_of(stderr, who):
    got = []
    for line in stderr.splitlines():
        m = LINE.match(line)
        if m and m.group(1) == who:
            got.append((float(m.group(2)), int(m.group(3)), m.group(4), bool(m.group(6))))
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    checks = Checks("progress check")
    expect = checks.expect

    env = dict(os.environ)
    env.pop("WIDECOL_PROGRESS", None)
    # A machine fast enough to load the rows within the first 2 s gets
    # four times as many, so that every check below sees a long load.
    rows = ROWS
    for _ in range(3):
        out = run(args.extension, rows, post="SELECT * FROM widecol_check('big');", env=env)
        got = lines_of(out.stderr, "big")
        if len(got) >= 2 or out.returncode != 0:
            break
        rows *= 4
    # Lines come every 2 s, the last (done) when the load ends.
    rising = all(a[1] < b[1] and (b[3] or a[0] + 1.9 <= b[0])
                 for a, b in zip(got, got[1:]))
    expect("a load of %d rows prints lines after 2 s, every 2 s, rising, then done with "
           "every row" % rows,
           out.returncode == 0 and len(got) >= 2 and got[0][0] >= 2.0 and rising
           and got[-1][3] and got[-1][1] == rows and got[0][2] == "rows written"
           and out.stdout.splitlines()[0] == "%d|%d" % (rows, rows),
           (out.returncode, got, out.stdout[:200], out.stderr[-500:]))
    chk = [l for l in out.stderr.splitlines() if l.startswith("widecol_check(big): [")]
    expect("widecol_check's lines count rows and entries read and end done",
           len(chk) >= 1 and " rows and entries read, " in chk[0] and chk[-1].endswith(", done")
           and out.stdout.splitlines()[-1] == "ok", (chk, out.stdout[-200:]))

    out = run(args.extension, rows, pre="SELECT widecol_progress(0);",
              post="SELECT widecol_progress();", env=env)
    expect("after widecol_progress(0), no line, and widecol_progress() says 0",
           out.returncode == 0 and lines_of(out.stderr, "big") == []
           and out.stdout.split() == ["0", "%d|%d" % (rows, rows), "0"],
           (out.stdout, out.stderr[-500:]))

    env["WIDECOL_PROGRESS"] = "0"
    out = run(args.extension, rows, env=env)
    expect("WIDECOL_PROGRESS=0: no line", out.returncode == 0
           and lines_of(out.stderr, "big") == [], out.stderr[-500:])
    return checks.end()


if __name__ == "__main__":
    sys.exit(main())
