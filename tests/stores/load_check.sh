#!/bin/sh
# widecol loads the two ways users load it, typed as they would type them:
# `.load ./widecol` in the sqlite3 shell and conn.load_extension("./widecol")
# in Debian's python3, and twice on one connection.  Run from the
# repository root after `make`.
status=0

# expect WHAT WANT GOT: reports whether GOT is WANT.
expect() {
  if [ "$3" = "$2" ]; then
    echo "load check: $1: ok"
  else
    echo "load check FAILED: $1 printed: $3"
    status=1
  fi
}

expect "sqlite3 shell .load ./widecol" "000123" \
  "$(sqlite3 :memory: '.load ./widecol' 'SELECT rk_pad(123, 6);' 2>&1)"

expect "python3 conn.load_extension(\"./widecol\")" "999876" \
  "$(/usr/bin/python3 - 2>&1 <<'PY'
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("./widecol")
print(conn.execute("SELECT rk_desc(123, 999999)").fetchone()[0])
PY
)"

# Loaded twice on one connection (an application that loads it on every
# open of a pooled connection): the tools still find a table connected
# under the first load, and the table still works.  rk_salt('a', 2) is
# the first two hex digits of md5('a') = 0cc175b9... before 'a'.
expect "loaded twice on one connection" "ok 0 1 x,y 0ca" \
  "$(/usr/bin/python3 - 2>&1 <<'PY'
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("./widecol")
conn.execute("CREATE VIRTUAL TABLE t USING widecol(a INTEGER, b TEXT, ROWKEY(a PAD 3), INDEX by_b(b))")
conn.execute("INSERT INTO t VALUES (1, 'x')")
conn.load_extension("./widecol")
conn.execute("INSERT INTO t VALUES (2, 'y')")
print(conn.execute("SELECT * FROM widecol_check('t')").fetchone()[0],
      conn.execute("SELECT count(*) FROM widecol_lint('t')").fetchone()[0],
      conn.execute("SELECT widecol_stats('t') IS NOT NULL").fetchone()[0],
      conn.execute("SELECT group_concat(b) FROM t WHERE b >= 'x'").fetchone()[0],
      conn.execute("SELECT rk_salt('a', 2)").fetchone()[0])
PY
)"
# The clock is the connection's: frozen by widecol_clock() after a second
# load, it stamps the writes of a versioned table connected under the
# first (1000, then 1001: one after the latest), and frozen before the
# second load it stays frozen (2000).
expect "the clock across two loads" "1000 1001 2000" \
  "$(/usr/bin/python3 - 2>&1 <<'PY'
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("./widecol")
conn.execute("CREATE VIRTUAL TABLE v USING widecol(k TEXT, x INTEGER, ROWKEY(k), VERSIONS 3)")
conn.execute("SELECT count(*) FROM v").fetchone()
conn.load_extension("./widecol")
conn.execute("SELECT widecol_clock(1000)")
conn.execute("INSERT INTO v VALUES ('a', 1)")
conn.execute("INSERT OR REPLACE INTO v VALUES ('a', 2)")
got = [r[0] for r in conn.execute("SELECT rowtime FROM v WHERE versions = 3 ORDER BY rowtime")]
conn.execute("SELECT widecol_clock(2000)")
conn.load_extension("./widecol")
got.append(conn.execute("SELECT widecol_clock()").fetchone()[0])
print(*got)
PY
)"

# Each store alone (without widecol, whose tables reach it) is refused at
# its load, saying what to load first; a table stored there without the
# store loaded says what to load (the module's absence is asked of SQLite,
# pragma_module_list); loaded after widecol, its module is there.
#   store  engine  word  resource  a design in the store's form
for spec in "bigtable|Bigtable|BIGTABLE|projects/p/instances/i/tables/t|k TEXT, ROWKEY(k)" \
            "hbase|HBase|HBASE|t|k TEXT, ROWKEY(k)" \
            "cassandra|Cassandra|CASSANDRA|ks.t|p TEXT, c TEXT, PRIMARY KEY ((p), c)"; do
  IFS='|' read -r store engine word resource design <<EOF_SPEC
$spec
EOF_SPEC
  [ -f "./widecol_$store.so" ] || continue
  expect "widecol_$store loaded without widecol" \
    "Error: error during initialization: widecol_$store is the $engine store of widecol tables and needs widecol loaded first: .load widecol, then .load widecol_$store (Python: widecol.load(db, $store=True))" \
    "$(sqlite3 :memory: ".load ./widecol_$store" 2>&1)"
  expect "STORAGE $word without widecol_$store" \
    "Error: stepping, widecol t: STORAGE $word needs the $engine store: load widecol_$store too (.load ./widecol_$store, after make $store)" \
    "$(sqlite3 :memory: '.load ./widecol' \
       "CREATE VIRTUAL TABLE t USING widecol($design, STORAGE $word '$resource');" 2>&1)"
  expect "widecol, then widecol_$store" "widecol_$store" \
    "$(sqlite3 :memory: '.load ./widecol' ".load ./widecol_$store" \
       "SELECT name FROM pragma_module_list WHERE name = 'widecol_$store';" 2>&1)"
done
exit $status
