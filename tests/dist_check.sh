#!/bin/sh
# make dist: the tarball unpacks into widecol-<version>/, builds there with
# no warnings, and its sqllogictest scripts pass there, away from the
# checkout (nothing in it reaches outside its own tree).  Run from the
# repository root, in a git checkout.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^#define WIDECOL_VERSION "\(.*\)"/\1/p' ext/widecol.h)
tarball=widecol-$version.tar.gz
if ! make -s dist >/dev/null 2>&1 || [ ! -f "$tarball" ]; then
  echo "dist check: make dist made no $tarball: FAILED"
  exit 1
fi
tar -xzf "$tarball" -C "$tmp" && rm -f "$tarball"
cd "$tmp/widecol-$version" || { echo "dist check: no widecol-$version/: FAILED"; exit 1; }
if ! make -s widecol.so tests/slt >build.log 2>&1 || grep -q 'warning:' build.log; then
  cat build.log
  echo "dist check: the unpacked tree does not build cleanly: FAILED"
  exit 1
fi
out=$(tests/slt --defensive --extension ./widecol.so tests/*.test 2>&1 | tail -1)
case "$out" in
  *" passed, 0 failed") echo "dist check: $tarball builds and its tests pass unpacked ($out)" ;;
  *) echo "dist check: $tarball's tests unpacked: $out: FAILED"; exit 1 ;;
esac
