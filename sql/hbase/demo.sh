#!/bin/sh
# Runs sql/hbase/payments.sql on a real HBase (the payments design created
# on HBase, the local rows copied over, the HBase blog's two scans read
# back, Lindorm's newest-N logs, a salted design) and shows the rows as
# HBase's own Java client reads them.  Starts HBase with
# tests/servers/hbase.sh (JDK 17 and Maven) and stops it after, unless
# WIDECOL_HBASE_NODES (HBase's servers) or WIDECOL_HBASE (a Thrift2
# gateway) names a running HBase already.  Run from the
# repository root after `make` (`make hbase-demo`), or installed:
# sh /usr/local/share/doc/widecol/sql/hbase/demo.sh.
set -e
here=$(cd "$(dirname "$0")" && pwd)
# The servers' scripts: tests/servers in the source tree, servers/ beside
# sql/ where make install put them.
servers=$here/../../tests/servers
[ -d "$servers" ] || servers=$here/../../servers
if [ -z "$WIDECOL_HBASE_NODES$WIDECOL_HBASE" ]; then
  export WIDECOL_HBASE_DIR="${WIDECOL_HBASE_DIR:-build/hbase-demo}"
  env=$(sh "$servers/hbase.sh" start)
  trap 'sh "$servers/hbase.sh" stop' EXIT
  for line in $env; do export "$line"; done
  echo "HBase on $WIDECOL_HBASE_NODES"
fi
sqlite3 -bail :memory: < "$here/payments.sql"
echo
echo "HBase's Java client (hbase.sh client scan demo:payments 000123):"
sh "$servers/hbase.sh" client scan demo:payments 000123
