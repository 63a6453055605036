#!/bin/sh
# A Bigtable table another application made, read in place (STORAGE
# BIGTABLE ... EXISTING): starts Google's Bigtable emulator on a free
# loopback port; makes the table `payments` with Google's cbt, family cf,
# and writes its rows as another application would, with `cbt import` and
# `cbt set` (the HBase blog's keys, '<customer, 6 digits>_<paid at>_<payment,
# 9 digits>', cells cf:amount and cf:mode as text, and one probe row whose
# key is of no such form); then runs sql/bigtable/existing.sql against it,
# and existing_write.sql, whose write is refused (exit 0: that is what it
# shows), and stops the emulator.  Run from the repository root after `make`, or
# installed: sh /usr/local/share/doc/widecol/sql/bigtable/existing.sh.
set -e
. "$(dirname "$0")/emulator.sh"
csv=$(mktemp)
db=$(mktemp)
trap 'kill $emulator_pid 2>/dev/null; rm -f "$csv" "$db"' EXIT
bt() { cbt -project demo -instance widecol "$@" 2>/dev/null; }
bt createtable payments
bt createfamily payments cf
# The HBase blog's payments, and a year of other customers', 20 a day.
cat > "$csv" <<'CSV'
,cf,
,amount,mode
000123_01-01-2017 09:00:00_012345678,10.5,card
000156_01-01-2017 09:00:30_012345679,20.0,cash
000129_01-01-2017 09:00:40_012345680,7.25,card
000163_01-01-2017 09:05:00_012345681,3.0,card
000023_01-01-2017 09:07:00_012345683,1.0,
CSV
awk 'BEGIN { for (i = 0; i < 7300; i++) {
  d = int(i / 20); printf "%06d_%02d-%02d-2018 %02d:%02d:00_%09d,%.2f,%s\n",
    (i * 7919) % 997 + 1000, d % 12 + 1, d % 28 + 1, i % 24, i % 60, 20000000 + i,
    (i % 500) / 4 + 1, (i % 3 ? "card" : "cash") } }' >> "$csv"
bt import payments "$csv" > /dev/null
bt set payments '000123_01-01-2017 16:06:30_012345682' cf:amount=99.0 cf:mode=wire
bt set payments healthcheck-probe cf:amount=0
echo "cbt read payments prefix=000123 (the table as another application wrote it):"
bt read payments prefix=000123 cells-per-column=1
echo
sqlite3 "$db" < "$(dirname "$0")/existing.sql"
echo
echo "A write is refused: the table is the other application's:"
if sqlite3 "$db" < "$(dirname "$0")/existing_write.sql"; then
  echo "existing.sh: the write to the EXISTING table was not refused" >&2
  exit 1
fi
