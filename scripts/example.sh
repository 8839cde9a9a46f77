#!/usr/bin/env bash
# Sets everything up on a fresh machine and runs the main job on the bundled
# example: install memprof into a prefix, build wordfreq instrumented through
# pkg-config (the pass plugin and the runtime), run it three times with
# different inputs, merge the three raw profiles, show the result and hand
# it to clang-22 -fmemory-profile-use.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
OUT=out/example
rm -rf "$OUT" && mkdir -p "$OUT"
echo "== installing memprof into $OUT/prefix"
cmake --install build --prefix "$OUT/prefix" >/dev/null
export PKG_CONFIG_PATH="$PWD/$OUT/prefix/lib/pkgconfig"
echo "== building examples/wordfreq: clang++-22 -O1 \$(pkg-config --cflags memprof) ... \$(pkg-config --libs memprof)"
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
clang++-22 -O1 $(pkg-config --cflags memprof) examples/wordfreq/wordfreq.cpp \
  $(pkg-config --libs memprof) -o "$OUT/wordfreq"
for scale in 1 2 3; do
  echo "== run $scale"
  MEMPROF_PROFILE_FILE="$OUT/run$scale.memprofraw" "$OUT/wordfreq" "$scale"
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
