#!/usr/bin/env bash
# Makes Debian's source packages reachable for the benchmarks: adds a
# deb-src entry for bookworm main (/etc/apt/sources.list.d/debian-src.sources)
# if none is there, and dpkg-dev, which unpacks them. Idempotent.
#
#   bench/deb-src.sh
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! command -v dpkg-source >/dev/null; then
  $SUDO apt-get update -qq
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
  $SUDO apt-get update -qq
fi
