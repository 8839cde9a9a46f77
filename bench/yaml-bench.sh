#!/usr/bin/env bash
# An allocation-heavy real program (issue 36): yaml-cpp 0.7.0, from Debian's
# yaml-cpp source package, unmodified, built RelWithDebInfo with clang-22
# three ways (as jsoncpp-bench.sh does):
#   plain      no profiling
#   memprof    -DCMAKE_PROJECT_INCLUDE=.../MemProfInstrumentAll.cmake: the
#              pass in every target, the runtime linked into the executable
#   clang      clang-22's own -fmemory-profile (compile and link flags)
# Its own tool util/parse (YAML::Load of a document, then the emitter
# writes it back: about 2 M allocations) runs on a 0.9 MB document this
# script writes (deterministic). Paired rounds (bench/paired.py) of:
#   plain                the uninstrumented parse
#   memprof              instrumented, default options (memoized capture)
#   memprof-nomemo       the same with capture_memo=0 (every frame walked)
#   clang                -fmemory-profile
#   preload              plain parse, LD_PRELOAD=libmemprof_rt.so (hybrid)
#   preload-nomemo       the same with capture_memo=0
#   preload-fp           the same with unwind=fp (contexts end early)
#   heaptrack            heaptrack -o on the plain parse
# then a few rounds of each for its peak RSS (bench/measure.py). A
# benchmark, not a test: it prints the figures of one run into
# WORK/results.md and fails only if something cannot run.
#
#   bench/yaml-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK    work directory (default bench/work/yaml-cpp)
#   MEMPROF_BENCH_ROUNDS  paired rounds (default 11)
#   MEMPROF_BENCH_BUILD   our build directory, installed into WORK/prefix
#                         (default build)
#   MEMPROF_BENCH_KEEP    1: keep the plain and clang builds of an earlier run
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/yaml-cpp}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-11}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build}
log() { printf 'yaml-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
command -v heaptrack >/dev/null || die "heaptrack missing (scripts/setup.sh installs it)"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

CCACHE_NOHASHDIR=true nice ninja -j2 -C "$BUILD" >&2
PREFIX=$WORK/prefix
rm -rf "$PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
RT=$PREFIX/lib/libmemprof_rt.so

TARBALL=$(bash "$ROOT/bench/deb-src.sh" yaml-cpp "$WORK")
SRC=$WORK/src
rm -rf "$SRC" && mkdir -p "$SRC"
tar -xf "$TARBALL" -C "$SRC" --strip-components=1
log "source: $(basename "$TARBALL") (unmodified)"

COMMON=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-22
        -DCMAKE_CXX_COMPILER=clang++-22 -DYAML_CPP_BUILD_TESTS=OFF
        -DYAML_CPP_BUILD_TOOLS=ON)
CLANG_DIR=$WORK/clang-profiles
declare -A CONFIG=(
  [plain]=""
  [memprof]="-DCMAKE_PROJECT_INCLUDE=$PREFIX/lib/cmake/MemProf/MemProfInstrumentAll.cmake"
  [clang]="-DCMAKE_CXX_FLAGS=-fmemory-profile=$CLANG_DIR -DCMAKE_EXE_LINKER_FLAGS=-fmemory-profile=$CLANG_DIR"
)
declare -A PARSE
for K in plain memprof clang; do
  B=$WORK/build-$K
  PARSE[$K]=$(find "$B" -name parse -type f -perm -u+x 2>/dev/null | head -1 || true)
  # MEMPROF_BENCH_KEEP=1: the plain and clang builds of an earlier run are
  # kept (the memprof one links our runtime: always built anew).
  if [ "${MEMPROF_BENCH_KEEP:-0}" = 1 ] && [ "$K" != memprof ] && [ -x "${PARSE[$K]}" ]; then
    continue
  fi
  rm -rf "$B"
  # shellcheck disable=SC2086 # the configuration's flags are split on purpose
  cmake -S "$SRC" -B "$B" "${COMMON[@]}" ${CONFIG[$K]} >"$WORK/$K-cmake.log" 2>&1 ||
    die "$K: cmake failed (see $WORK/$K-cmake.log)"
  nice ninja -j2 -C "$B" yaml-cpp-parse >"$WORK/$K-ninja.log" 2>&1 ||
    die "$K: build failed (see $WORK/$K-ninja.log)"
  PARSE[$K]=$(find "$B" -name parse -type f -perm -u+x | head -1)
  [ -x "${PARSE[$K]}" ] || die "$K: no util/parse built"
done

# The document: 0.9 MB of nested maps, sequences and scalars.
DOC=$WORK/doc.yaml
python3 - "$DOC" <<'PY'
import random, sys
r = random.Random(36)
words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
         "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi"]
