#!/bin/sh
# The HBase store's tests (make test): starts the HBase of our tests once
# (tests/servers/hbase.sh: HBase 2.6's mini cluster and its Thrift2
# gateway, on free loopback ports), runs the sqllogictest scripts of
# tests/stores/hbase/ with both libraries loaded, the checks against
# HBase's Java client of tests/stores/hbase_check.py, widecol_regions'
# split policies against HBase's splits (hbase_regions.py), widecol_ddl's
# commands run against HBase (hbase_ddl.py), the differential
# test on the HBase store, then stops HBase by its PID.  Without
# widecol_hbase.so, JDK 17 or Maven the tests report themselves skipped,
# with the reason.  Run from the repository root after `make`.  HB_SLT
# names the runner, HB_LIB the directory of the two libraries, and
# HB_SCRIPTS_ONLY=1 runs the scripts alone (`make asan`).
slt=${HB_SLT:-build/slt}
lib=${HB_LIB:-.}
if [ ! -f "$lib/widecol_hbase.so" ]; then
  echo "hbase tests: SKIPPED: $lib/widecol_hbase.so was not built (it needs protobuf-c and protoc-c: apt-get install libprotobuf-c-dev protobuf-c-compiler)"
  exit 0
fi
if ! why=$(sh tests/servers/hbase.sh check); then
  echo "hbase tests: SKIPPED: $why"
  exit 0
fi
export WIDECOL_HBASE_DIR="${WIDECOL_HBASE_DIR:-build/hbase-test}"
started=$(date +%s)
if ! env=$(sh tests/servers/hbase.sh start); then
  echo "hbase tests: HBase did not start (tests/servers/hbase.sh start, above)"
  exit 1
fi
trap 'sh tests/servers/hbase.sh stop' EXIT
for line in $env; do export "$line"; done
echo "hbase tests: HBase's Thrift2 gateway on $WIDECOL_HBASE, ready in $(( $(date +%s) - started )) s"

status=0
"$slt" --defensive --extension "$lib/widecol.so" --extension "$lib/widecol_hbase.so" \
  tests/stores/hbase/*.test || status=1
[ -n "$HB_SCRIPTS_ONLY" ] && exit $status
/usr/bin/python3 tests/stores/hbase_check.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/stores/hbase_regions.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/stores/hbase_ddl.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/harness/differential.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" --cases 20 --random 0 || status=1
# The README's script, on this HBase: the seeds' answers.
out=$(sh sql/hbase/demo.sh 2>&1)
if printf '%s' "$out" | grep -q '| 000123_01-01-2017 16:06:30_012345682 | 99.0   | wire |' &&
   printf '%s' "$out" | grep -q '| 01-01-2017 09:07:00_000023_012345683 | 23 ' &&
   printf '%s' "$out" | grep -q '| 1364248510 | d ' &&
   printf '%s' "$out" | grep -q '| 59b2_user000002  | user000002 | bob ' &&
   printf '%s' "$out" | grep -q '^000123_01-01-2017 16:06:30_012345682 p:mode timestamp=[0-9]* value=wire$'; then
  echo "hbase demo: ok"
else
  echo "hbase demo FAILED:"; printf '%s\n' "$out" | tail -20; status=1
fi
exit $status
