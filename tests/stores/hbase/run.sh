#!/bin/sh
# The HBase store's tests (make test): starts the HBase of our tests once
# (tests/servers/hbase.sh: HBase 2.6's mini cluster, three region servers,
# and its Thrift2 gateway, on free loopback ports), runs the sqllogictest
# scripts of this
# folder with both libraries loaded, on HBase's own protocol (the native
# transport) and again through the gateway, the checks against HBase's Java
# client of check.py, reads of many ranges (ranges.py), other clients and
# failures (errors.py: racing
# CREATEs, a gateway not there, a disabled table), widecol_regions' split
# policies against HBase's splits (regions.py), widecol_ddl's commands run
# against HBase (ddl.py),
# the differential test on the HBase store (under faults, with races), the
# README's demo, and last
# the cluster's failures (cluster.py: region servers killed under a load
# and a scan, regions split and moved, then every region server down),
# then stops HBase by its PID.
# Without JDK 17 or Maven the tests report themselves skipped, with the
# reason.  Run from the repository root after `make`; it takes the
# settings of tests/stores/settings.sh (`make asan` runs the scripts
# alone).
. tests/stores/settings.sh
server_start hbase HBase WIDECOL_HBASE_TIMEOUT_MS --regionservers 3
echo "hbase tests: HBase on $WIDECOL_HBASE_NODES (a master and three region servers; native transport; Thrift2 gateway on $WIDECOL_HBASE), ready in $ready s"

status=0
"$slt" --defensive --extension "$lib/widecol.so" --extension "$lib/widecol_hbase.so" \
  tests/stores/hbase/*.test || status=1
# The same scripts through the Thrift2 gateway, the other transport.
if [ -n "$WIDECOL_HBASE" ]; then
  echo "hbase tests: the scripts again through the Thrift2 gateway"
  WIDECOL_HBASE_TRANSPORT=thrift "$slt" --defensive --extension "$lib/widecol.so" \
    --extension "$lib/widecol_hbase.so" tests/stores/hbase/*.test || status=1
fi
[ -n "$STORE_SCRIPTS_ONLY" ] && exit $status
/usr/bin/python3 tests/stores/hbase/check.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/stores/hbase/ranges.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/stores/hbase/errors.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/stores/hbase/regions.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
/usr/bin/python3 tests/stores/hbase/ddl.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
# Many-way joins read what the local plan reads (tests/stores/joins.py).
/usr/bin/python3 tests/stores/joins.py --extension "$lib/widecol" --store "$lib/widecol_hbase" \
  --storage "STORAGE HBASE 'joins:{name}'" --seeds 1 || status=1
# The differential test with a connection to a server severed about once
# a second and one in a hundred of the servers' answers lost (a proxy
# before each server: WIDECOL_HBASE_NAT), and races of two writer
# processes.
/usr/bin/python3 tests/harness/differential.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" --cases "${STORE_DIFF_CASES:-20}" --random 0 \
  --race 4 --faults 1 --lose 0.01 || status=1
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
# Last: it kills region servers, and at its end every one.
/usr/bin/python3 tests/stores/hbase/cluster.py --extension "$lib/widecol" \
  --hbase "$lib/widecol_hbase" || status=1
exit $status
