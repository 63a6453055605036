#!/bin/sh
# The runner's self-test: it must fail exactly the records of
# tests/logic/selftest/must_fail.test that follow a "# must fail" comment.
# Usage: sh tests/logic/selftest.sh <path to slt>
slt=$1
file=tests/logic/selftest/must_fail.test
out=$("$slt" "$file")
want=$(awk '/^# must fail/ { print NR + 1 }' "$file")
got=$(printf '%s\n' "$out" | sed -n "s|^$file:\([0-9]*\): .*|\1|p")
nWant=$(printf '%s\n' "$want" | wc -l)
if [ "$got" != "$want" ]; then
  echo "runner self-test FAILED: records reported as failing differ from the marked ones"
  echo "marked lines:   " $want
  echo "reported lines: " $got
  printf '%s\n' "$out"
  exit 1
fi
if [ "$(printf '%s\n' "$out" | tail -n 1)" != "1 passed, $nWant failed" ]; then
  echo "runner self-test FAILED: expected '1 passed, $nWant failed'"
  printf '%s\n' "$out"
  exit 1
fi
echo "runner self-test: ok, all $nWant broken records caught"
