#!/bin/sh
# The Cassandra of widecol's tests, the binding way to start, stop and
# upset it (for our tests and for tests outside the project):
#
#   sh tests/servers/cassandra.sh start [--nodes N]   resolves Apache
#       Cassandra 5.0 from Maven Central (tests/servers/cassandra/pom.xml)
#       and starts a cluster of N nodes (1 by default), the seed first,
#       then the others all at once: node i is a JVM (org.apache.cassandra.service.CassandraDaemon, JDK 17,
#       the JVM flags of Cassandra's own jvm17-server.options, jamm as its
#       agent) on 127.0.0.i, every node on the same free CQL and storage
#       ports, node 1 the seed.  Once every node takes CQL and sees every
#       node UP and NORMAL, it prints one line:
#         WIDECOL_CASSANDRA=127.0.0.1:PORT,127.0.0.2:PORT,...
#   sh tests/servers/cassandra.sh node list    a line per node: its number,
#       its CQL address, its state (up, starting, frozen, down)
#   sh tests/servers/cassandra.sh node kill|stop|cont|start N
#       node N's JVM SIGKILLed, SIGSTOPped (frozen), SIGCONTinued, or
#       started again on its data (start returns once its CQL answers and
#       another node that is up sees it UP and NORMAL)
#   sh tests/servers/cassandra.sh stop     stops every node by its PID,
#       removes their data
#   sh tests/servers/cassandra.sh check    says whether Java 17 and Maven
#       are here (exit 0), or why not (exit 1)
#
# State lives in $WIDECOL_CASSANDRA_DIR (default build/cassandra under the
# current directory), node i's in node<i>/ there (its log:
# node<i>/logs/system.log).  The Maven repository cache (~/.m2) may stay
# between runs; nothing from Maven is committed.  Readiness waits up to
# $WIDECOL_CASSANDRA_START_SECONDS (600).  Each node has
# $WIDECOL_CASSANDRA_NUM_TOKENS (16) tokens, so the ring tests see vnodes,
# and a heap of $WIDECOL_CASSANDRA_HEAP (1g for one node, 512m each for
# more).  Linux routes all of 127/8 to the loopback device, so the
# addresses need no setup.
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


# Ports the kernel chose free on 127.0.0.1 that are free on 127.0.0.2 ..
# 127.0.0.NODES too: COUNT of them, each held until all are chosen; the
# nodes bind them a moment later.
free_ports() {
  python3 - "$1" "$2" <<'PY'
import socket, sys
count, nodes = int(sys.argv[1]), int(sys.argv[2])
held, ports = [], []
while len(ports) < count:
    first = socket.socket()
    first.bind(("127.0.0.1", 0))
    port, mine = first.getsockname()[1], [first]
    try:
        for i in range(2, nodes + 1):
            s = socket.socket()
            mine.append(s)
            s.bind(("127.0.0.%d" % i, port))
    except OSError:
        for s in mine:
            s.close()
        continue
    held += mine
    ports.append(port)
print(" ".join(str(p) for p in ports))
PY
}

# The cluster's shape, as start wrote it: $nodes, $cql, $storage.
shape() {
  if [ ! -f "$dir/nodes" ]; then
    echo "cassandra: no cluster in $dir (sh tests/servers/cassandra.sh start)" >&2
    exit 1
  fi
  read -r nodes cql storage <"$dir/nodes"
}

# Node $1's cassandra.yaml and folders.
configure_node() {
  node=$dir/node$1
  mkdir -p "$node/data" "$node/commitlog" "$node/saved_caches" "$node/hints" \
    "$node/cdc_raw" "$node/logs"
  cat >"$node/cassandra.yaml" <<YAML
cluster_name: widecol-tests
num_tokens: ${WIDECOL_CASSANDRA_NUM_TOKENS:-16}
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories: [ $node/data ]
commitlog_directory: $node/commitlog
saved_caches_directory: $node/saved_caches
hints_directory: $node/hints
cdc_raw_directory: $node/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:$storage"
listen_address: 127.0.0.$1
rpc_address: 127.0.0.$1
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
# Nodes made with their own tokens, never streaming data in: the cluster
# starts all at once on a shared two-core machine.
auto_bootstrap: false
YAML
  cat >"$node/logback.xml" <<LOG
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>$node/logs/system.log</file>
    <encoder><pattern>%d %-5level [%thread] %logger{20}: %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
LOG
}

