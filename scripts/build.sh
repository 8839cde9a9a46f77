#!/usr/bin/env bash
# Configures and builds memprof into build/ (after installing dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja ${MEMPROF_CMAKE_ARGS:-} >/dev/null
ninja -C build
