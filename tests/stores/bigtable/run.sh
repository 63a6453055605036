#!/bin/sh
# The Bigtable store's tests (make test): starts Google's Bigtable emulator
# on a free loopback port, runs the sqllogictest scripts of this folder
# with both libraries loaded, the cbt and error checks of check.py, the
# EXISTING tables of existing.py, the several-writer and fault cases of
# reliability.py, the demo, and the differential test on the Bigtable
# store (under injected connection faults, with races of two writer
# processes), then stops the emulator.  Without the emulator (package
# google-cloud-cli-bigtable-emulator) or cbt (google-cloud-cli-cbt) the
# tests report themselves skipped, with the reason.  Run from the
# repository root after `make`; it takes the settings of
# tests/stores/settings.sh (`make asan` runs the scripts and the
# differential test alone, under the sanitizers).
. tests/stores/settings.sh
if [ ! -f "$lib/widecol_bigtable.so" ]; then
  echo "bigtable tests: SKIPPED: $lib/widecol_bigtable.so was not built (it needs gRPC, protobuf-c and protoc-c: apt-get install libgrpc-dev libprotobuf-c-dev protobuf-c-compiler)"
  exit 0
fi
emulator=$(command -v cbtemulator 2>/dev/null || \
  dpkg -L google-cloud-cli-bigtable-emulator 2>/dev/null | grep '/cbtemulator$' | head -n 1)
if [ -z "$emulator" ] || [ ! -x "$emulator" ]; then
  echo "bigtable tests: SKIPPED: no cbtemulator (apt-get install google-cloud-cli-bigtable-emulator)"
  exit 0
fi
if ! command -v cbt >/dev/null 2>&1; then
  echo "bigtable tests: SKIPPED: no cbt (apt-get install google-cloud-cli-cbt)"
  exit 0
fi

port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
log=$(mktemp)
"$emulator" -host 127.0.0.1 -port "$port" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
/usr/bin/python3 - "$port" <<'PY' || { echo "bigtable tests: the emulator did not start:"; cat "$log"; exit 1; }
import socket, sys, time
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.05)
sys.exit(1)
PY
export BIGTABLE_EMULATOR_HOST=127.0.0.1:$port
echo "bigtable tests: the emulator $emulator on $BIGTABLE_EMULATOR_HOST"

status=0
"$slt" --defensive --extension "$lib/widecol.so" --extension "$lib/widecol_bigtable.so" \
  tests/stores/bigtable/*.test || status=1
if [ -n "$STORE_SCRIPTS_ONLY" ]; then
  # make asan: the differential test on Bigtable under the sanitizers,
  # preloaded into python3 (it finalizes statements after use, so that
  # what widecol keeps of one cannot outlive it unnoticed).
  LD_PRELOAD="$STORE_PRELOAD" ASAN_OPTIONS=detect_leaks=0 /usr/bin/python3 \
    tests/harness/differential.py --extension "$lib/widecol" --bigtable "$lib/widecol_bigtable" \
    --cases "${STORE_DIFF_CASES:-40}" || status=1
  exit $status
fi
/usr/bin/python3 tests/stores/bigtable/check.py --emulator "$emulator" || status=1
# EXISTING tables, made and judged by Google's Python client
# (google-cloud-bigtable), which .ci/run installs into a Python of its own.
py=${WIDECOL_PY:-/opt/widecol-py/bin/python}
if [ -x "$py" ] && "$py" -c 'import google.cloud.bigtable' 2>/dev/null; then
  "$py" tests/stores/bigtable/existing.py --extension "$lib/widecol" \
    --bigtable "$lib/widecol_bigtable" || status=1
else
  echo "bigtable existing: SKIPPED: $py has no google-cloud-bigtable (make pyclient installs it)"
fi
# The README's script (its own emulator): the blog's two answers.
out=$(sh sql/bigtable/demo.sh 2>&1)
if printf '%s' "$out" | grep -q '| 000123_01-01-2017 16:06:30_012345682 | 99.0   | wire |' &&
   printf '%s' "$out" | grep -q '| 01-01-2017 09:07:00_000023_012345683 | 23 ' &&
   printf '%s' "$out" | grep -q '^000123_01-01-2017 09:00:00_012345678$'; then
  echo "bigtable demo: ok"
else
  echo "bigtable demo FAILED:"; printf '%s\n' "$out" | tail -20; status=1
fi
# The EXISTING example (its own emulator): a table made by cbt import
# and cbt set, read in place.  5 rows imported by hand, 7,300 made by
# awk and 1 set have keys of the design; the probe's does not, and is
# counted, listed and skipped; a cell the CSV left empty is NULL.
# It runs as written and exits 0; its refused write is shown, not failed.
out=$(sh sql/bigtable/existing.sh 2>&1); rc=$?
if [ $rc = 0 ] && printf '%s' "$out" | grep -qF "A write is refused: the table is the other application's:" &&
   printf '%s' "$out" | grep -qF 'add WRITABLE after EXISTING' &&
   printf '%s' "$out" | grep -qF '│ 123         │ 01-01-2017 16:06:30 │ 12345682   │ 99.0   │ wire │' &&
   printf '%s' "$out" | grep -qF '│      │ null │ 1        │ 1.0   │' &&
   printf '%s' "$out" | grep -qF '│ 7306     │ 1           │' &&
   printf '%s' "$out" | grep -qF '1 of the 7307 rows has a key that is no key of the' &&
   printf '%s' "$out" | grep -qF '│ warning  │ date-order │' &&
   printf '%s' "$out" | grep -qF 'opened read only (STORAGE ... EXISTING)' &&
   printf '%s' "$out" | grep -qF '│ 01-01-2017 09:07:00 │ 23          │ 1.0    │      │'; then
  echo "bigtable existing example: ok"
else
  echo "bigtable existing example FAILED (exit $rc):"; printf '%s\n' "$out" | tail -30; status=1
fi
# Several writers, transactions and faults, each case against cbt and
# widecol_check (its own emulator, which it stops, kills and restarts).
timeout 900 /usr/bin/python3 tests/stores/bigtable/reliability.py --emulator "$emulator" \
  --extension "$lib/widecol" --bigtable "$lib/widecol_bigtable" || status=1
# The differential test with a connection to Bigtable severed about once
# a second and one in a hundred of the server's answers lost, and races
# of two writer processes.
# Many-way joins read what the local plan reads (tests/stores/joins.py).
/usr/bin/python3 tests/stores/joins.py --extension "$lib/widecol" --store "$lib/widecol_bigtable" \
  --storage "STORAGE BIGTABLE 'projects/joins/instances/widecol/tables/{name}'" || status=1
/usr/bin/python3 tests/harness/differential.py --extension "$lib/widecol" \
  --bigtable "$lib/widecol_bigtable" --cases "${STORE_DIFF_CASES:-40}" \
  --race 4 --faults 1 --lose 0.01 || status=1
exit $status
