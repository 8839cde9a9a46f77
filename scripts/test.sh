#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the whole test suite:
# GoogleTest unit tests and lit tests, through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j2
