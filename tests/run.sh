#!/bin/bash
# The runner of make test, make check, make check-stores and
# make check-packaging: every step of the groups named runs even when
# another failed, and the last line is always the count,
# "N passed, N failed" (exit 1 if any failed).
#
#   bash tests/run.sh [packaging] [stores] [core]
#
# A step's count is the sum of its own count lines ("N passed, N failed",
# alone or after "name: "), or one passed or failed by its exit code; a
# step that exits non-zero counts at least one failure whatever it
# printed.  A step that runs past its deadline ($STEP_SECONDS, 1800) is
# stopped and counted failed; so is one that prints a Python traceback.
# Each step's output is kept in build/steps/<name>.log.  The Makefile
# passes what the steps need from it: LAYER_OBJS (the objects the layers
# check reads), FUZZ_TARGETS, DIFF_CASES, TESTS, BT_SO (widecol_bigtable.so
# where it was built).
cd "$(dirname "$0")/.." || exit 1
mkdir -p build/steps
: > build/steps/counts
deadline=${STEP_SECONDS:-1800}

# count NAME RC SECONDS: the step's count, from its log, appended to the
# table the summary prints.
count() {
  local name=$1 rc=$2 secs=$3 log=build/steps/$1.log pass=0 fail=0 lines
  lines=$(grep -E '(^|: )[0-9]+ passed, [0-9]+ failed$' "$log" |
          sed -E 's/.*(^|: )([0-9]+) passed, ([0-9]+) failed$/\2 \3/')
  if [ -n "$lines" ]; then
    while read -r p f; do pass=$((pass + p)); fail=$((fail + f)); done <<< "$lines"
  elif [ "$rc" = 0 ]; then
    pass=1
  fi
  if grep -q '^Traceback (most recent call last)' "$log"; then
    echo "$name: a Python traceback (above): FAILED"
    [ "$rc" = 0 ] && rc=1
  fi
  [ "$rc" = 124 ] && echo "$name: stopped after its deadline of $deadline s: FAILED"
  [ "$rc" != 0 ] && [ "$fail" = 0 ] && fail=1
  echo "$name $pass $fail $secs" >> build/steps/counts
}

# step NAME COMMAND...: runs it, its output shown as it comes.
step() {
  local name=$1 start rc
  shift
  start=$(date +%s)
  timeout --kill-after=60 "$deadline" "$@" 2>&1 | tee "build/steps/$name.log"
  rc=${PIPESTATUS[0]}
  count "$name" "$rc" $(( $(date +%s) - start ))
}

# step_beside NAME COMMAND...: runs it in the background, its output kept
# until steps_wait shows it (the HBase tests wait on a JVM while others
# run).
beside=()
step_beside() {
  local name=$1
  shift
  ( start=$(date +%s)
    timeout --kill-after=60 "$deadline" "$@" > "build/steps/$name.log" 2>&1
    echo "$? $(( $(date +%s) - start ))" > "build/steps/$name.rc" ) &
  beside+=("$name")
}

steps_wait() {
  local name
  wait
  for name in "${beside[@]}"; do
    cat "build/steps/$name.log"
    count "$name" $(cat "build/steps/$name.rc")
  done
  beside=()
}

py=/usr/bin/python3

packaging() {
  # shellcheck disable=SC2086
  step exports sh tests/packaging/exports.sh widecol.so $BT_SO widecol_hbase.so \
    widecol_cassandra.so
  step embed ./examples/embed
  step install sh tests/packaging/install_check.sh
  step dist sh tests/packaging/dist_check.sh
  # The README quotes its figures (docs_check.py reads build/compare.out).
  step compare sh -c "$py bench/compare.py --rows 1000000 --repeat 1 \
    --svg build/regions.svg > build/compare.out; rc=\$?; cat build/compare.out; exit \$rc"
  step docs $py tests/packaging/docs_check.py --extension ./widecol
  step examples sh tests/packaging/examples.sh
}

stores() {
  step_beside hbase sh tests/stores/hbase/run.sh
  step bigtable sh tests/stores/bigtable/run.sh
  step cassandra sh tests/stores/cassandra/run.sh
  steps_wait
  step loading sh tests/stores/load_check.sh
}

core() {
  local h t
  step layers-selftest $py tests/layers.py --selftest
  # shellcheck disable=SC2086
  step layers $py tests/layers.py $LAYER_OBJS
  step slt-selftest sh tests/logic/selftest.sh build/slt
  step differential $py tests/harness/differential.py --extension ./widecol \
    --cases "${DIFF_CASES:-40}"
  step crash $py tests/harness/crash.py --extension ./widecol --iterations 4
  for h in check_versions token_check cql_check concurrency plans lint_fixes \
           fixes_final advise_check one_voice progress_check report_check; do
    step "$h" $py "tests/harness/$h.py" --extension ./widecol
  done
  step report-browser $py tests/harness/report_browser.py --extension ./widecol \
    --screenshot build/report.png
  for t in $FUZZ_TARGETS; do
    step "replay-$t" "build/replay/$t" "tests/fuzz/corpus/$t"
  done
  # shellcheck disable=SC2086
  step slt build/slt --defensive --extension ./widecol.so ${TESTS:-tests/logic/*.test}
}

for group in "$@"; do
  case $group in
    packaging|stores|core) "$group" ;;
    *) echo "tests/run.sh: no group '$group' (packaging, stores, core)"; exit 2 ;;
  esac
done

echo
echo "steps (passed failed seconds):"
awk '{ printf "  %-18s %6d %4d %6d%s\n", $1, $2, $3, $4, ($3 ? "  FAILED" : "") }' \
  build/steps/counts
# The count, kept in build/steps/summary too (.ci/run says it last, after
# make's own line for a failed recipe).
awk '{ p += $2; f += $3 } END { printf "%d passed, %d failed\n", p, f }' \
  build/steps/counts | tee build/steps/summary
awk '{ f += $3 } END { exit (f > 0) }' build/steps/counts