out = []
i = 0
while sum(map(len, out)) < 900_000:
    out.append(f"- id: {i}\n  name: {r.choice(words)}-{r.randrange(10**6)}\n"
               f"  tags: [{', '.join(r.sample(words, 4))}]\n"
               f"  weight: {r.random():.6f}\n  attributes:\n")
    for k in range(r.randrange(2, 6)):
        out.append(f"    {r.choice(words)}{k}: \"{' '.join(r.sample(words, 3))}\"\n")
    out.append("  history:\n")
    for k in range(r.randrange(1, 4)):
        out.append(f"    - {{when: {2000 + k}, what: {r.choice(words)}}}\n")
    i += 1
open(sys.argv[1], "w").write("".join(out))
PY
log "document: $(wc -c <"$DOC") bytes"

OUT=$WORK/out
rm -rf "$OUT" && mkdir -p "$OUT" "$CLANG_DIR"
SPEC=$WORK/spec.txt
q() { printf '%q ' "$@"; echo; }
{
  q plain sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[plain]}" "$DOC"
  q memprof env MEMPROF_PROFILE_FILE="$OUT/m.%p.memprofraw" sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[memprof]}" "$DOC"
  q memprof-nomemo env MEMPROF_RT_OPTIONS=capture_memo=0 MEMPROF_PROFILE_FILE="$OUT/mn.%p.memprofraw" sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[memprof]}" "$DOC"
  q clang env MEMPROF_OPTIONS="log_path=$OUT/clang" sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[clang]}" "$DOC"
  q preload env LD_PRELOAD="$RT" MEMPROF_PROFILE_FILE="$OUT/p.%p.memprofraw" sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[plain]}" "$DOC"
  q preload-nomemo env LD_PRELOAD="$RT" MEMPROF_RT_OPTIONS=capture_memo=0 MEMPROF_PROFILE_FILE="$OUT/pn.%p.memprofraw" sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[plain]}" "$DOC"
  q preload-fp env LD_PRELOAD="$RT" MEMPROF_RT_OPTIONS=unwind=fp MEMPROF_PROFILE_FILE="$OUT/pf.%p.memprofraw" sh -c "exec \"\$0\" \"\$1\" >/dev/null" "${PARSE[plain]}" "$DOC"
  q heaptrack heaptrack -o "$OUT/heaptrack" "${PARSE[plain]}" "$DOC"
} >"$SPEC"
# The contexts are complete with and without the memo, and the same:
# capture_check=1 walks every context in full as well and compares.
env MEMPROF_RT_OPTIONS=capture_check=1 MEMPROF_PROFILE_FILE="$OUT/check.memprofraw" \
  "${PARSE[memprof]}" "$DOC" 2>"$WORK/check-memprof.txt" >/dev/null
env LD_PRELOAD="$RT" MEMPROF_RT_OPTIONS=capture_check=1 MEMPROF_PROFILE_FILE="$OUT/check.memprofraw" \
  "${PARSE[plain]}" "$DOC" 2>"$WORK/check-preload.txt" >/dev/null
grep -q " 0 mismatches" "$WORK/check-memprof.txt" || die "capture_check: $(cat "$WORK/check-memprof.txt")"
grep -q " 0 mismatches" "$WORK/check-preload.txt" || die "capture_check: $(cat "$WORK/check-preload.txt")"

log "paired rounds: $ROUNDS"
python3 "$ROOT/bench/paired.py" "$ROUNDS" "$OUT" <"$SPEC" >"$WORK/paired.txt"
# Peak RSS: three rounds each, the largest.
python3 "$ROOT/bench/measure.py" 3 "$OUT" <"$SPEC" >"$WORK/rss.txt"
rm -f "$OUT"/*.memprofraw "$OUT"/heaptrack* "$OUT"/clang*

PLAIN_RSS=$(awk '$1 == "plain" {print $4}' "$WORK/rss.txt")
{
  echo "# yaml-cpp util/parse ($(basename "$TARBALL"), RelWithDebInfo, clang-22) on a $(wc -c <"$DOC")-byte document, $ROUNDS paired rounds, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| run | CPU vs plain | wall vs plain | peak RSS (MB) | RSS vs plain |"
  echo "|---|---|---|---|---|"
  while read -r NAME _ CPU _ WALL _ _; do
    [ "$NAME" = plain ] && continue
    RSS=$(awk -v n="$NAME" '$1 == n {print $4}' "$WORK/rss.txt")
    printf '| %s | %s | %s | %.0f | %.2f |\n' "$NAME" "$CPU" "$WALL" \
      "$(echo "$RSS / 1024" | bc -l)" "$(echo "$RSS / $PLAIN_RSS" | bc -l)"
  done <"$WORK/paired.txt"
  echo
  echo "plain: $(grep '^plain' "$WORK/paired.txt"), peak RSS $((PLAIN_RSS / 1024)) MB"
  echo
  echo "capture_check=1 (instrumented): $(cat "$WORK/check-memprof.txt")"
  echo
  echo "capture_check=1 (preloaded): $(cat "$WORK/check-preload.txt")"
} >"$WORK/results.md"
cat "$WORK/results.md"
