#!/usr/bin/env bash
# Makes Debian's source packages reachable for the benchmarks: adds a
# deb-src entry for bookworm main (/etc/apt/sources.list.d/debian-src.sources)
# if none is there, and dpkg-dev, which unpacks them. Idempotent. Given a
# source package and a directory, also fetches the package there
# (apt-get source --download-only; apt-get update and again if that fails)
# unless its upstream tarball (PKG_*.orig.tar.*) is there already, and
# prints that tarball's path: sqlite-source.sh, leveldb-source.sh and
# jsoncpp-bench.sh get their sources this way.
#
#   bench/deb-src.sh [PKG DIR]
set -euo pipefail
[ $# -eq 0 ] || [ $# -eq 2 ] || { echo "usage: $0 [PKG DIR]" >&2; exit 2; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! command -v dpkg-source >/dev/null; then
  $SUDO apt-get update -qq >&2
  $SUDO apt-get install -y -qq --no-install-recommends dpkg-dev >/dev/null
fi
SRCLIST=/etc/apt/sources.list.d/debian-src.sources
if [ ! -e "$SRCLIST" ]; then
  printf 'deb-src: adding %s (deb-src for bookworm main)\n' "$SRCLIST" >&2
  $SUDO tee "$SRCLIST" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $SUDO apt-get update -qq >&2
fi

[ $# -eq 2 ] || exit 0
PKG=$1 DIR=$2
die() { printf 'deb-src: error: %s\n' "$*" >&2; exit 1; }
# The upstream tarball alone (PKG_VER.orig.tar.*), not a component tarball
# (PKG_VER.orig-www.tar.*, SQLite's documentation).
orig() {
  local f
  for f in "$DIR/${PKG}"_*.orig.tar.*; do
    [ -e "$f" ] && { echo "$f"; return; }
  done
}
mkdir -p "$DIR"
if [ -z "$(orig)" ]; then
  printf "deb-src: fetching Debian's %s source package\n" "$PKG" >&2
  (cd "$DIR" && { apt-get source --download-only "$PKG" ||
                  { $SUDO apt-get update -qq && apt-get source --download-only "$PKG"; }; }) \
    >"$DIR/fetch.log" 2>&1 || die "apt-get source $PKG failed (see $DIR/fetch.log)"
fi
TARBALL=$(orig)
[ -n "$TARBALL" ] || die "no ${PKG}_*.orig.tar.* in $DIR"
echo "$TARBALL"
