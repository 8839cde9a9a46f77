#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the main job on the bundled
# example: build wordfreq with clang-22 -fmemory-profile, run it three times
# with different inputs, merge the three raw profiles, and show the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
OUT=out/example
rm -rf "$OUT" && mkdir -p "$OUT"
echo "== building examples/wordfreq with clang-22 -fmemory-profile"
clang++-22 -fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer \
  -O1 examples/wordfreq/wordfreq.cpp -o "$OUT/wordfreq"
for scale in 1 2 3; do
  echo "== run $scale"
  MEMPROF_OPTIONS="log_path=$OUT/run$scale" "$OUT/wordfreq" "$scale"
  mv "$OUT"/run$scale.* "$OUT/run$scale.memprofraw"
done
echo "== memprof-merge"
# The system libraries are searched by build id too, so allocations made
# inside libstdc++ and libc keep their frames.
build/bin/memprof-merge "$OUT"/run*.memprofraw --profiled-binary "$OUT/wordfreq" \
  --debug-dir /usr/lib/x86_64-linux-gnu -o "$OUT/wordfreq.profdata"
echo "== the merged profile, read back by llvm-profdata-22 (first 40 lines)"
llvm-profdata-22 show --memory "$OUT/wordfreq.profdata" > "$OUT/wordfreq.yaml"
sed -n 1,40p "$OUT/wordfreq.yaml"
echo "== memprof-show: the top contexts, named from the profile itself"
build/bin/memprof-show "$OUT/wordfreq.profdata" --top-contexts 3
echo "== clang-22 compiles with it: -fmemory-profile-use"
clang++-22 -O2 -fmemory-profile-use="$OUT/wordfreq.profdata" -c examples/wordfreq/wordfreq.cpp \
  -o "$OUT/wordfreq.o"
echo "done: $OUT/wordfreq.profdata"