# The cluster's ports and every node's configuration.
configure() {
  nodes=$1
  # shellcheck disable=SC2046
  set -- $(free_ports 2 "$nodes")
  cql=$1 storage=$2
  echo "$nodes $cql $storage" >"$dir/nodes"
  # shellcheck disable=SC2046
  set -- $(free_ports "$nodes" 1)
  i=1
  for jmx in "$@"; do
    configure_node $i
    echo "$jmx" >"$dir/node$i/jmx"
    i=$((i + 1))
  done
}

# Node $1's JVM started in the background, its PID recorded.
start_node() {
  node=$dir/node$1
  heap=${WIDECOL_CASSANDRA_HEAP:-1g}
  [ "$nodes" -gt 1 ] && heap=${WIDECOL_CASSANDRA_HEAP:-512m}
  # exec: the PID recorded is the JVM's, which stop and node kill signal.
  # shellcheck disable=SC2086
  (exec "$JAVA_HOME/bin/java" -Xms$heap -Xmx$heap $JVM_FLAGS "-javaagent:$jamm" \
    -Dcassandra-foreground=yes -Dcassandra.config="file://$node/cassandra.yaml" \
    -Dcassandra.storagedir="$node" -Dcassandra.logdir="$node/logs" \
    -Dcassandra.jmx.local.port="$(cat "$node/jmx")" \
    -Dcassandra.skip_wait_for_gossip_to_settle=0 -Dcassandra.ring_delay_ms=100 \
    -Dlogback.configurationFile="$node/logback.xml" \
    -cp "$(cat "$dir/classpath.txt")" org.apache.cassandra.service.CassandraDaemon \
    </dev/null >>"$node/logs/stdout.txt" 2>&1) &
  echo $! >"$node/java.pid"
}

# Node $1's JVM's PID if it runs (else nothing, and status 1).
pid_of() {
  [ -f "$dir/node$1/java.pid" ] || return 1
  p=$(cat "$dir/node$1/java.pid")
  kill -0 "$p" 2>/dev/null || return 1
  echo "$p"
}

# Every node stopped (a frozen one continued first, so that it can end),
# its data removed.
stop() {
  for node in "$dir"/node*; do
    [ -f "$node/java.pid" ] || continue
    pid=$(cat "$node/java.pid")
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  for node in "$dir"/node*; do
    [ -f "$node/java.pid" ] || continue
    pid=$(cat "$node/java.pid")
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$node/java.pid"
  done
  rm -rf "$dir"/node* "$dir/env" "$dir/nodes"
}

# Whether node $1's CQL port answers an OPTIONS frame with SUPPORTED:
# the listening socket alone opens before the node takes queries.
takes_cql() {
  python3 - "127.0.0.$1" "$cql" <<'PY'
import socket, struct, sys
try:
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2)
    s.sendall(struct.pack(">BBhBi", 4, 0, 1, 5, 0))
    head = s.recv(9)
    sys.exit(0 if len(head) == 9 and head[4] == 6 else 1)
except OSError:
    sys.exit(1)
PY
}

# The addresses node $1 sees UP and NORMAL (nodetool status's UN lines),
# one a line.
seen_up() {
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" -Xmx128m $JVM_FLAGS -Duser.home="$dir" \
    -cp "$(cat "$dir/classpath.txt")" org.apache.cassandra.tools.NodeTool \
    -h 127.0.0.1 -p "$(cat "$dir/node$1/jmx")" status 2>/dev/null \
    | awk '$1 == "UN" { print $2 }'
}

# Waits until node $1 takes CQL and node $2 (itself or another) sees the
# nodes $3 UP and NORMAL; fails after the start limit, showing the log.
await() {
  node=$1 viewer=$2 want=$3
  limit=${WIDECOL_CASSANDRA_START_SECONDS:-600}
  until=$(( $(date +%s) + limit ))
  while ! takes_cql "$node"; do
    if ! pid_of "$node" >/dev/null || [ "$(date +%s)" -ge $until ]; then
      echo "cassandra: node $node did not take CQL within ${limit} s; its log:" >&2
      tail -n 30 "$dir/node$node/logs/stdout.txt" "$dir/node$node/logs/system.log" >&2 2>/dev/null
      return 1
    fi
    sleep 0.5
  done
  [ "$nodes" -gt 1 ] || return 0
  while :; do
    seen=" $(seen_up "$viewer" | tr '\n' ' ') "
    missing=
    for w in $want; do
      case "$seen" in *" 127.0.0.$w "*) ;; *) missing="$missing $w" ;; esac
    done
    [ -z "$missing" ] && return 0
    if [ "$(date +%s)" -ge $until ]; then
      echo "cassandra: node $viewer did not see node(s)$missing UP and NORMAL within ${limit} s" >&2
      return 1
    fi
    sleep 1
  done
}

