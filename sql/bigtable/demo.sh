#!/bin/sh
# Starts Google's Bigtable emulator on a free loopback port, runs
# sql/bigtable/payments.sql against it (the payments design created on
# Bigtable, the local rows copied over, the HBase blog's two scans read back),
# shows the rows as Google's cbt reads them, and stops the emulator.
# Run from the repository root after `make` (`make bigtable-demo`), or
# installed: sh /usr/local/share/doc/widecol/sql/bigtable/demo.sh.
set -e
emulator=$(command -v cbtemulator 2>/dev/null || \
  dpkg -L google-cloud-cli-bigtable-emulator 2>/dev/null | grep '/cbtemulator$' | head -n 1)
if [ -z "$emulator" ]; then
  echo "no cbtemulator: apt-get install google-cloud-cli-bigtable-emulator google-cloud-cli-cbt" >&2
  exit 1
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$emulator" -host 127.0.0.1 -port "$port" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
export BIGTABLE_EMULATOR_HOST=127.0.0.1:$port
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  cbt -project demo -instance widecol ls >/dev/null 2>&1 && break
  sleep 0.25
done
echo "Bigtable emulator on $BIGTABLE_EMULATOR_HOST"
sqlite3 -bail :memory: < "$(dirname "$0")/payments.sql"
echo
echo "cbt -project demo -instance widecol read payments prefix=000123 (Google's own client):"
cbt -project demo -instance widecol read payments prefix=000123 cells-per-column=1 2>/dev/null
