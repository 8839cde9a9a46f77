#!/usr/bin/env bash
# Why clang-22 -fmemory-profile finds more accesses than memprof on SQLite:
# two small programs whose true access counts are known, built with
# clang's instrumentation and with ours; prints the TotalAccessCount of
# their allocation sites under each (docs/PERFORMANCE.md, "Instrumentation").
#   stale.c: one block of SIZE bytes at a time, its last byte read 10 times,
#            then freed, 1000 times (the allocator hands the memory back)
#   sizes.c: 1000 live blocks of SIZE bytes, each read 10 times at offsets
#            0, 8, 16, ... (mod SIZE); then one reused block likewise
# Truth: 10,000 accesses per site. Needs a build of memprof (default build/).
#
#   bench/count-gap/run.sh [BUILD]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
OUT=$ROOT/bench/work/count-gap
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT"
F=(-O2 -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -fno-optimize-sibling-calls)
for p in stale sizes; do
  clang-22 "${F[@]}" -fmemory-profile "$HERE/$p.c" -o "$p-clang"
  clang-22 "${F[@]}" -fpass-plugin="$BUILD/lib/MemProfInstrument.so" "$HERE/$p.c" \
    -L"$BUILD/lib" -Wl,-u,memprof_init -l:libmemprof_rt.a -o "$p-ours"
done
sites() { python3 "$ROOT/lit-tests/instrument/Inputs/totals.py" "$2" "$1" | tr '\n' ' '; }
for p in stale sizes; do
  for s in 24 32 40 64 96 100 128 164 200 1000; do
    rm -f clang.*
    MEMPROF_OPTIONS=log_path=$OUT/clang ./"$p-clang" "$s" 1000
    MEMPROF_PROFILE_FILE=$OUT/ours.raw ./"$p-ours" "$s" 1000
    echo "$p size $s | clang: $(sites clang.* "$p-clang")| ours: $(sites ours.raw "$p-ours")"
  done
done
