#!/bin/sh
# The Cassandra of widecol's tests, the binding way to start and stop it
# (for our tests and for tests outside the project):
#
#   sh tests/servers/cassandra.sh start    resolves Apache Cassandra 5.0
#       from Maven Central (tests/servers/cassandra/pom.xml), writes a
#       one-node cassandra.yaml whose every port is a free loopback port,
#       starts org.apache.cassandra.service.CassandraDaemon with JDK 17,
#       the JVM flags of Cassandra's own jvm17-server.options and jamm as
#       its agent, and, once the server takes CQL, prints one line:
#         WIDECOL_CASSANDRA=127.0.0.1:PORT     the CQL native port
#   sh tests/servers/cassandra.sh stop     stops it by its PID, removes its data
#   sh tests/servers/cassandra.sh check    says whether Java 17 and Maven
#       are here (exit 0), or why not (exit 1)
#
# State lives in $WIDECOL_CASSANDRA_DIR (default build/cassandra under the
# current directory).  The Maven repository cache (~/.m2) may stay between
# runs; nothing from Maven is committed.  Readiness waits up to
# $WIDECOL_CASSANDRA_START_SECONDS (600).  The node has
# $WIDECOL_CASSANDRA_NUM_TOKENS (16) tokens, so the ring tests see vnodes.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=${WIDECOL_CASSANDRA_DIR:-build/cassandra}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# check(): JDK 17 and Maven (java.sh).
. "$here/java.sh"

# Cassandra's conf/jvm17-server.options (5.0): G1, and the JDK internals
# that Cassandra, its Netty and jamm reach into.
JVM_FLAGS="-XX:+UseG1GC -XX:+ParallelRefProcEnabled -XX:MaxTenuringThreshold=1
  -XX:G1HeapRegionSize=16m -XX:G1RSetUpdatingPauseTimePercent=5
  -XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70
  -Djdk.attach.allowAttachSelf=true
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
  --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
  --add-exports java.sql/java.sql=ALL-UNNAMED
  --add-exports java.base/java.lang.ref=ALL-UNNAMED
  --add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
  --add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
  --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
  --add-opens java.base/java.lang.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.loader=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
  --add-opens java.base/jdk.internal.math=ALL-UNNAMED
  --add-opens java.base/jdk.internal.module=ALL-UNNAMED
  --add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  -Dio.netty.tryReflectionSetAccessible=true
  -Dio.netty.allocator.useCacheForAllThreads=true
  -Dio.netty.allocator.maxOrder=11"

# The classpath, resolved once, then from the cache.
build() {
  cp="$dir/classpath.txt"
  if [ ! -s "$cp" ] || [ "$here/cassandra/pom.xml" -nt "$cp" ]; then
    echo "cassandra: resolving Cassandra from Maven (tests/servers/cassandra/pom.xml)" >&2
    JAVA_HOME=$JAVA_HOME mvn -q -B -f "$here/cassandra/pom.xml" \
      dependency:build-classpath -Dmdep.outputFile="$cp" >"$dir/mvn.log" 2>&1 || {
        echo "cassandra: Maven could not resolve Cassandra:" >&2
        tail -n 20 "$dir/mvn.log" >&2
        exit 1
      }
    touch "$cp"
  fi
  jamm=$(tr ':' '\n' <"$cp" | grep '/jamm-[0-9.]*\.jar$' | head -n 1)
  [ -n "$jamm" ] || { echo "cassandra: no jamm on the classpath ($cp)" >&2; exit 1; }
}

# Free loopback ports, chosen by the kernel; the server binds them a
# moment later.
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

