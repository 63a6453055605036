#!/usr/bin/env python3
"""The layers of ext/ hold: no file-level call cycle, calls and includes
point down only, no symbol is defined twice (make test runs this;
docs/testing.md says how it works).

    tests/layers.py --src ext OBJECT...
    tests/layers.py --selftest

Calls are read from the object files themselves (`nm -P`): a file calls
another when it has an undefined symbol the other defines.  That sees
every call the linker sees, through macros and headers alike, and nothing
a comment or a string says.  From those edges it finds

  - cycles: strongly connected groups of files (Tarjan), each printed with
    the symbol behind every edge in it;
  - calls up: a file calling a file of a higher layer.  The core's layers,
    lowest first: util, key, store, vtab, tools, then ext/widecol.c (the
    entry point).  The store wing (ext/stores/) is apart: its shared
    pieces (stores/common, stores/contract, stores/cells) and the stores
    (stores/bigtable, stores/hbase, stores/cassandra) may call what
    WING_CALLS gives each, the core never calls into the wing, and no
    store calls or includes another store;
  - a global symbol defined by two files (each store's library links its
    own transport, named its own way: one definition of each name).

Includes are read from the sources: `#include "<folder>/<file>.h"` must
name a folder the file may call (the core: its own layer or below; the
wing: as for calls, and the core's side of the store contract,
store/wc_contract.h); the public header widecol.h is for everyone.

--selftest builds a small tree with each fault, and checks that each is
reported (so that the check is known to be able to fail).
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

LAYERS = ["util", "key", "store", "vtab", "tools", ""]   # "" is ext/ itself
# What each folder of the store wing may call and include besides itself.
# The Cassandra store keeps a row as typed CQL columns, made from its row
# key and back with key/'s codec (and key/ calls util/ alone).
WING_CALLS = {
    "stores/common": {"util"},
    "stores/contract": {"util"},
    "stores/cells": {"util", "stores/common", "stores/contract"},
    "stores/bigtable": {"util", "stores/common", "stores/contract",
                        "stores/cells"},
    "stores/hbase": {"util", "stores/common", "stores/contract",
                     "stores/cells"},
    "stores/cassandra": {"util", "stores/common", "stores/contract", "key"},
}
# The wing's shared pieces; every other folder of it is a store.
WING_SHARED = {"stores/common", "stores/contract", "stores/cells"}
WING_HEADERS = {"store/wc_contract.h"}
PUBLIC_HEADERS = {"widecol.h"}


def folder(name):
    """The folder of 'vtab/wc_plan', 'stores/cells/cs_read' or 'widecol'
    ('' for ext/ itself)."""
    parts = name.split("/")
    if parts[0] == "stores" and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0] if len(parts) > 1 else ""


def in_wing(f):
    return f == "stores" or f.startswith("stores/")


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


def wing_problem(fa, fb):
    """Why folder fa may not call or include folder fb, or None."""
    if in_wing(fa):
        if fb == fa or fb in WING_CALLS.get(fa, ()):
            return None
        if in_wing(fb) and fb not in WING_SHARED and fa not in WING_SHARED:
            return "a store never reaches another store"
        return "%s may reach %s alone" % (
            fa, ", ".join(sorted(WING_CALLS.get(fa, ())) or ["itself"]))
    if in_wing(fb):
        return "the core never reaches the store wing, it meets it in SQL"
    return None


def call_problems(edges):
    problems = []
    for (a, b), sym in sorted(edges.items()):
        fa, fb = folder(a), folder(b)
        why = wing_problem(fa, fb)
        if why:
            problems.append("%s calls %s (%s): %s" % (a, b, sym, why))
        elif rank(a) is not None and rank(b) is not None and rank(b) > rank(a):
            problems.append("%s calls %s (%s): a call up, from %s to %s"
                            % (a, b, sym, fa or "ext", fb or "ext"))
    return problems


def twin_problems(defined):
    """Symbols two files define."""
    owners = collections.defaultdict(list)
    for name, syms in defined.items():
        for sym in syms:
            owners[sym].append(name)
    return ["%s is defined twice, by %s" % (sym, " and ".join(sorted(names)))
            for sym, names in sorted(owners.items()) if len(names) > 1]


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
                if in_wing(fa) and header in WING_HEADERS:
                    continue
                why = wing_problem(fa, fb)
                if why:
                    problems.append("%s includes %s: %s" % (name, header,
                                                            why))
                elif fb not in LAYERS and not in_wing(fb):
                    problems.append("%s includes %s: no such layer" % (name,
                                                                      header))
                elif fa in LAYERS and fb in LAYERS \
                        and LAYERS.index(fb) > LAYERS.index(fa):
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
    failures += twin_problems(defined)
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
        "key/k.h": "int k(void);\n",
        "stores/bigtable/b.c": '#include "key/k.h"\n'
                               '#include "stores/hbase/h.h"\n'
                               'int k(void);\nint h(void);\n'
                               'int b(void){ return k() + h(); }\n',
        "stores/hbase/h.h": "int h(void);\n",
        "stores/hbase/h.c": "int h(void){ return 2; }\n"
                            "int twice(void){ return 3; }\n",
        "stores/cells/c.c": "int c(void){ return 4; }\n"
                            "int twice(void){ return 4; }\n",
        "tools/t.c": 'int c(void);\nint t(void){ return c(); }\n',
    }
    expected = [
        "a call cycle among vtab/v, vtab/w",
        "util/u calls vtab/v (v): a call up",
        "util/u.c includes vtab/v.h: an include up",
        "stores/bigtable/b calls key/k (k): stores/bigtable may reach",
        "stores/bigtable/b.c includes key/k.h: stores/bigtable may reach",
        "stores/bigtable/b calls stores/hbase/h (h): a store never reaches "
        "another store",
        "stores/bigtable/b.c includes stores/hbase/h.h: a store never "
        "reaches another store",
        "tools/t calls stores/cells/c (c): the core never reaches the "
        "store wing",
        "twice is defined twice, by stores/cells/c and stores/hbase/h",
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
          "up, a store reaching past what it may, a store reaching another, "
          "the core reaching the wing and a symbol defined twice (%d of %d)"
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
          "include points down, no symbol defined twice" % (nfile, nedge))
    return 0


if __name__ == "__main__":
    sys.exit(main())
