#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the main job on the bundled
# example: install memprof into a prefix, build wordfreq for both kinds of
# profile through pkg-config (clang's PGO counters, -fprofile-generate, beside
# memprof's pass and runtime), run it three times with different inputs, each
# run writing its .profraw and .memprofraw into a directory of its own, merge
# all of them with one memprof-merge call, show both parts and hand the one
# file to clang-22 -fprofile-use and -fmemory-profile-use (the flags
# memprof-show --use-flags prints for a file with both parts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
OUT=out/example
rm -rf "$OUT" && mkdir -p "$OUT"
echo "== installing memprof into $OUT/prefix"
cmake --install build --prefix "$OUT/prefix" >/dev/null
export PKG_CONFIG_PATH="$PWD/$OUT/prefix/lib/pkgconfig"
echo "== building examples/wordfreq: clang++-22 -O1 \$(pkg-config --cflags memprof-pgo) ... \$(pkg-config --libs memprof-pgo)"
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
clang++-22 -O1 $(pkg-config --cflags memprof-pgo) examples/wordfreq/wordfreq.cpp \
  $(pkg-config --libs memprof-pgo) -o "$OUT/wordfreq"
for scale in 1 2 3; do
  echo "== run $scale: $OUT/run$scale/<pid>.profraw and <pid>.memprofraw"
  mkdir "$OUT/run$scale"
  LLVM_PROFILE_FILE="$OUT/run$scale/%p.profraw" MEMPROF_PROFILE_FILE="$OUT/run$scale/%p.memprofraw" \
    "$OUT/wordfreq" "$scale"
done
echo "== memprof-merge: the counters and the heap profiles of the three runs, in one call"
# No binary named: the runtime recorded where wordfreq, libstdc++ and libc
# were loaded from, and each file is used when its build id is the one that
# ran, so allocations made inside libstdc++ and libc keep their frames.
build/bin/memprof-merge "$OUT"/run*/*.profraw "$OUT"/run*/*.memprofraw -o "$OUT/wordfreq.profdata"
echo "== the counters, read back by llvm-profdata-22"
llvm-profdata-22 show "$OUT/wordfreq.profdata"
echo "== the heap part, read back by llvm-profdata-22 (first 40 lines)"
llvm-profdata-22 show --memory "$OUT/wordfreq.profdata" > "$OUT/wordfreq.yaml"
sed -n 1,40p "$OUT/wordfreq.yaml"
echo "== memprof-show: both parts, the hottest functions and the top contexts, named from the profile itself"
build/bin/memprof-show "$OUT/wordfreq.profdata" --top-functions 5 --top-contexts 3
# What the file holds decides the flags: -fprofile-use for the counters,
# -fmemory-profile-use and the debug locations and names it matches
# allocation calls by (-gmlt -fdebug-info-for-profiling) for the heap part.
use_flags=$("$(pkg-config --variable=memprof_show memprof-pgo)" --use-flags "$OUT/wordfreq.profdata")
echo "== clang-22 compiles with it: clang++-22 -O2 \$(memprof-show --use-flags $OUT/wordfreq.profdata), which is"
echo "   $use_flags"
# shellcheck disable=SC2086 # the flags are split on purpose
clang++-22 -O2 $use_flags -S -emit-llvm examples/wordfreq/wordfreq.cpp -o "$OUT/wordfreq.ll"
# The allocation calls whose attribute group carries a "memprof" hint.
groups=$(sed -n 's/^attributes \(#[0-9]*\) = .*"memprof"=.*/\1/p' "$OUT/wordfreq.ll" | paste -sd'|')
echo "the IR: $(grep -c 'branch_weights' "$OUT/wordfreq.ll") branch weights from the counters," \
  "$(grep -cE "(call|invoke) .*\) (${groups:-#none})(,|\$)" "$OUT/wordfreq.ll" || true) allocation calls" \
  "with a memprof attribute from the heap part"
# shellcheck disable=SC2086
clang++-22 -O2 $use_flags examples/wordfreq/wordfreq.cpp -o "$OUT/wordfreq-optimized"
echo "done: $OUT/wordfreq.profdata, $OUT/wordfreq-optimized"
