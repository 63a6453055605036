#!/bin/sh
# The HBase of widecol's tests, the binding way to start and stop it (for
# our tests and for tests outside the project):
#
#   sh tests/servers/hbase.sh start    resolves HBase 2.6 from Maven Central
#       (tests/servers/hbase/pom.xml), starts WidecolHBase.java with JDK 17
#       (a one-master, one-region-server mini cluster on the local
#       filesystem and its Thrift2 gateway, every port a free loopback
#       port) and, once HBase answers, prints one NAME=value a line:
#         WIDECOL_HBASE=127.0.0.1:PORT      the Thrift2 gateway (widecol's
#                                           Thrift transport)
#         WIDECOL_HBASE_NODES=127.0.0.1:PORT,...  the master, then each
#                                           region server (widecol's native
#                                           transport, the default)
#         WIDECOL_HBASE_ZK=127.0.0.1:PORT   ZooKeeper (HBase's Java client)
#     [--regionservers N]  N region servers (1), regions of a pre-split
#                          table on every one (HBase's balancer)
#     [--no-thrift]        no Thrift2 gateway (WIDECOL_HBASE not printed)
#     [--phoenix]          Apache Phoenix 5.2 on the cluster (its jars in
#                          the region servers; the client's phoenix-*
#                          commands reach it)
#   sh tests/servers/hbase.sh rs list  each region server: its number, name
#       and the regions it holds ("down" once killed or stopped)
#   sh tests/servers/hbase.sh rs kill|stop N   region server N killed (as a
#       crash) or stopped; rs start: one more
#   sh tests/servers/hbase.sh region move|split TABLE ROWKEY_HEX   the
#       row's region moved to another server, or split at the row;
#       region balance: HBase's balancer run once
#   sh tests/servers/hbase.sh stop     stops it by its PID, removes its data
#   sh tests/servers/hbase.sh client ARGS...   HBase's Java client, the
#       ground truth (WidecolHBase.java: cells|regions|describe <table>,
#       tables)
#   sh tests/servers/hbase.sh check    says whether Java 17 and Maven are
#       here (exit 0), or why not (exit 1)
#
# State lives in $WIDECOL_HBASE_DIR (default build/hbase under the current
# directory).  The Maven repository cache (~/.m2) may stay between runs;
# nothing from Maven is committed.  Readiness waits up to
# $WIDECOL_HBASE_START_SECONDS (600: a busy machine has taken 417 s).
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=${WIDECOL_HBASE_DIR:-build/hbase}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# check(): JDK 17 and Maven (java.sh).
. "$here/java.sh"

# The flags HBase's own build runs its tests with on JDK 17: its shaded
# Netty and its memory accounting reach into the JDK's internals (and
# JRuby, for create.rb, into java.io).
JVM_FLAGS="-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  --add-modules jdk.unsupported
  --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.base/java.io=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED
  --add-exports java.base/sun.net.util=ALL-UNNAMED"

# The classpath (resolved once, then from the cache) and the harness,
# compiled when its source is newer.
# With Phoenix ($1 = phoenix, the pom's profile) a classpath of its own;
# start records the profile, and clients run on the cluster's classpath.
build() {
  cp="$dir/classpath${1:+-$1}.txt"
  if [ ! -s "$cp" ] || [ "$here/hbase/pom.xml" -nt "$cp" ]; then
    echo "hbase: resolving HBase${1:+ and Phoenix} from Maven (tests/servers/hbase/pom.xml)" >&2
    JAVA_HOME=$JAVA_HOME mvn -q -B -f "$here/hbase/pom.xml" ${1:+-P "$1"} \
      dependency:build-classpath -Dmdep.outputFile="$cp" >"$dir/mvn.log" 2>&1 || {
        echo "hbase: Maven could not resolve HBase${1:+ and Phoenix} (the pom's ${1:-default} dependencies):" >&2
        tail -n 20 "$dir/mvn.log" >&2
        exit 1
      }
    # Maven leaves the file as it was when the classpath is the same.
    touch "$cp"
  fi
  src="$here/hbase/src/main/java/WidecolHBase.java"
  if [ ! -f "$dir/classes/WidecolHBase.class" ] || [ "$src" -nt "$dir/classes/WidecolHBase.class" ]; then
    mkdir -p "$dir/classes"
    "$JAVA_HOME/bin/javac" -nowarn -cp "$(cat "$cp")" -d "$dir/classes" "$src" \
      >"$dir/javac.log" 2>&1 || { cat "$dir/javac.log" >&2; exit 1; }
  fi
  cat > "$dir/log4j.properties" <<LOG
log4j.rootLogger=WARN,file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=\${widecol.hbase.log}
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=%d %p %c{1}: %m%n
LOG
}

java_run() {
  log=$1; heap=$2; shift 2
  # exec: the PID started is the JVM's, which stop kills.
  # shellcheck disable=SC2086
  exec "$JAVA_HOME/bin/java" "-Xmx$heap" $JVM_FLAGS \
    -Dlog4j.configuration="file:$dir/log4j.properties" -Dwidecol.hbase.log="$log" \
    -Dwidecol.hbase.create="$here/hbase/create.rb" \
    -cp "$dir/classes:$(cat "$cp")" WidecolHBase "$@"
}

