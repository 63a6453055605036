#!/bin/sh
# make install and the ways a user takes widecol from there, tried as a new
# user would, in temporary directories (removed after):
#   1. make install PREFIX=<tmp>/prefix, then: the sqlite3 shell loads the
#      library by its installed path; an installed sql/ example runs as it
#      is (its .load names the installed library); examples/embed.c builds
#      against the installed header and static library through pkg-config
#      and runs; make uninstall leaves no file behind;
#   2. make install DESTDIR=<tmp>/stage PREFIX=/usr puts every file under
#      the stage and nothing elsewhere;
#   3. the Python package: pip install --no-build-isolation --target into
#      a directory (the README's venv commands are run by docs_check.py),
#      its wheel's platform tag, then widecol.load(), widecol.path() and
#      widecol.__version__ under Debian's python3, and widecol.Error for a
#      connection that cannot load extensions.
# Run from the repository root after `make`.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "install check: $1: ok"; }
bad() { echo "install check: $1: FAILED"; fail=1; }
version=$(sed -n 's/^#define WIDECOL_VERSION "\(.*\)"/\1/p' ext/widecol.h)
prefix=$tmp/prefix

# 1. A real prefix.
if make -s install PREFIX="$prefix" >"$tmp/log" 2>&1; then ok "make install PREFIX"; else
  cat "$tmp/log"; bad "make install PREFIX"; fi
got=$(sqlite3 :memory: ".load $prefix/lib/widecol" "SELECT widecol_version()" 2>&1)
[ "$got" = "$version" ] && ok "the shell loads $prefix/lib/widecol ($got)" \
  || bad "the shell loads $prefix/lib/widecol: $got"
out=$(cd "$tmp" && sqlite3 -bail :memory: < "$prefix/share/doc/widecol/sql/payments.sql" 2>&1)
if [ $? -eq 0 ] && ! printf '%s' "$out" | grep -q 'Error'; then
  ok "an installed example (sql/payments.sql) runs from another directory"
else printf '%s\n' "$out" | tail -3; bad "an installed example runs"; fi
# As examples/embed.c and docs/reference.md say (no --static), and with it.
for static in "" --static; do
  flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs $static widecol)
  if cc -o "$tmp/embed" examples/embed.c $flags >"$tmp/log" 2>&1 \
     && "$tmp/embed" > "$tmp/embed.out" \
     && grep -q "widecol_version() = $version" "$tmp/embed.out" \
     && grep -q "000001_2017-01-02 10:30_000005002 | 20.0" "$tmp/embed.out"; then
    ok "examples/embed.c built with pkg-config --cflags --libs${static:+ $static} ($flags) and run"
  else cat "$tmp/log" "$tmp/embed.out" 2>/dev/null; bad "examples/embed.c with pkg-config $static"; fi
done
make -s uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$prefix" -type f | head -5)
[ -z "$left" ] && ok "make uninstall removes every file" || bad "make uninstall left: $left"

# 2. A staged install.
make -s install DESTDIR="$tmp/stage" PREFIX=/usr >/dev/null 2>&1
n=$(find "$tmp/stage/usr" -type f | wc -l)
if [ -f "$tmp/stage/usr/lib/widecol.so" ] && [ -f "$tmp/stage/usr/include/widecol.h" ] \
   && [ -f "$tmp/stage/usr/lib/libwidecol.a" ] \
   && grep -q '^prefix=/usr$' "$tmp/stage/usr/lib/pkgconfig/widecol.pc" \
   && [ "$(find "$tmp/stage" -type f | wc -l)" = "$n" ]; then
  ok "make install DESTDIR: $n files under the stage, for /usr"
else bad "make install DESTDIR"; fi
# The installed docs' links resolve in the installed tree.
if out=$(/usr/bin/python3 tests/packaging/docs_check.py --installed "$tmp/stage/usr/share/doc/widecol" 2>&1); then
  ok "$(printf '%s' "$out" | tail -1 | sed 's/^docs check: //')"
else printf '%s\n' "$out"; bad "the installed docs' links"; fi
# The installed Bigtable demo runs where it was installed (its SQL beside
# it, loading the installed libraries): checked by its first lines.
if [ -f widecol_bigtable.so ] && ! grep -q "^\.load /usr/lib/widecol_bigtable$" \
     "$tmp/stage/usr/share/doc/widecol/sql/bigtable/payments.sql"; then
  bad "the installed sql/bigtable/payments.sql loads /usr/lib/widecol_bigtable"
