#!/usr/bin/env python3
"""The layers of ext/ hold: no file-level call cycle, calls and includes
point down only (make test runs this; docs/testing.md says how it works).

    tests/layers.py --src ext OBJECT...
    tests/layers.py --selftest

Calls are read from the object files themselves (`nm -P`): a file calls
another when it has an undefined symbol the other defines.  That sees
every call the linker sees, through macros and headers alike, and nothing
a comment or a string says.  From those edges it finds

  - cycles: strongly connected groups of files (Tarjan), each printed with
    the symbol behind every edge in it;
  - calls up: a file calling a file of a higher layer.  The layers, lowest
    first: util, key, store, vtab, tools, then ext/widecol.c (the entry
    point).  A store library (ext/bigtable/, ext/hbase/, ext/cassandra/)
    may call util/, the library whose cell store it shares (STORE_BASES)
    and the core layers STORE_CORE_LAYERS gives it.

Includes are read from the sources: `#include "<folder>/<file>.h"` must
name a folder at or below the file's own; a store library may include
util/ and the store's remote protocol header (store/wc_remote.h); the
public header widecol.h is for everyone.

--selftest builds a small tree with a cycle, a call up, an include up and
a store library calling the core, and checks that each is reported (so
that the check is known to be able to fail).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

LAYERS = ["util", "key", "store", "vtab", "tools", ""]   # "" is ext/ itself
STORE_LIBRARIES = {"bigtable", "hbase", "cassandra"}
# The core's layers a store library may call besides util/: the Cassandra
# store keeps a row as typed CQL columns, made from its row key and back
# with key/'s codec (and key/ calls util/ alone).
STORE_CORE_LAYERS = {"cassandra": {"key"}}
# A store library built on another's cell store (widecol_hbase.so links
# ext/bigtable/'s upper layers over ext/hbase/'s transport): the two
# folders call and include each other as one library's files do, still
# without a file-level cycle.
STORE_BASES = {"hbase": {"bigtable"}, "bigtable": {"hbase"}}
STORE_LIBRARY_HEADERS = {"store/wc_remote.h"}
PUBLIC_HEADERS = {"widecol.h"}


def folder(name):
    """The folder of 'vtab/wc_plan' or 'widecol' ('' for ext/ itself)."""
    return name.split("/")[0] if "/" in name else ""


def rank(name):
    f = folder(name)
    return LAYERS.index(f) if f in LAYERS else None


def read_symbols(objects, root):
    """{file: defined global symbols}, {file: undefined symbols}."""
    defined, undefined = {}, {}
    for obj in objects:
        name = os.path.relpath(obj, root)[:-2]
        out = subprocess.run(["nm", "-P", obj], capture_output=True,
                             text=True, check=True).stdout
        defined[name], undefined[name] = set(), set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            sym, kind = parts[0], parts[1]
            if kind == "U":
                undefined[name].add(sym)
            elif kind.isupper():
                defined[name].add(sym)
    return defined, undefined


def call_edges(defined, undefined):
    """{(caller, callee): a symbol behind the edge}."""
    owner = {}
    for name, syms in defined.items():
        for sym in syms:
            owner[sym] = name
    edges = {}
    for name, syms in undefined.items():
        for sym in sorted(syms):
            callee = owner.get(sym)
            if callee and callee != name:
                edges.setdefault((name, callee), sym)
    return edges


def cycles(nodes, edges):
    """The strongly connected groups of more than one file."""
    succ = collections.defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    index, low, stack, on, groups = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return groups


def call_problems(edges):
    problems = []
    for (a, b), sym in sorted(edges.items()):
        fa, fb = folder(a), folder(b)
        if fa in STORE_LIBRARIES:
            if fb != fa and fb != "util" and fb not in STORE_BASES.get(fa, ()) \
               and fb not in STORE_CORE_LAYERS.get(fa, ()):
                problems.append("%s calls %s (%s): a store library calls "
                                "util/ alone%s" % (a, b, sym, "".join(
                                    ", and %s/" % l for l in
                                    sorted(STORE_CORE_LAYERS.get(fa, ())))))
        elif fb in STORE_LIBRARIES:
            problems.append("%s calls %s (%s): the core never calls a store "
                            "library, it reaches it through SQL" % (a, b, sym))
        elif rank(a) is not None and rank(b) is not None and rank(b) > rank(a):
            problems.append("%s calls %s (%s): a call up, from %s to %s"
                            % (a, b, sym, fa or "ext", fb or "ext"))
    return problems


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def include_problems(src):
    problems = []
    for dirpath, _, files in os.walk(src):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, fn)
            name = os.path.relpath(path, src)
            fa = folder(name)
            with open(path) as f:
                text = f.read()
            for header in INCLUDE.findall(text):
                if header in PUBLIC_HEADERS or "/" not in header:
                    continue        # widecol.h; generated or system headers
                fb = folder(header)
                if fa in STORE_LIBRARIES:
                    if fb != fa and fb != "util" \
                       and fb not in STORE_BASES.get(fa, ()) \
                       and fb not in STORE_CORE_LAYERS.get(fa, ()) \
                       and header not in STORE_LIBRARY_HEADERS:
                        problems.append("%s includes %s: a store library sees "
                                        "util/ and %s alone" % (
                                            name, header,
                                            ", ".join(sorted(STORE_LIBRARY_HEADERS))))
                elif fb in STORE_LIBRARIES:
                    problems.append("%s includes %s: the core never sees a "
                                    "store library's headers" % (name, header))
                elif fb not in LAYERS:
                    problems.append("%s includes %s: no such layer" % (name,
                                                                      header))
                elif fa in LAYERS and LAYERS.index(fb) > LAYERS.index(fa):
                    problems.append("%s includes %s: an include up, from %s "
                                    "to %s" % (name, header, fa or "ext", fb))
    return problems


def check(src, objects, root):
    defined, undefined = read_symbols(objects, root)
    edges = call_edges(defined, undefined)
    failures = []
    for group in cycles(defined.keys(), edges):
        lines = ["a call cycle among %s:" % ", ".join(group)]
        for (a, b), sym in sorted(edges.items()):
            if a in group and b in group:
                lines.append("    %s -> %s (%s)" % (a, b, sym))
        failures.append("\n".join(lines))
    failures += call_problems(edges)
    failures += include_problems(src)
    return failures, len(defined), len(edges)


def selftest():
    """A tree with every kind of fault, each of which must be reported."""
    files = {
        "util/u.c": '#include "vtab/v.h"\nint v(void);\nint u(void){ return v(); }\n',
        "vtab/v.h": "int v(void);\n",
        "vtab/v.c": 'int w(void);\nint v(void){ return w(); }\n',
        "vtab/w.c": 'int v(void);\nint w(void){ return v(); }\n',
        "key/k.c": "int k(void){ return 1; }\n",
        "bigtable/b.c": '#include "key/k.h"\nint k(void);\nint b(void){ return k(); }\n',
        "key/k.h": "int k(void);\n",
    }
    expected = [
        "a call cycle among vtab/v, vtab/w",
        "util/u calls vtab/v (v): a call up",
        "util/u.c includes vtab/v.h: an include up",
        "bigtable/b calls key/k (k): a store library calls util/ alone",
        "bigtable/b.c includes key/k.h: a store library sees",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "ext"), os.path.join(tmp, "obj")
        objects = []
        for name, text in files.items():
            path = os.path.join(src, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        for name in files:
            if name.endswith(".c"):
                out = os.path.join(obj, name[:-2] + ".o")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                subprocess.run(["cc", "-c", "-I" + src, "-o", out,
                                os.path.join(src, name)], check=True)
                objects.append(out)
        failures, _, _ = check(src, objects, obj)
    report = "\n".join(failures)
    missing = [e for e in expected if e not in report]
    if missing or len(failures) != len(expected):
        print("layers selftest: FAILED; expected %d reports:\n  %s\ngot:\n%s"
              % (len(expected), "\n  ".join(expected), report))
        return 1
    print("layers selftest: the check reports a cycle, a call up, an include "
          "up and a store library reaching past util/ (%d of %d)"
          % (len(failures), len(expected)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default="ext")
    ap.add_argument("--root", default="build/pic",
                    help="the object tree; object names are relative to it")
    ap.add_argument("--selftest", action="store_true")
    ap.add_argument("objects", nargs="*")
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    failures, nfile, nedge = check(args.src, args.objects, args.root)
    if failures:
        print("layers: FAILED\n" + "\n".join(failures))
        return 1
    print("layers: %d files, %d file-to-file calls: no cycle, every call and "
          "include points down" % (nfile, nedge))
    return 0


if __name__ == "__main__":
    sys.exit(main())