configure() {
  data=$dir/data
  mkdir -p "$data/data" "$data/commitlog" "$data/saved_caches" "$data/hints" "$data/cdc_raw" "$data/logs"
  # shellcheck disable=SC2046
  set -- $(free_ports 3)
  cql=$1 storage=$2 jmx=$3
  cat >"$dir/cassandra.yaml" <<YAML
cluster_name: widecol-tests
num_tokens: ${WIDECOL_CASSANDRA_NUM_TOKENS:-16}
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories: [ $data/data ]
commitlog_directory: $data/commitlog
saved_caches_directory: $data/saved_caches
hints_directory: $data/hints
cdc_raw_directory: $data/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:$storage"
listen_address: 127.0.0.1
rpc_address: 127.0.0.1
storage_port: $storage
native_transport_port: $cql
start_native_transport: true
endpoint_snitch: SimpleSnitch
authenticator: AllowAllAuthenticator
authorizer: AllowAllAuthorizer
# The partition size guardrail's warning is what the wide-partition lint
# is checked against (tests/stores/cassandra/ring.py).
partition_size_warn_threshold: ${WIDECOL_CASSANDRA_PARTITION_WARN:-1MiB}
# Warnings come early, so that the tests' small tables meet them: a reply
# that carries one has a longer preamble (ext/stores/cassandra/cq_wire.c).
tombstone_warn_threshold: 20
materialized_views_enabled: true
sasi_indexes_enabled: true
# One node on a shared two-core machine: no waiting for gossip to settle.
auto_bootstrap: false
YAML
  cat >"$dir/logback.xml" <<LOG
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$data/logs/system.log</file>
    <encoder><pattern>%d %-5level [%thread] %logger{20}: %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
LOG
  echo "$cql" >"$dir/port"
  echo "$jmx" >"$dir/jmx"
}

stop() {
  if [ -f "$dir/java.pid" ]; then
    pid=$(cat "$dir/java.pid")
    kill "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/java.pid"
  fi
  rm -rf "$dir/data" "$dir/env" "$dir/port" "$dir/jmx"
}

# Whether the native port answers a CQL OPTIONS frame with SUPPORTED:
# the listening socket alone opens before the server takes queries.
takes_cql() {
  python3 - "$1" <<'PY'
import socket, struct, sys
try:
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2)
    s.sendall(struct.pack(">BBhBi", 4, 0, 1, 5, 0))
    head = s.recv(9)
    sys.exit(0 if len(head) == 9 and head[4] == 6 else 1)
except OSError:
    sys.exit(1)
PY
}

case "$1" in
  check)
    check
    ;;
  start)
    check >"$dir/why" || { echo "cassandra: cannot start: $(cat "$dir/why")" >&2; exit 1; }
    stop
    build
    configure
    cql=$(cat "$dir/port")
    # exec: the PID recorded is the JVM's, which stop kills.
    # shellcheck disable=SC2086
    (exec "$JAVA_HOME/bin/java" -Xms1g -Xmx1g $JVM_FLAGS "-javaagent:$jamm" \
      -Dcassandra-foreground=yes -Dcassandra.config="file://$dir/cassandra.yaml" \
      -Dcassandra.storagedir="$dir/data" -Dcassandra.logdir="$dir/data/logs" \
      -Dcassandra.jmx.local.port="$(cat "$dir/jmx")" \
      -Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.ring_delay_ms=100 \
      -Dlogback.configurationFile="$dir/logback.xml" \
      -cp "$(cat "$dir/classpath.txt")" org.apache.cassandra.service.CassandraDaemon \
      </dev/null >"$dir/data/logs/stdout.txt" 2>&1) &
    echo $! >"$dir/java.pid"
    limit=${WIDECOL_CASSANDRA_START_SECONDS:-600}
    i=0
    while ! takes_cql "$cql"; do
      if ! kill -0 "$(cat "$dir/java.pid")" 2>/dev/null || [ $i -ge $((limit * 2)) ]; then
        echo "cassandra: Cassandra did not take CQL within ${limit} s; its log:" >&2
        tail -n 30 "$dir/data/logs/stdout.txt" "$dir/data/logs/system.log" >&2 2>/dev/null
        stop
        exit 1
      fi
      sleep 0.5
      i=$((i + 1))
    done
    echo "WIDECOL_CASSANDRA=127.0.0.1:$cql" | tee "$dir/env"
    ;;
  stop)
    check >/dev/null 2>&1 || true
    stop
    ;;
  *)
    echo "usage: sh tests/servers/cassandra.sh start|stop|check" >&2
    exit 2
    ;;
esac
