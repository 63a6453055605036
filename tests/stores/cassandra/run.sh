#!/bin/sh
# The Cassandra store's tests and widecol's predictions checked against a
# real Cassandra (make test): starts the Cassandra of our tests once
# (tests/servers/cassandra.sh: Apache Cassandra 5.0, a cluster of 3 nodes,
# or WIDECOL_CASSANDRA_TEST_NODES, each a child JVM on 127.0.0.i, on free
# loopback ports), runs the
# sqllogictest scripts of this folder with
# both libraries loaded, in native protocol v5 (v4 too under `make asan`),
# checks the store
# against Cassandra's Python driver (check.py), its failures (errors.py)
# and writer processes racing (reliability.py), rk_token against the
# server's token() (tokens.py), widecol_lint's allow-filtering verdicts against the server's query
# rules (rules.py), widecol_ddl's CQL against system_schema (ddl.py),
# widecol_ring against the server's token ranges and the wide-partition
# lint against its partition size guardrail (ring.py), runs the
# differential test on the store (races of two writer processes, a
# connection severed about once a second and one in a hundred of the
# server's answers lost), the README's demo,
# then the cluster's failures (cluster.py: a node killed under load, two
# down, one frozen, routing by token), and stops the nodes by their PIDs.
# Without JDK 17, Maven or python3-cassandra the tests report themselves
# skipped, with the reason.  Run from the repository root after `make`;
# it takes the settings of tests/stores/settings.sh (`make asan` runs the
# scripts, errors.py and reliability.py alone, under the sanitizers).
. tests/stores/settings.sh
if ! /usr/bin/python3 -c 'import cassandra.cluster' 2>/dev/null; then
  echo "cassandra tests: SKIPPED: no Cassandra driver for Python (apt-get install python3-cassandra)"
  exit 0
fi
# A cluster of 3 nodes (keyspaces of 3 replicas, LOCAL_QUORUM), unless
# WIDECOL_CASSANDRA_TEST_NODES says otherwise; the sanitizers' run, one.
nodes=${WIDECOL_CASSANDRA_TEST_NODES:-3}
[ -n "$STORE_SCRIPTS_ONLY" ] && nodes=1
server_start cassandra Cassandra WIDECOL_CASSANDRA_TIMEOUT_MS --nodes $nodes
echo "cassandra tests: Cassandra 5.0, $nodes node(s), takes CQL on $WIDECOL_CASSANDRA, ready in $ready s"

status=0
# The scripts in v5 of the native protocol (what widecol speaks where the
# node does, as Cassandra 5.0 does); under the sanitizers (one node) in v4
# too, where the protocol's other framing is what differs.
versions=5
[ -n "$STORE_SCRIPTS_ONLY" ] && versions="5 4"
for v in $versions; do
  echo "cassandra tests: native protocol v$v"
  WIDECOL_CASSANDRA_PROTOCOL=$v "$slt" --defensive --extension "$lib/widecol.so" \
    --extension "$lib/widecol_cassandra.so" tests/stores/cassandra/*.test || status=1
done
if [ -n "$STORE_SCRIPTS_ONLY" ]; then
  # With the sanitizers' runtimes (STORE_PRELOAD), the failures too (a
  # connection severed under a read found a crash), and writer processes
  # racing, DDL in transactions.
  for t in errors reliability; do
    LD_PRELOAD="$STORE_PRELOAD" ASAN_OPTIONS=detect_leaks=0 /usr/bin/python3 \
      "tests/stores/cassandra/$t.py" --extension "$lib/widecol" \
      --cassandra "$lib/widecol_cassandra" || status=1
  done
  exit $status
fi
for t in check errors reliability; do
  /usr/bin/python3 "tests/stores/cassandra/$t.py" --extension "$lib/widecol" \
    --cassandra "$lib/widecol_cassandra" || status=1
done
for t in tokens rules; do
  /usr/bin/python3 "tests/stores/cassandra/$t.py" --extension "$lib/widecol" || status=1
done
/usr/bin/python3 tests/stores/cassandra/ddl.py --extension "$lib/widecol" \
  --cassandra "$lib/widecol_cassandra" || status=1
/usr/bin/python3 tests/stores/cassandra/ring.py --extension "$lib/widecol" \
  --cassandra "$lib/widecol_cassandra" \
  --log "$WIDECOL_CASSANDRA_DIR/node1/logs/system.log" || status=1
# Many-way joins read what the local plan reads (tests/stores/joins.py).
/usr/bin/python3 tests/stores/joins.py --extension "$lib/widecol" --store "$lib/widecol_cassandra" \
  --storage "STORAGE CASSANDRA 'joins.{name}'" --cql --seeds 2 || status=1
# Races of two writers, a connection severed about once a second and one
# answer in a hundred lost (a proxy before each node).
/usr/bin/python3 tests/harness/differential.py --extension "$lib/widecol" \
  --cassandra "$lib/widecol_cassandra" --cases "${STORE_DIFF_CASES:-300}" --random 0 --seed 1 \
  --race 4 --faults 1 --lose 0.01 || status=1
# The README's demo, on this Cassandra: the eBay and GeminiDB scripts give
# the answers they give locally, line for line (widecol_ddl names a table
# on Cassandra in its keyspace, widecol_demo, and says the CREATE makes
# the keyspace: left out of the comparison).
mkdir -p build
if sh sql/cassandra/demo.sh > build/cassandra-demo.out 2>&1; then
  grep -v 'rows written\|^== \|^Cassandra\|^Row(\|makes the keyspace widecol_demo' \
    build/cassandra-demo.out | sed '/^$/d; s/"widecol_demo"\.//' > build/cassandra-demo.cmp
  (sqlite3 :memory: < sql/cassandra_likes.sql; sqlite3 :memory: < sql/cassandra_gemini.sql) \
    2>&1 | grep -v 'rows written' | sed '/^$/d' > build/cassandra-local.cmp
  if cmp -s build/cassandra-demo.cmp build/cassandra-local.cmp &&
     grep -q '^Row(user_id=42, liked_at=1364358674, item_id=5' build/cassandra-demo.out; then
    echo "cassandra demo: ok (sql/cassandra_likes.sql and sql/cassandra_gemini.sql answer as locally)"
  else
    echo "cassandra demo FAILED: its answers differ from the local run's:"
    diff build/cassandra-local.cmp build/cassandra-demo.cmp | head -20
    status=1
  fi
else
  echo "cassandra demo FAILED:"; tail -20 build/cassandra-demo.out; status=1
fi
# Last, since it kills, freezes and restarts nodes: the cluster's failures.
/usr/bin/python3 tests/stores/cassandra/cluster.py --extension "$lib/widecol" \
  --cassandra "$lib/widecol_cassandra" || status=1
exit $status
