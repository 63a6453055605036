"""wctest: what the Python harnesses and benchmarks share.

Every script takes the libraries to test as paths without the suffix
(--extension ./widecol, --bigtable ./widecol_bigtable), as SQLite's
load_extension does, so that the sanitizer builds (build/asan/) are tested
the same way.  A script finds this module with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "lib"))   # tests/<kind>/x.py
    import wctest

Needs a Python whose sqlite3 module can load extensions (Debian's
/usr/bin/python3; pyenv's default builds cannot).

Importing this module makes an error no test caught end the script with
one line a reader can act on (which script failed, on what, where), the
whole traceback kept in build/tracebacks/<script>.txt, never a traceback
in the run's output (tests/run.sh counts one as a failure).
"""
import os
import sqlite3
import sys


def _uncaught(kind, value, tb):
    # Imported here: a script beside bench/token.py would find that for
    # the standard library's token module, which traceback needs.
    try:
        import traceback
    except ImportError:
        traceback = None
    if issubclass(kind, KeyboardInterrupt) or traceback is None:
        sys.__excepthook__(kind, value, tb)
        return
    script = os.path.basename(sys.argv[0] or "python")
    frames = traceback.extract_tb(tb)
    where = ""
    if frames:
        last = frames[-1]
        where = " (at %s:%d, in %s)" % (os.path.relpath(last.filename), last.lineno,
                                        last.name)
    kept = os.path.join("build", "tracebacks", os.path.splitext(script)[0] + ".txt")
    try:
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        with open(kept, "w") as f:
            f.write("".join(traceback.format_exception(kind, value, tb)))
        kept = "; the traceback is in " + kept
    except OSError:
        kept = ""
    text = str(value).strip().splitlines()
    print("%s: FAILED: %s%s%s%s" % (script, kind.__name__, ": " + text[0] if text else "",
                                    where, kept), file=sys.stderr)
    sys.stderr.flush()


sys.excepthook = _uncaught


def connect(extension, database=":memory:", bigtable=None, **options):
    """A sqlite3 connection to database with widecol loaded from extension
    and, where bigtable is given, the Bigtable store from that path.
    options go to sqlite3.connect as they are (isolation_level=None for
    autocommit, as the sqlite3 shell; timeout; cached_statements)."""
    db = sqlite3.connect(database, **options)
    db.enable_load_extension(True)
    db.load_extension(extension)
    if bigtable:
        db.load_extension(bigtable)
    return db


def free_port():
    """A loopback port nothing listens on now (the tests' servers, and
    addresses that must refuse a connection)."""
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def split_args(text):
    """The comma-separated parts of text outside parentheses and quotes
    (a widecol design's arguments, a fix's, a ROWKEY's fields)."""
    out, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    out.append(cur.strip())
    return out
