#!/bin/sh
# make dist: the tarball unpacks into widecol-<version>/, builds there with
# no warnings (without gRPC: the core alone), and its sqllogictest scripts
# pass there, away from the checkout (nothing in it reaches outside its
# own tree).  Run from the repository root, in a git checkout.
set -u
# The release tarball is made from a checkout; unpacked, it is checked by
# running its own tests, not by making another.
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "dist check: SKIPPED: not a git checkout (make dist archives a checkout's HEAD)"
  exit 0
fi
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
# Built as where gRPC is not installed (pkg-config finds nothing): the
# core is built, the Bigtable store skipped with a line saying how to get
# it.  (`make distcheck` runs the tarball's whole make test.)
if ! PKG_CONFIG_LIBDIR=/nonexistent make -s all build/slt >build.log 2>&1 \
   || grep -q 'warning:' build.log || [ ! -f widecol.so ] || [ ! -f libwidecol.a ]; then
  cat build.log
  echo "dist check: the unpacked tree does not build cleanly without gRPC: FAILED"
  exit 1
fi
if [ -f widecol_bigtable.so ] || ! grep -q "widecol_bigtable.so, the Bigtable store, was skipped: it needs gRPC's C core, protobuf-c and protoc-c" build.log; then
  cat build.log
  echo "dist check: without gRPC, make did not say it skipped the Bigtable store: FAILED"
  exit 1
fi
echo "dist check: without gRPC, make builds widecol.so and libwidecol.a and says how to get the Bigtable store: ok"
out=$(build/slt --defensive --extension ./widecol.so tests/logic/*.test 2>&1 | tail -1)
case "$out" in
  *" passed, 0 failed") echo "dist check: $tarball builds and its tests pass unpacked ($out)" ;;
  *) echo "dist check: $tarball's tests unpacked: $out: FAILED"; exit 1 ;;
esac
