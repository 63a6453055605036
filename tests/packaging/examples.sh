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
# What a script's text says of its output, worked out apart from widecol:
# user 42's likes are at x = 6m with 6m * 7919 % 2999 = 42, of item
# m * 131 % 499, at 1364248490 + x; the newest three are items 5, 348, 192
# (three items: a user likes an item once).
out=$(sqlite3 -bail :memory: < sql/cassandra_likes.sql 2>&1)
if printf '%s\n' "$out" | grep -A7 'The three items user 42 liked last' | tr -d ' ' |
   grep -c '^|\(5|item5|1364358674\|348|item348|1364340680\|192|item192|1364322686\)|$' |
   grep -qx 3; then
  echo "example sql/cassandra_likes.sql: the three items user 42 liked last: ok"
else
  echo "example sql/cassandra_likes.sql: the three items user 42 liked last are not items 5, 348, 192"
  status=1
fi
exit $status
