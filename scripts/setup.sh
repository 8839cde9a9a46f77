#!/usr/bin/env bash
# Installs every build and test dependency of memprof from Debian's packages.
# Idempotent: safe to run on a fresh machine and again on a prepared one.
set -euo pipefail

PKGS=(
  clang-22 llvm-22 llvm-22-dev llvm-22-tools libclang-rt-22-dev lld-22
  cmake ninja-build pkg-config ccache
  libzstd-dev libcli11-dev googletest libgtest-dev
  zlib1g-dev libxml2-dev libedit-dev libffi-dev libncurses-dev
  python3 python3-psutil python3-yaml file binutils
  heaptrack perl libjemalloc2 libjemalloc-dev g++
  libcurl4-openssl-dev debuginfod
  libprotobuf-dev protobuf-compiler golang-github-google-pprof-dev golang-go chromium
  python3-distributed
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all dependencies present"