fi
if [ -f widecol_hbase.so ] && ! grep -q "^\.load /usr/lib/widecol_hbase$" \
     "$tmp/stage/usr/share/doc/widecol/sql/hbase/payments.sql"; then
  bad "the installed sql/hbase/payments.sql loads /usr/lib/widecol_hbase"
fi
# Every store's demo is installed, with what it runs: the HBase and
# Cassandra demos find the servers' scripts beside sql/ (servers/), and
# the Cassandra demo loads the installed libraries.
doc=$tmp/stage/usr/share/doc/widecol
missing=
for f in sql/bigtable/demo.sh sql/hbase/demo.sh sql/cassandra/demo.sh \
         sql/cassandra/on_cassandra.py servers/hbase.sh servers/cassandra.sh \
         servers/java.sh servers/hbase/pom.xml servers/cassandra/pom.xml \
         servers/hbase/src/main/java/WidecolHBase.java; do
  [ -f "$doc/$f" ] || missing="$missing $f"
done
loads=$(/usr/bin/python3 "$doc/sql/cassandra/on_cassandra.py" "$doc/sql/cassandra_likes.sql" |
        grep '^\.load' | tr '\n' ' ')
if [ -z "$missing" ] && [ "$loads" = ".load /usr/lib/widecol .load /usr/lib/widecol_cassandra " ] &&
   sh -n "$doc/sql/hbase/demo.sh" && sh -n "$doc/sql/cassandra/demo.sh" &&
   ( cd "$tmp" && sh "$doc/servers/hbase.sh" check >/dev/null 2>&1 ||
     sh "$doc/servers/hbase.sh" check 2>&1 | grep -q '^no ' ); then
  ok "every store's demo installed with the servers' scripts it runs"
else
  bad "the stores' demos installed: missing:${missing:- none}; the Cassandra demo loads: $loads"
fi

# 3. Python.
if /usr/bin/python3 -m pip install -q --no-build-isolation --no-deps --target "$tmp/py" \
     ./python >"$tmp/log" 2>&1; then ok "pip install --no-build-isolation ./python"; else
  cat "$tmp/log"; bad "pip install ./python"; fi
# The wheel holds this machine's libraries: tagged for its platform.
want="widecol-$version-py3-none-linux_$(uname -m).whl"
if /usr/bin/python3 -m pip wheel -q --no-build-isolation --no-deps -w "$tmp/wheel" \
     ./python >"$tmp/log" 2>&1 && [ -f "$tmp/wheel/$want" ]; then
  ok "pip wheel ./python makes $want"
else cat "$tmp/log"; ls "$tmp/wheel" 2>/dev/null; bad "pip wheel ./python makes $want"; fi
got=$(cd "$tmp" && PYTHONPATH="$tmp/py" /usr/bin/python3 -c '
import sqlite3, widecol
c = sqlite3.connect(":memory:")
widecol.load(c)
c.execute("CREATE VIRTUAL TABLE t USING widecol(k TEXT, v INTEGER, ROWKEY(k))")
c.execute("INSERT INTO t VALUES (?, ?)", ("a", 1))
print(c.execute("SELECT widecol_version()").fetchone()[0], widecol.__version__,
      widecol.path().startswith(widecol.__path__[0]), c.execute("SELECT v FROM t").fetchone()[0])
class NoExtensions: pass
try:
    widecol.load(NoExtensions())
except widecol.Error as e:
    print("Error:", str(e).split(":")[0])
' 2>&1)
[ "$got" = "$version $version True 1
Error: this Python's sqlite3 module cannot load extensions" ] \
  && ok "the package loads widecol $version from itself; a sqlite3 without extensions is a widecol.Error" \
  || bad "the Python package: $got"
# Every store library built ships in the package and loads by name.
for store in bigtable hbase cassandra; do
  [ -f "widecol_$store.so" ] || continue
  got=$(cd "$tmp" && PYTHONPATH="$tmp/py" /usr/bin/python3 -c '
import sqlite3, sys, widecol
c = sqlite3.connect(":memory:")
widecol.load(c, **{sys.argv[1]: True})
print(c.execute("SELECT count(*) FROM pragma_module_list WHERE name = ?",
                ("widecol_" + sys.argv[1],)).fetchone()[0],
      widecol.path(**{sys.argv[1]: True}).startswith(widecol.__path__[0]))
' "$store" 2>&1)
  [ "$got" = "1 True" ] && ok "the package loads the $store store: widecol.load(c, $store=True)"     || bad "widecol.load(c, $store=True): $got"
done
rm -rf python/build python/widecol.egg-info
exit $fail