stop() {
  for f in java holder; do
    if [ -f "$dir/$f.pid" ]; then
      pid=$(cat "$dir/$f.pid")
      kill "$pid" 2>/dev/null || true
      i=0
      while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$dir/$f.pid"
    fi
  done
  rm -rf "$dir/data" "$dir/stdin" "$dir/out.txt" "$dir/env"
}

case "$1" in
  check)
    check
    ;;
  start)
    shift
    serve_opts=""
    servers=1
    profile=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --regionservers)
          case "$2" in [1-9]|[1-9][0-9]) ;; *)
            echo "hbase: --regionservers takes a number of region servers, 1 to 99" >&2; exit 2 ;;
          esac
          serve_opts="$serve_opts --regionservers $2"; servers=$2; shift 2 ;;
        --no-thrift) serve_opts="$serve_opts --no-thrift"; shift ;;
        --phoenix) serve_opts="$serve_opts --phoenix"; profile=phoenix; shift ;;
        *) echo "hbase: start takes --regionservers N, --no-thrift and --phoenix, not $1" >&2; exit 2 ;;
      esac
    done
    check >"$dir/why" || { echo "hbase: cannot start: $(cat "$dir/why")" >&2; exit 1; }
    stop
    build "$profile"
    echo "$profile" >"$dir/profile"
    mkdir -p "$dir/data"
    mkfifo "$dir/stdin"
    # The harness stops when its stdin closes; this holds it open until
    # stop kills it.  Neither child keeps the caller's stdout or stderr:
    # a caller reading them through a pipe (Python's subprocess.run) sees
    # them close when start returns.
    sleep 2147483647 >"$dir/stdin" 2>/dev/null </dev/null &
    echo $! >"$dir/holder.pid"
    # The one JVM holds every server: 1 GiB, and half a GiB more for each
    # region server after the first (three ran out of 1 GiB under the
    # differential's hundred small tables).
    # shellcheck disable=SC2086
    java_run "$dir/data/hbase.log" "$((512 + 512 * servers))m" serve "$dir/data" $serve_opts <"$dir/stdin" \
      >"$dir/out.txt" 2>"$dir/data/stderr.txt" &
    echo $! >"$dir/java.pid"
    limit=${WIDECOL_HBASE_START_SECONDS:-600}
    i=0
    while ! grep -q '^ready$' "$dir/out.txt" 2>/dev/null; do
      if ! kill -0 "$(cat "$dir/java.pid")" 2>/dev/null || [ $i -ge $((limit * 10)) ]; then
        echo "hbase: HBase did not start within ${limit} s; its log:" >&2
        tail -n 30 "$dir/data/stderr.txt" "$dir/data/hbase.log" >&2 2>/dev/null
        stop
        exit 1
      fi
      sleep 0.1
      i=$((i + 1))
    done
    grep '^WIDECOL_' "$dir/out.txt" | tee "$dir/env"
    ;;
  stop)
    stop
    ;;
  rs)
    # A control line into the cluster's standard input; its answer is in
    # out.txt, up to "done <id>".
    shift
    [ -p "$dir/stdin" ] && [ -f "$dir/java.pid" ] && kill -0 "$(cat "$dir/java.pid")" 2>/dev/null ||
      { echo "hbase: not started (sh tests/servers/hbase.sh start)" >&2; exit 1; }
    id="$$-$(date +%s%N)"
    from=$(wc -l <"$dir/out.txt")
    echo "$id rs $*" >"$dir/stdin"
    i=0
    while ! tail -n +"$((from + 1))" "$dir/out.txt" | grep -q "^done $id\$"; do
      [ $i -ge 1200 ] && { echo "hbase: rs $*: no answer within 120 s" >&2; exit 1; }
      sleep 0.1
      i=$((i + 1))
    done
    answer=$(tail -n +"$((from + 1))" "$dir/out.txt" | sed "/^done $id\$/,\$d")
    printf '%s\n' "$answer" | grep -v '^! ' || true
    if printf '%s\n' "$answer" | grep -q '^! '; then
      printf '%s\n' "$answer" | sed -n 's/^! /hbase: rs: /p' >&2
      exit 1
    fi
    ;;
  region)
    shift
    case "$1" in
      move|split) set -- "region-$1" "$2" "$3" ;;
      balance) set -- balance ;;
      *) echo "usage: sh tests/servers/hbase.sh region move|split TABLE ROWKEY_HEX | region balance" >&2; exit 2 ;;
    esac
    sh "$0" client "$@"
    ;;
  client)
    shift
    check >/dev/null || { echo "hbase: no client: $(check)" >&2; exit 1; }
    [ -f "$dir/env" ] || { echo "hbase: not started (sh tests/servers/hbase.sh start)" >&2; exit 1; }
    build "$(cat "$dir/profile" 2>/dev/null)"
    zk=$(sed -n 's/^WIDECOL_HBASE_ZK=//p' "$dir/env")
    (java_run "$dir/client.log" 512m "$zk" "$@")
    ;;
  *)
    echo "usage: sh tests/servers/hbase.sh start [--regionservers N] [--no-thrift] [--phoenix]|stop|rs ...|region ...|client ARGS|check" >&2
    exit 2
    ;;
esac
