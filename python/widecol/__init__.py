"""widecol for Python: the widecol SQLite extension in sqlite3 connections.

    import sqlite3, widecol
    conn = sqlite3.connect(":memory:")
    widecol.load(conn)

The package carries the libraries built from the checkout (setup.py) and
uses the standard library's own loader, sqlite3.Connection.load_extension.
"""
import os

try:
    from ._version import __version__
except ImportError:  # run from the checkout, not installed
    import re as _re
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "ext", "widecol.h")) as _f:
        __version__ = _re.search(r'#define WIDECOL_VERSION "([^"]+)"', _f.read()).group(1)

__all__ = ["Error", "load", "path", "__version__"]

_HERE = os.path.dirname(os.path.abspath(__file__))


class Error(Exception):
    """widecol cannot be loaded into this connection."""


def path(bigtable=False, hbase=False, cassandra=False):
    """The file of the library: widecol.so, or widecol_bigtable.so (the
    Bigtable store), widecol_hbase.so (the HBase store) or
    widecol_cassandra.so (the Cassandra store), each present when it was
    built."""
    name = ("widecol_bigtable.so" if bigtable else
            "widecol_hbase.so" if hbase else
            "widecol_cassandra.so" if cassandra else "widecol.so")
    for d in (_HERE, os.path.join(_HERE, "..", "..")):
        p = os.path.abspath(os.path.join(d, name))
        if os.path.exists(p):
            return p
    raise Error("%s is not in the widecol package (%s); build it with make and "
                "install the package again" % (name, _HERE))


def load(conn, bigtable=False, hbase=False, cassandra=False):
    """Loads widecol (and with bigtable=True the Bigtable store, with
    hbase=True the HBase store, with cassandra=True the Cassandra store)
    into conn, a sqlite3.Connection, leaving extension loading off again
    after."""
    if not hasattr(conn, "enable_load_extension"):
        raise Error("this Python's sqlite3 module cannot load extensions: it was "
                    "built without them (configure --enable-loadable-sqlite-"
                    "extensions; pyenv's default builds lack it). Use an "
                    "interpreter whose sqlite3 has enable_load_extension, such "
                    "as Debian's /usr/bin/python3")
    conn.enable_load_extension(True)
    try:
        conn.load_extension(path())
        if bigtable:
            conn.load_extension(path(bigtable=True))
        if hbase:
            conn.load_extension(path(hbase=True))
        if cassandra:
            conn.load_extension(path(cassandra=True))
    finally:
        conn.enable_load_extension(False)
