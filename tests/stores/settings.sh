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

# server_start NAME ENGINE: the engine of tests/servers/NAME.sh, started
# once for the run (its state in build/NAME-test unless WIDECOL_<NAME>_DIR
# names another place), what it prints exported, stopped by its PID at
# exit; $ready is how many seconds it took.  Where it cannot run here
# (no JDK 17, no Maven), the tests say they are skipped and why.
server_start() {
  upper=$(printf '%s' "$1" | tr a-z A-Z)
  if ! why=$(sh "tests/servers/$1.sh" check); then
    echo "$1 tests: SKIPPED: $why"
    exit 0
  fi
  eval "export WIDECOL_${upper}_DIR=\"\${WIDECOL_${upper}_DIR:-build/$1-test}\""
  started=$(date +%s)
  if ! env=$(sh "tests/servers/$1.sh" start); then
    echo "$1 tests: $2 did not start (tests/servers/$1.sh start, above)"
    exit 1
  fi
  trap "sh tests/servers/$1.sh stop" EXIT
  for line in $env; do export "$line"; done
  ready=$(( $(date +%s) - started ))
}
