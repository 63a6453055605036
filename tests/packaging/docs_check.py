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
5. docs/tutorial.md runs as a user would run it (check_tutorial()), and
   every figure its prose quotes is one its blocks show.
6. A paragraph after a line `<!-- figures from FILE -->` quotes only
   figures (numbers of two digits or more) that FILE, a program's output
   that make test writes before this check, holds.
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
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wctest  # noqa: E402

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
        if f == TUTORIAL:
            continue        # check_tutorial() runs it as a user would
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


TUTORIAL = "docs/tutorial.md"


def check_shell():
    bad, n = [], 0
    for f in FILES:
        if f == TUTORIAL:
            continue        # check_tutorial() runs it as a user would
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
            before = set(os.listdir("."))
            try:
                env = dict(os.environ, HOME=home)
                out = subprocess.run(["sh", "-e", "-c", "\n".join(lines)], env=env,
                                     capture_output=True, text=True)
            finally:
                shutil.rmtree(home, ignore_errors=True)
                # What the block made beside the tree's own files (the
                # README's shop.db and payments.html) goes.
                for made in set(os.listdir(".")) - before:
                    if os.path.isfile(made):
                        os.remove(made)
            if out.returncode != 0:
                bad.append("%s: a runnable sh block failed (exit %d):\n%s\n%s" % (
                    f, out.returncode, block, (out.stderr or out.stdout)[-800:]))
    return n, bad


def run_session(blocks, cwd, env):
    """The sql blocks in one sqlite3 shell on build/tutorial.db, -bail:
    each block's output (standard output and error), in order."""
    marker = "--docs-check-block--"
    script = "".join("%s\n.print %s\n" % (b, marker) for b in blocks)
    out = subprocess.run(["sqlite3", "-bail", "build/tutorial.db"], input=script, cwd=cwd,
                         env=env, capture_output=True, text=True)
    parts = (out.stdout + out.stderr).split(marker + "\n")
    return [p for p in parts[:len(blocks)]] + [""] * (len(blocks) - len(parts))


def check_tutorial(ext_dir):
    """docs/tutorial.md as a user runs it: in a new directory that holds
    the built libraries and a build/ directory, the sql blocks pasted into
    `sqlite3 build/tutorial.db`, one shell session until a ```sh runnable
    block (whose last line, `sqlite3 build/tutorial.db`, starts the next
    session; its exports hold for the rest).  A block followed by
    ```output must print exactly that.  Every figure of three digits or
    more in the prose (its thousands separators dropped) must appear in one
    of the blocks."""
    text = open(TUTORIAL, encoding="utf-8").read()
    blocks = re.findall(r"```([a-z ]*)\n(.*?)```", text, re.S)
    bad, n_out = [], 0
    home = tempfile.mkdtemp(prefix="tutorial_")
    env = dict(os.environ)
    os.mkdir(os.path.join(home, "build"))
    for lib in ("widecol.so", "widecol_bigtable.so"):
        if os.path.exists(os.path.join(ext_dir, lib)):
            os.symlink(os.path.join(ext_dir, lib), os.path.join(home, lib))
    have_bt = (os.path.exists(os.path.join(home, "widecol_bigtable.so"))
               and shutil.which("cbt") is not None
               and os.path.exists("/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator"))
    try:
        i = 0
        while i < len(blocks):
            kind, body = blocks[i]
            if kind == "sql runnable":
                session = []
                while i < len(blocks) and blocks[i][0] in ("sql runnable", "output"):
                    if blocks[i][0] == "sql runnable":
                        session.append([blocks[i][1], None])
                    else:
                        session[-1][1] = blocks[i][1]
                    i += 1
                outs = run_session([b for b, _ in session], home, env)
                for (b, want), got in zip(session, outs):
                    if want is not None:
                        n_out += 1
                        if got.rstrip("\n") != want.rstrip("\n"):
                            bad.append("%s: the block\n%s\nprinted\n%s\nwhere the text shows\n%s"
                                       % (TUTORIAL, b.rstrip(), got.rstrip(), want.rstrip()))
                    elif re.search(r"^(Error|Parse error|Runtime error)", got, re.M):
                        bad.append("%s: the block\n%s\nfailed: %s" % (TUTORIAL, b.rstrip(), got))
                continue
            if kind == "sh runnable":
                if not have_bt:
                    print("docs check: %s: the blocks from step 9 on are SKIPPED: they need "
                          "widecol_bigtable.so, cbt and the Bigtable emulator" % TUTORIAL)
                    break
                lines = [l for l in body.splitlines()
                         if l.strip() != "sqlite3 build/tutorial.db"]
                # The block's exports hold for the rest: its environment
                # comes back in a file (a pipe would stay open in what the
                # block starts in the background).
                dump = os.path.join(home, ".docs_check_env")
                proc = subprocess.run(["sh", "-e", "-c", "\n".join(lines)
                                       + '\nenv -0 > "$DOCS_CHECK_ENV"'], cwd=home,
                                      env=dict(env, DOCS_CHECK_ENV=dump),
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, text=True)
                got = proc.stdout
                dumped = open(dump, "rb").read() if os.path.exists(dump) else b""
                if proc.returncode != 0:
                    bad.append("%s: the sh block\n%s\nfailed: %s" % (TUTORIAL, body, got))
                for item in dumped.split(b"\0"):
                    k, _, v = item.decode("utf-8", "replace").partition("=")
                    if k and k not in ("PWD", "SHLVL", "_", "OLDPWD", "DOCS_CHECK_ENV"):
                        env[k] = v
                i += 1
                if i < len(blocks) and blocks[i][0] == "output":
                    n_out += 1
                    if got.rstrip("\n") != blocks[i][1].rstrip("\n"):
                        bad.append("%s: the sh block\n%s\nprinted\n%s\nwhere the text shows\n%s"
                                   % (TUTORIAL, body.rstrip(), got.rstrip(), blocks[i][1].rstrip()))
                    i += 1
                continue
            i += 1
    finally:
        pid = os.path.join(home, "build", "emulator.pid")
        if os.path.exists(pid):
            subprocess.run(["sh", "-c", 'kill "$(cat %s)" 2>/dev/null' % pid])
        shutil.rmtree(home, ignore_errors=True)
    shown = " ".join(b for _, b in blocks)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    prose = re.sub(r"\]\([^)]*\)", "]", prose)
    for num in re.findall(r"(?<![\w.-])\d[\d,]*\d(?![\w-])", prose):
        plain = num.replace(",", "")
        if len(plain) >= 3 and plain not in shown:
            bad.append("%s: the prose quotes %s, which no block shows" % (TUTORIAL, num))
    return n_out, bad


