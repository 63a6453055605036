#!/bin/sh
# make report: runs each example of sql/ into a database of its own and
# writes widecol_report's page of every widecol table it makes, as
#   build/report/<example>.<table>.html
# plus the HBase blog's two payment keys side by side (sql/payments.sql).
# Open them in a browser.  Usage: sh sql/report.sh [extension] [directory]
set -eu
ext=${1:-./widecol}
out=${2:-build/report}
mkdir -p "$out"
for f in sql/*.sql; do
  name=$(basename "$f" .sql)
  # sql/advise.sql makes no widecol table: the advisor's designs are its
  # answer (the README shows how to report them).
  [ "$name" = advise ] && continue
  db="$out/$name.db"
  rm -f "$db"
  sqlite3 -bail "$db" < "$f" > /dev/null
  for t in $(sqlite3 "$db" "SELECT name FROM sqlite_schema WHERE type = 'table'
               AND sql LIKE 'CREATE VIRTUAL TABLE%USING widecol(%' ORDER BY name"); do
    page="$out/$name.$t.html"
    sqlite3 -bail "$db" ".load $ext" ".output $page" "SELECT widecol_report('$t')"
    echo "report: $page ($(wc -c < "$page") bytes)"
  done
done
page="$out/payments.compare.html"
sqlite3 -bail "$out/payments.db" ".load $ext" ".output $page" \
  "SELECT widecol_report('payments_by_customer', NULL, '{\"compare\": [\"payments_by_date\"]}')"
echo "report: $page ($(wc -c < "$page") bytes): the blog's two keys side by side"
