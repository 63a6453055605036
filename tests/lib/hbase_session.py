"""HBase's Java client in one JVM for a test that asks it many things:
`sh tests/servers/hbase.sh client session` reads the harness's commands a
line at a time and ends each answer with a line "."; a command that failed
answers "! " and why.  The HBase store's tests use it
(tests/stores/hbase/regions.py, hbase/ddl.py), and connect_from_args()
to open widecol as each of them is run."""
import argparse
import os
import subprocess

import wctest

SERVERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "servers")


class Session:
    """HBase's Java client, one JVM for every question (hbase.sh client session)."""

    def __init__(self):
        self.proc = subprocess.Popen(
            ["sh", os.path.join(SERVERS, "hbase.sh"), "client", "session"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line, check=True):
        """The answer's lines; with check, a failed command raises."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out = []
        while True:
            got = self.proc.stdout.readline()
            if got == "":
                raise RuntimeError("hbase client session ended at: " + line)
            got = got.rstrip("\n")
            if got == ".":
                if check and out and out[0].startswith("! "):
                    raise RuntimeError("hbase client: %s: %s" % (line, out[0][2:]))
                return out
            out.append(got)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def connect_from_args():
    """A connection with widecol and the HBase store loaded (autocommit),
    from the arguments every HBase store test takes: --extension ./widecol
    --hbase ./widecol_hbase."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--extension", required=True)
    ap.add_argument("--hbase", required=True)
    args = ap.parse_args()
    return wctest.connect(args.extension, bigtable=args.hbase, isolation_level=None)