def check_figures():
    bad, n = [], 0
    for f in FILES:
        text = open(f, encoding="utf-8").read()
        for src, para in re.findall(r"<!-- figures from (\S+) -->\n(.*?)(?:\n\n|$)", text,
                                    re.S):
            n += 1
            if not os.path.exists(src):
                bad.append("%s: %s, whose figures a paragraph quotes, is missing (make "
                           "test writes it)" % (f, src))
                continue
            shown = open(src, encoding="utf-8").read()
            plain = shown.replace(",", "")
            for num in re.findall(r"(?<![\w.-])\d[\d,]*\d(?![\w-])", para):
                if not re.search(r"(?<![\d,.])%s(?![\d,.]\d)" % re.escape(num), shown) \
                   and not re.search(r"(?<![\d.])%s(?![\d.])" % num.replace(",", ""), plain):
                    bad.append("%s: quotes %s, which %s does not hold" % (f, num, src))
    return n, bad


def check_surface(ext):
    db = wctest.connect(ext)
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
    # Every store: its STORAGE word, the library to load, its page; and
    # reference.md's Loading says how to load each.
    loading = reference.split("## Loading", 1)[-1].split("\n## ", 1)[0]
    for word, lib, page in (("BIGTABLE", "widecol_bigtable", "bigtable.md"),
                            ("HBASE", "widecol_hbase", "hbase.md"),
                            ("CASSANDRA", "widecol_cassandra", "cassandra.md")):
        if "STORAGE " + word not in help_text or "(load %s)" % lib not in help_text \
           or "docs/" + page not in help_text:
            bad.append("widecol_help() does not show STORAGE %s, (load %s) and docs/%s"
                       % (word, lib, page))
        if ".load ./%s" % lib not in loading:
            bad.append("docs/reference.md's Loading does not say how to load %s" % lib)
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
    n_tut, bad5 = check_tutorial(os.path.dirname(os.path.abspath(args.extension)))
    n_fig, bad6 = check_figures()
    bad = bad1 + bad2 + bad3 + bad4 + bad5 + bad6
    for b in bad:
        print("docs check: " + b)
    print("docs check: %d relative links in %d files, %d runnable SQL blocks, %d runnable "
          "shell blocks, the tutorial run with %d outputs as shown, %d paragraphs of "
          "figures from a run, %d registered names in widecol_help() and "
          "docs/reference.md; %d problems"
          % (n_links, len(FILES), n_sql, n_sh, n_tut, n_fig, n_names, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
