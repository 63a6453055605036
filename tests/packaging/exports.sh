#!/bin/sh
# Each library exports its entry point and nothing else (make test): a
# library loaded beside another of ours, or beside an application's own
# code, must not lend or borrow a symbol by name.  For widecol.so that is
# sqlite3_widecol_init; for widecol_<store>.so, sqlite3_widecol<store>_init
# (SQLite's name for the file's entry point).  The linker's own markers
# (_init, _fini, _edata, _end, __bss_start) are not ours.
#   sh tests/packaging/exports.sh widecol.so widecol_hbase.so ...
fail=0
for so in "$@"; do
  base=$(basename "$so" .so)
  want="sqlite3_$(printf '%s' "$base" | sed 's/^widecol_/widecol/')_init"
  if ! got=$(nm -D --defined-only "$so" 2>&1); then
    echo "exports: $so: nm failed: $got"; fail=1; continue
  fi
  names=$(printf '%s\n' "$got" | awk 'NF { print $NF }' |
          grep -vxE '_init|_fini|_edata|_end|__bss_start' | sort)
  if [ "$names" = "$want" ]; then
    echo "exports: $so exports $want alone: ok"
  else
    echo "exports: $so FAILED: it should export $want alone; it exports:"
    printf '%s\n' "$names" | head -20 | sed 's/^/  /'
    echo "  ($(printf '%s\n' "$names" | wc -l) names; compile with -fvisibility=hidden)"
    fail=1
  fi
done
exit $fail
