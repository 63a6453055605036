# The settings every store's tests (tests/stores/<engine>/run.sh) take,
# read here once, and how they start an engine's server; each run.sh
# sources this file from the repository root.
#   STORE_SLT           the sqllogictest runner (build/slt)
#   STORE_LIB           the directory of widecol.so and the store's
#                       library (.)
#   STORE_SCRIPTS_ONLY  1: the scripts alone, and the checks that must run
#                       under the sanitizers, not the Python checks against
#                       the engine's own client (make asan)
#   STORE_PRELOAD       libraries preloaded into python3 for those checks
#                       (make asan: the sanitizers' runtimes)
#   STORE_DIFF_CASES    statements per design of the differential test
slt=${STORE_SLT:-build/slt}
lib=${STORE_LIB:-.}

# server_start NAME ENGINE [DEADLINE [ARGS...]]: the engine of
# tests/servers/NAME.sh, started (`start ARGS`) once for the run (its state
# in build/NAME-test unless WIDECOL_<NAME>_DIR names another place) through
# pipes, as any program starting it would (server_start.py), what it
# prints exported, stopped by its PID at exit or when the run is stopped;
# $ready is how many seconds it took.  Where it cannot run here (no JDK
# 17, no Maven), the tests say they are skipped and why.
#
# Deadlines scale with that start: a machine busy enough that the server
# took longer than $typical seconds to start gets each call's deadline
# (the variable DEADLINE names, 30 s, where the store reads one; "" for
# none) multiplied by ready / typical, unless the caller set it; $scale is
# that factor.
server_start() {
  name=$1 engine=$2 deadline=${3:-}
  shift 2; [ $# -gt 0 ] && shift
  upper=$(printf '%s' "$name" | tr a-z A-Z)
  if ! why=$(sh "tests/servers/$name.sh" check); then
    echo "$name tests: SKIPPED: $why"
    exit 0
  fi
  eval "export WIDECOL_${upper}_DIR=\"\${WIDECOL_${upper}_DIR:-build/$name-test}\""
  started=$(date +%s)
  trap "sh tests/servers/$name.sh stop" EXIT
  trap "exit 143" TERM INT
  if ! env=$(/usr/bin/python3 tests/stores/server_start.py "$name" "$@"); then
    echo "$name tests: $engine did not start (tests/servers/$name.sh start $*, above)"
    exit 1
  fi
  for line in $env; do export "$line"; done
  ready=$(( $(date +%s) - started ))
  typical=60
  scale=$(( (ready + typical - 1) / typical ))
  [ "$scale" -lt 1 ] && scale=1
  if [ -n "$deadline" ]; then
    eval "export $deadline=\"\${$deadline:-$((30000 * scale))}\""
  fi
}