# Node $1's state: down (no JVM), frozen (SIGSTOPped), up (takes CQL) or
# starting.
state_of() {
  if ! p=$(pid_of "$1"); then echo down; return; fi
  case $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) in
    T|t) echo frozen; return ;;
  esac
  if takes_cql "$1"; then echo up; else echo starting; fi
}

node_command() {
  verb=$1 n=$2
  shape
  if [ "$verb" != list ]; then
    case "$n" in ''|*[!0-9]*) n=0 ;; esac
    if [ "$n" -lt 1 ] || [ "$n" -gt "$nodes" ]; then
      echo "cassandra: node '$2': the cluster has nodes 1 to $nodes" >&2
      exit 2
    fi
  fi
  case "$verb" in
    list)
      i=1
      while [ $i -le "$nodes" ]; do
        echo "$i 127.0.0.$i:$cql $(state_of $i)"
        i=$((i + 1))
      done
      ;;
    kill|stop|cont)
      if ! p=$(pid_of "$n"); then
        echo "cassandra: node $n is down (node start $n starts it)" >&2
        exit 1
      fi
      case "$verb" in kill) kill -KILL "$p" ;; stop) kill -STOP "$p" ;; cont) kill -CONT "$p" ;; esac
      if [ "$verb" = kill ]; then
        while kill -0 "$p" 2>/dev/null; do sleep 0.1; done
      fi
      ;;
    start)
      if pid_of "$n" >/dev/null; then
        echo "cassandra: node $n is running (node kill $n first)" >&2
        exit 1
      fi
      build
      start_node "$n"
      # Another node that is up must see it back, as a client will.
      viewer=$n i=1
      while [ $i -le "$nodes" ]; do
        if [ $i != "$n" ] && [ "$(state_of $i)" = up ]; then viewer=$i; break; fi
        i=$((i + 1))
      done
      await "$n" "$viewer" "$n"
      ;;
    *)
      echo "usage: sh tests/servers/cassandra.sh node list | node kill|stop|cont|start N" >&2
      exit 2
      ;;
  esac
}

usage="usage: sh tests/servers/cassandra.sh start [--nodes N] | node ... | stop | check"
case "$1" in
  check)
    check
    ;;
  start)
    count=1
    case "$2" in
      '') ;;
      --nodes) count=$3 ;;
      *) echo "$usage" >&2; exit 2 ;;
    esac
    case "$count" in
      ''|*[!0-9]*|0) echo "cassandra: --nodes takes a count from 1 to 254, not '$count'" >&2; exit 2 ;;
    esac
    if [ "$count" -gt 254 ]; then
      echo "cassandra: --nodes takes a count from 1 to 254, not '$count'" >&2
      exit 2
    fi
    check >"$dir/why" || { echo "cassandra: cannot start: $(cat "$dir/why")" >&2; exit 1; }
    stop
    build
    configure "$count"
    # The seed first, until it takes CQL: a node that starts before the
    # seed gossips gives up ("Unable to gossip with any peers"); then the
    # others all at once.
    start_node 1
    await 1 1 1 || { stop; exit 1; }
    all=1 i=2
    while [ $i -le "$count" ]; do start_node $i; all="$all $i"; i=$((i + 1)); done
    for i in $all; do
      await $i $i "$all" || { stop; exit 1; }
    done
    env= sep=
    for i in $all; do env="$env${sep}127.0.0.$i:$cql"; sep=,; done
    echo "WIDECOL_CASSANDRA=$env" | tee "$dir/env"
    ;;
  node)
    check >/dev/null 2>&1 || true
    node_command "$2" "$3"
    ;;
  stop)
    check >/dev/null 2>&1 || true
    stop
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
