#!/bin/sh
# Runs the eBay and GeminiDB scripts (sql/cassandra_likes.sql,
# sql/cassandra_gemini.sql) on a real Cassandra: each widecol table in
# Cassandra's form is created with STORAGE CASSANDRA 'widecol_demo.<table>', the
# scripts' rows are copied in with their own INSERT ... SELECT, and their
# queries, rings, lint and CQL are answered from Cassandra; then the rows
# as Cassandra's own Python driver reads them.  Starts Cassandra with
# tests/servers/cassandra.sh (JDK 17 and Maven) and stops it after, unless
# WIDECOL_CASSANDRA names a running cluster already.  Run from the repository
# root after `make` (`make cassandra-demo`), or installed:
# sh /usr/local/share/doc/widecol/sql/cassandra/demo.sh.
set -e
here=$(cd "$(dirname "$0")" && pwd)
# The servers' scripts: tests/servers in the source tree, servers/ beside
# sql/ where make install put them.
servers=$here/../../tests/servers
[ -d "$servers" ] || servers=$here/../../servers
if [ -z "$WIDECOL_CASSANDRA" ]; then
  export WIDECOL_CASSANDRA_DIR="${WIDECOL_CASSANDRA_DIR:-build/cassandra-demo}"
  env=$(sh "$servers/cassandra.sh" start)
  trap 'sh "$servers/cassandra.sh" stop' EXIT
  for line in $env; do export "$line"; done
  echo "Cassandra takes CQL on $WIDECOL_CASSANDRA"
fi
for script in cassandra_likes cassandra_gemini; do
  echo
  echo "== sql/$script.sql on Cassandra"
  /usr/bin/python3 "$here/on_cassandra.py" "$here/../$script.sql" | sqlite3 -bail :memory:
done
echo
echo "Cassandra's driver: SELECT * FROM widecol_demo.item_by_user WHERE user_id = 42 LIMIT 3"
/usr/bin/python3 - <<'PY'
import os
from cassandra.cluster import Cluster
# Every contact point (host:port,host:port...), one port for all.
nodes = [n.rsplit(":", 1) for n in os.environ["WIDECOL_CASSANDRA"].split(",")]
cluster = Cluster([h for h, _ in nodes], port=int(nodes[0][1]))
session = cluster.connect()
for row in session.execute("SELECT * FROM widecol_demo.item_by_user WHERE user_id = 42 LIMIT 3"):
    print(row)
session.execute("DROP KEYSPACE widecol_demo")
cluster.shutdown()
PY
