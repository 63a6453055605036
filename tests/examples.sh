#!/bin/sh
# Every example script in sql/ runs to the end without an error.
# Run from the repository root after `make`.
status=0
for f in sql/*.sql; do
  if out=$(sqlite3 -bail :memory: < "$f" 2>&1) && ! printf '%s' "$out" | grep -q '^\(Error\|Parse error\|Runtime error\)'; then
    echo "example $f: ok"
  else
    echo "example $f FAILED:"
    printf '%s\n' "$out" | grep -i error | head -5
    status=1
  fi
done
exit $status
