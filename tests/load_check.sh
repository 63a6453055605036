#!/bin/sh
# widecol loads the two ways users load it, typed as they would type them:
# `.load ./widecol` in the sqlite3 shell and conn.load_extension("./widecol")
# in Debian's python3.  Run from the repository root after `make`.
status=0

got=$(sqlite3 :memory: '.load ./widecol' 'SELECT rk_pad(123, 6);' 2>&1)
if [ "$got" = "000123" ]; then
  echo "load check: sqlite3 shell .load ./widecol: ok"
else
  echo "load check FAILED: sqlite3 shell .load ./widecol printed: $got"
  status=1
fi

got=$(/usr/bin/python3 - 2>&1 <<'PY'
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("./widecol")
print(conn.execute("SELECT rk_desc(123, 999999)").fetchone()[0])
PY
)
if [ "$got" = "999876" ]; then
  echo "load check: python3 conn.load_extension(\"./widecol\"): ok"
else
  echo "load check FAILED: python3 load_extension printed: $got"
  status=1
fi
exit $status
