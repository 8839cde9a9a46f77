#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the whole test suite:
# GoogleTest unit tests, the fuzz corpora replayed, and the lit tests, through
# ctest. With --sanitizers the same suite runs against an ASan+UBSan build
# (in build-asan/).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build
args=()
if [ "${1:-}" = "--sanitizers" ]; then
  dir=build-asan
  args=(-DMEMPROF_ENABLE_SANITIZERS=ON)
fi
bash scripts/setup.sh
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
ninja -C "$dir"
ctest --test-dir "$dir" --output-on-failure -j2
