#!/bin/sh
# Starts Google's Bigtable emulator on a free loopback port, runs
# sql/bigtable/payments.sql against it (the payments design created on
# Bigtable, the local rows copied over, the HBase blog's two scans read back),
# shows the rows as Google's cbt reads them, and stops the emulator.
# Run from the repository root after `make` (`make bigtable-demo`), or
# installed: sh /usr/local/share/doc/widecol/sql/bigtable/demo.sh.
set -e
. "$(dirname "$0")/emulator.sh"
sqlite3 -bail :memory: < "$(dirname "$0")/payments.sql"
echo
echo "cbt -project demo -instance widecol read payments prefix=000123 (Google's own client):"
cbt -project demo -instance widecol read payments prefix=000123 cells-per-column=1 2>/dev/null
