#!/usr/bin/env bash
# What libmemprof_hotcold costs hot requests: bench/hotcold-alloc.cpp's
# new/delete loop linked with the library (plain new, hot- and notcold-hinted
# new, the cold path, and hot hints with MEMPROF_HOTCOLD=ignore_hints=1) against
# Debian's jemalloc (libjemalloc.so.2, its own operator new) and glibc, in
# paired rounds (bench/paired.py; baseline: jemalloc). A benchmark, not a test:
# it prints one run's figures into $WORK/results.md.
#
#   bench/hotcold-bench.sh [BUILD_DIR]
#
# Environment:
#   MEMPROF_BENCH_WORK     work directory (default bench/work/hotcold)
#   MEMPROF_BENCH_ROUNDS   paired rounds (default 15)
#   MEMPROF_BENCH_THREADS  threads (default 1)
#   MEMPROF_BENCH_ITERS    iterations per thread (default 5000000)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/hotcold}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-15}
THREADS=${MEMPROF_BENCH_THREADS:-1}
ITERS=${MEMPROF_BENCH_ITERS:-5000000}
LIBDIR=$BUILD/lib/HotColdAllocator
[ -e "$LIBDIR/libmemprof_hotcold.so" ] || { echo "hotcold-bench: error: $LIBDIR/libmemprof_hotcold.so: not built" >&2; exit 1; }
mkdir -p "$WORK/logs"
CXX=${CXX:-clang++-22}
SRC=$ROOT/bench/hotcold-alloc.cpp
FLAGS=(-O2 -std=c++17 -pthread)
$CXX "${FLAGS[@]}" "$SRC" -o "$WORK/alloc-glibc"
$CXX "${FLAGS[@]}" "$SRC" -o "$WORK/alloc-jemalloc" -Wl,--no-as-needed -ljemalloc
$CXX "${FLAGS[@]}" -DMEMPROF_HOTCOLD -I"$ROOT/include" "$SRC" -o "$WORK/alloc-hotcold" \
  -L"$LIBDIR" -lmemprof_hotcold -Wl,-rpath,"$LIBDIR"

A="$THREADS $ITERS"
{
  echo "jemalloc env MEMPROF_HOTCOLD= $WORK/alloc-jemalloc plain $A"
  echo "glibc env MEMPROF_HOTCOLD= $WORK/alloc-glibc plain $A"
  echo "hotcold-plain env MEMPROF_HOTCOLD= $WORK/alloc-hotcold plain $A"
  echo "hotcold-hot env MEMPROF_HOTCOLD= $WORK/alloc-hotcold hot $A"
  echo "hotcold-notcold env MEMPROF_HOTCOLD= $WORK/alloc-hotcold notcold $A"
  echo "hotcold-hot-ignored env MEMPROF_HOTCOLD=ignore_hints=1 $WORK/alloc-hotcold hot $A"
  echo "hotcold-cold env MEMPROF_HOTCOLD= $WORK/alloc-hotcold cold $A"
} > "$WORK/spec"
{
  echo "# hotcold-bench: $ROUNDS paired rounds, $THREADS thread(s), $ITERS iterations each, $(git -C "$ROOT" rev-parse --short HEAD)"
  python3 "$ROOT/bench/paired.py" "$ROUNDS" "$WORK/logs" < "$WORK/spec"
} | tee "$WORK/results.md"
