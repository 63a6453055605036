"""Starts tests/servers/NAME.sh as any program starting it would: its
stdout and stderr read through pipes (Python's subprocess.run with
capture_output).  The binding scripts must return once the server is
ready whoever reads their output, so a start that printed its variables
and still holds the pipes open is a failure, said as such.  Prints what
the script printed (stdout to stdout, stderr to stderr); exits as it did.

    python3 tests/stores/server_start.py NAME [ARGS...]

The wait is the script's own start limit (WIDECOL_<NAME>_START_SECONDS,
600) and two minutes more."""
import os
import subprocess
import sys


def main():
    name, args = sys.argv[1], sys.argv[2:]
    limit = int(os.environ.get("WIDECOL_%s_START_SECONDS" % name.upper(), "600"))
    script = "tests/servers/%s.sh" % name
    try:
        done = subprocess.run(["sh", script, "start"] + args, capture_output=True,
                              text=True, timeout=limit + 120)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        if "WIDECOL_" in out:
            print("%s start printed its variables but did not return within %d s: "
                  "a child it left running holds the caller's stdout or stderr open "
                  "(sh %s stop stops it)" % (script, limit + 120, script), file=sys.stderr)
        else:
            print("%s start did not return within %d s" % (script, limit + 120),
                  file=sys.stderr)
        return 1
    sys.stderr.write(done.stderr)
    sys.stdout.write(done.stdout)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
