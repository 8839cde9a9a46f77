#!/usr/bin/env bash
# A third-party CMake project instrumented without editing it: jsoncpp, from
# Debian's libjsoncpp source package, built three ways with clang-22 -O2:
#   plain      no profiling
#   memprof    -DCMAKE_PROJECT_INCLUDE=.../MemProfInstrumentAll.cmake: the
#              pass in every target, the runtime in every executable (the
#              library, libjsoncpp.so, carries none)
#   clang      clang-22's own -fmemory-profile (compile and link flags)
# and its test suite (ctest: the unit tests and the reader/writer tests,
# some 250 processes) run on each. A benchmark, not a test: it prints the
# figures of one run into WORK/results.md and fails only if something
# cannot run or a test fails.
#
#   bench/jsoncpp-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK   work directory (default bench/work/jsoncpp)
#   MEMPROF_BENCH_REPS   rounds of each test suite; the best time is kept
#                        (default 3)
set -euo pipefail
# Every run symbolizes afresh, as these figures always have (and nothing is
# written to ~/.cache): bench/symcache-bench.sh measures the symbol cache.
export MEMPROF_SYMBOL_CACHE=off

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/jsoncpp}
REPS=${MEMPROF_BENCH_REPS:-3}
log() { printf 'jsoncpp-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

bash "$ROOT/scripts/build.sh" >&2
PREFIX=$WORK/prefix
rm -rf "$PREFIX"
cmake --install "$ROOT/build" --prefix "$PREFIX" >/dev/null

TARBALL=$(bash "$ROOT/bench/deb-src.sh" libjsoncpp "$WORK/src")
SRC=$WORK/jsoncpp
rm -rf "$SRC" && mkdir -p "$SRC"
tar -xzf "$TARBALL" -C "$SRC" --strip-components=1
log "source: $(basename "$TARBALL") (unmodified)"

COMMON=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang-22
        -DCMAKE_CXX_COMPILER=clang++-22 -DJSONCPP_WITH_TESTS=ON
        -DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF)
CLANG_DIR=$WORK/clang-profiles
declare -A CONFIG=(
  [plain]=""
  [memprof]="-DCMAKE_PROJECT_INCLUDE=$PREFIX/lib/cmake/MemProf/MemProfInstrumentAll.cmake"
  [clang]="-DCMAKE_CXX_FLAGS=-fmemory-profile=$CLANG_DIR -DCMAKE_EXE_LINKER_FLAGS=-fmemory-profile=$CLANG_DIR -DCMAKE_SHARED_LINKER_FLAGS=-fmemory-profile=$CLANG_DIR"
)
KINDS=(plain memprof clang)
declare -A BUILD_S BEST_S
for K in "${KINDS[@]}"; do
  B=$WORK/build-$K
  rm -rf "$B"
  # shellcheck disable=SC2086 # the configuration's flags are split on purpose
  cmake -S "$SRC" -B "$B" "${COMMON[@]}" ${CONFIG[$K]} >"$WORK/$K-cmake.log" 2>&1 ||
    die "$K: cmake failed (see $WORK/$K-cmake.log)"
  T0=$(date +%s.%N)
  ninja -C "$B" >"$WORK/$K-ninja.log" 2>&1 || die "$K: build failed (see $WORK/$K-ninja.log)"
  BUILD_S[$K]=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$T0" "$(date +%s.%N)")
  log "$K: built in ${BUILD_S[$K]} s"
done

PROFILES=$WORK/profiles
run_suite() { # KIND: one ctest run; prints its wall time in seconds
  local K=$1 B=$WORK/build-$1 T0 T1
  rm -rf "$PROFILES" "$CLANG_DIR" && mkdir -p "$PROFILES" "$CLANG_DIR"
  T0=$(date +%s.%N)
  env MEMPROF_PROFILE_FILE="$PROFILES/jsoncpp.%p.memprofraw" \
    ctest --test-dir "$B" >"$WORK/$K-ctest.log" 2>&1 || die "$K: the test suite failed (see $WORK/$K-ctest.log)"
  T1=$(date +%s.%N)
  python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$T0" "$T1"
}
for ((R = 1; R <= REPS; R++)); do
  for K in "${KINDS[@]}"; do # interleaved, so that load hits every kind
    S=$(run_suite "$K")
    log "round $R: $K test suite ${S} s"
    if [ -z "${BEST_S[$K]:-}" ] || python3 -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$S" "${BEST_S[$K]}"; then
      BEST_S[$K]=$S
    fi
  done
done
TESTS=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\)/\2/p' "$WORK/plain-ctest.log")

# The last memprof round's profiles: one per process of the suite.
run_suite memprof >/dev/null
N=$(ls "$PROFILES" | wc -l)
[ "$N" -gt 0 ] || die "the instrumented test suite wrote no profile"
BINS=()
for F in "$WORK"/build-memprof/bin/* "$WORK"/build-memprof/lib/libjsoncpp.so*; do
  [ -f "$F" ] && [ ! -L "$F" ] && BINS+=(--profiled-binary "$F")
done
"$ROOT/build/bin/memprof-merge" "$PROFILES"/*.memprofraw "${BINS[@]}" --memprof-full-schema \
  -o "$WORK/jsoncpp.profdata" 2>"$WORK/merge.log" || die "memprof-merge failed (see $WORK/merge.log)"
"$ROOT/build/bin/memprof-show" "$WORK/jsoncpp.profdata" -n 5 >"$WORK/show.txt"

ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
{
  echo "# jsoncpp's test suite ($(basename "$TARBALL"), $TESTS ctest tests), best of $REPS rounds, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo
  echo "| build | build time (s) | test suite (s) | relative to plain |"
  echo "|---|---|---|---|"
  for K in "${KINDS[@]}"; do
    echo "| $K | ${BUILD_S[$K]} | ${BEST_S[$K]} | $(ratio "${BEST_S[$K]}" "${BEST_S[plain]}") |"
  done
  echo
  echo "memprof: $N profiles (one per process), merged:"
  echo
  echo '```'
  tail -1 "$WORK/merge.log"
  sed -n '1,/^Top/p' "$WORK/show.txt"
  echo '```'
} >"$WORK/results.md"
cat "$WORK/results.md"
