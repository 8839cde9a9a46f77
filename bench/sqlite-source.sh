#!/usr/bin/env bash
# SQLite's amalgamation for the benchmarks, from Debian's sqlite3 source
# package: makes WORK/sqlite (sqlite3.c, sqlite3.h, test/speedtest1.c) unless
# it is there already, built from the package's orig tarball, and prints
# that tarball's name. Installs what it needs from Debian (tcl, make, xz, and
# through deb-src.sh a deb-src entry for bookworm main if none is configured).
#
#   bench/sqlite-source.sh WORK
#
# Used by merge-bench.sh, pass-bench.sh and runtime-bench.sh, so that each
# of them works on a fresh machine, in any order.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 WORK" >&2; exit 2; }
WORK=$1
log() { printf 'sqlite-source: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

need=()
command -v tclsh >/dev/null || need+=(tcl)
command -v make >/dev/null || need+=(make)
command -v xz >/dev/null || need+=(xz-utils)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

TARBALL=$(bash "$(dirname "$0")/deb-src.sh" sqlite3 "$WORK/src")

# The tree is remade when the tarball changes (or a build was cut short).
STAMP=$(basename "$TARBALL")
if [ ! -s "$WORK/sqlite/sqlite3.c" ] || [ "$(cat "$WORK/sqlite.stamp" 2>/dev/null)" != "$STAMP" ]; then
  rm -rf "$WORK/sqlite" "$WORK/sqlite.stamp"
  mkdir -p "$WORK/sqlite"
  log "building the SQLite amalgamation from $STAMP"
  tar -xJf "$TARBALL" -C "$WORK/sqlite" --strip-components=1
  (cd "$WORK/sqlite" && ./configure && make sqlite3.c) >"$WORK/sqlite.log" 2>&1 ||
    die "SQLite configure/make sqlite3.c failed (see $WORK/sqlite.log)"
  echo "$STAMP" >"$WORK/sqlite.stamp"
fi
echo "$STAMP"
