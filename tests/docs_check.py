#!/usr/bin/env python3
"""The docs hold: links resolve, runnable SQL runs, the surface is listed.

1. Every relative link in README.md, CHANGELOG.md, docs/*.md and
   python/README.md names a file of the tree, and its #anchor a heading of
   that file (GitHub's anchors: lower case, punctuation but - and _ dropped,
   spaces as -).
2. In each of those files, the SQL blocks fenced as ```sql runnable run in
   order, in one sqlite3 shell started in the repository root with
   widecol loaded and .bail on: no error.
3. Every function and module widecol registers named rk_* or widecol*
   appears in widecol_help() and in docs/reference.md.
4. The shell commands fenced as ```sh runnable run as written, each block
   by sh -e in the repository root, with HOME a new empty directory (so
   ~/ names a scratch place).  An `apt-get install -y` line is not run (it
   needs root and a network; .ci/run installs the packages): that each
   package it names is installed is checked instead.

With --installed DOCDIR, only the links of the docs `make install` put in
DOCDIR are checked (1., for every .md file there).

Usage: docs_check.py [--extension ./widecol] [--installed DOCDIR]
"""
import argparse
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

FILES = ["README.md", "CHANGELOG.md", "python/README.md"] + sorted(glob.glob("docs/*.md"))


def anchors(path):
    out = set()
    in_code = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            in_code = not in_code
        m = re.match(r"#+\s+(.*)", line)
        if m and not in_code:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def check_links(files=None):
    bad, n = [], 0
    for f in files or FILES:
        text = open(f, encoding="utf-8").read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            n += 1
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(full):
                bad.append("%s: %s (no file %s)" % (f, target, full))
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                bad.append("%s: %s (no heading #%s in %s)" % (f, target, anchor, full))
    return n, bad


def check_runnable(ext):
    bad, n = [], 0
    for f in FILES:
        blocks = re.findall(r"```sql runnable\n(.*?)```", open(f, encoding="utf-8").read(), re.S)
        if not blocks:
            continue
        n += len(blocks)
        script = ".bail on\n.load %s\n%s" % (ext, "\n".join(blocks))
        out = subprocess.run(["sqlite3", ":memory:"], input=script, capture_output=True,
                             text=True)
        if out.returncode != 0 or re.search(r"^(Error|Parse error|Runtime error)", out.stderr
                                            + out.stdout, re.M):
            bad.append("%s: its runnable SQL failed:\n%s" % (f, (out.stderr or out.stdout)[-800:]))
    return n, bad


def check_shell():
    bad, n = [], 0
    for f in FILES:
        for block in re.findall(r"```sh runnable\n(.*?)```", open(f, encoding="utf-8").read(),
                                re.S):
            n += 1
            lines = []
            for line in block.splitlines():
                m = re.match(r"apt-get install -y (.*)", line)
                if m:
                    for pkg in m.group(1).split():
                        got = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                                             capture_output=True, text=True)
                        if "install ok installed" not in got.stdout:
                            bad.append("%s: its apt-get line names %s, which is not "
                                       "installed here" % (f, pkg))
                    continue
                lines.append(line)
            home = tempfile.mkdtemp(prefix="docs_home_")
            try:
                env = dict(os.environ, HOME=home)
                out = subprocess.run(["sh", "-e", "-c", "\n".join(lines)], env=env,
                                     capture_output=True, text=True)
            finally:
                shutil.rmtree(home, ignore_errors=True)
            if out.returncode != 0:
                bad.append("%s: a runnable sh block failed (exit %d):\n%s\n%s" % (
                    f, out.returncode, block, (out.stderr or out.stdout)[-800:]))
    return n, bad


def check_surface(ext):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    names = {r[0] for r in db.execute(
        "SELECT name FROM pragma_function_list WHERE name GLOB 'rk_*' OR name GLOB 'widecol*' "
        "UNION SELECT name FROM pragma_module_list WHERE name GLOB 'widecol*'")}
    help_text = db.execute("SELECT widecol_help()").fetchone()[0]
    reference = open("docs/reference.md", encoding="utf-8").read()
    bad = []
    for name in sorted(names):
        if name == "widecol_table":
            continue        # internal: how the tools find a table
        if name == "widecol":
            ok_help = "USING widecol(" in help_text
        else:
            ok_help = re.search(r"\b%s\(" % re.escape(name), help_text) is not None
        if not ok_help:
            bad.append("widecol_help() does not name %s" % name)
        if not re.search(r"\b%s\b" % re.escape(name), reference):
            bad.append("docs/reference.md does not name %s" % name)
    if len(help_text.splitlines()) > 30:
        bad.append("widecol_help() takes %d lines, more than a screen" % len(help_text.splitlines()))
    return len(names), bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--installed", metavar="DOCDIR",
                    help="only check the links of the docs installed in DOCDIR")
    args = ap.parse_args()
    if args.installed:
        files = sorted(glob.glob(os.path.join(args.installed, "**", "*.md"), recursive=True))
        n_links, bad = check_links(files)
        for b in bad:
            print("docs check: installed: " + b)
        print("docs check: installed in %s: %d relative links in %d files; %d problems"
              % (args.installed, n_links, len(files), len(bad)))
        return 1 if bad or not files else 0
    n_links, bad1 = check_links()
    n_sql, bad2 = check_runnable(args.extension)
    n_names, bad3 = check_surface(args.extension)
    n_sh, bad4 = check_shell()
    bad = bad1 + bad2 + bad3 + bad4
    for b in bad:
        print("docs check: " + b)
    print("docs check: %d relative links in %d files, %d runnable SQL blocks, %d runnable "
          "shell blocks, %d registered names in widecol_help() and docs/reference.md; "
          "%d problems" % (n_links, len(FILES), n_sql, n_sh, n_names, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
