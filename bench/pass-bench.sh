#!/usr/bin/env bash
# Instrumentation benchmark: the cost of access counting on a real program,
# SQLite's speedtest1 (from Debian's sqlite3 source package), built six
# ways with clang-22 -O2:
#   plain     uninstrumented
#   clang     clang-22 -fmemory-profile (LLVM's pass and runtime)
#   runtime   our runtime linked in, no pass (allocations only, no counts)
#   memprof   our pass + runtime, through pkg-config --cflags --libs memprof
#   memprof-fast  the same with -mllvm -memprof-instrument-sink=false (the
#             counter form that cannot run without the shadow)
#   memprof-granules  the same with -mllvm -memprof-instrument-granules (every
#             access counted in its own granule: the default before session 7)
# Each runs `--testset main --size $SIZE --memdb` (an in-memory database,
# so nearly every access is a heap access). Prints wall and CPU (user +
# system) times, the best of REPS interleaved rounds, peak RSS, and ratios
# to plain; writes them to $WORK/pass-results.md. A benchmark, not a test:
# it fails only if something cannot run.
#
#   bench/pass-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK   work directory (default bench/work, git-ignored; the
#                        SQLite tree there is shared with the other benchmarks)
#   MEMPROF_BENCH_BUILD  memprof Release build directory (default build-bench)
#   MEMPROF_BENCH_REPS   rounds of measurement (default 5)
#   MEMPROF_BENCH_SIZE   speedtest1 --size (default 20)
#   MEMPROF_BENCH_STEP   builds: build memprof and the six programs, then stop;
#                        measure: reuse the six programs of an earlier builds
#                        step (so the builds can run while the machine is busy
#                        and the timing later on a quiet one); default: both
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
REPS=${MEMPROF_BENCH_REPS:-5}
SIZE=${MEMPROF_BENCH_SIZE:-20}
CC=clang-22
STACKS=(-gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer)

# The revision measured (taken now: the tree may change while this runs).
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain -- lib include 2>/dev/null)" ] || REV="$REV + uncommitted changes"

log() { printf 'pass-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- 1. SQLite's amalgamation (bench/sqlite-source.sh) ------------------------
bash "$ROOT/bench/sqlite-source.sh" "$WORK" >/dev/null
SRC=("$WORK/sqlite/test/speedtest1.c" "$WORK/sqlite/sqlite3.c")

STEP=${MEMPROF_BENCH_STEP:-both}
OUT=$WORK/pass-out
if [ "$STEP" != measure ]; then
# --- 2. memprof (Release) installed into a prefix ------------------------------
log "building memprof (Release) in $BUILD"
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMEMPROF_ENABLE_TESTS=OFF >"$WORK/pass-cmake.log" 2>&1 || die "cmake failed (see $WORK/pass-cmake.log)"
nice ninja -j2 -C "$BUILD" memprof_rt memprof_rt_shared MemProfInstrument >"$WORK/pass-ninja.log" 2>&1 ||
  die "build failed (see $WORK/pass-ninja.log)"
PREFIX=$WORK/pass-prefix
rm -rf "$PREFIX"
# The runtime's component (runtime, plugin, header) and the pkg-config file.
cmake --install "$BUILD" --component MemProfRuntime --prefix "$PREFIX" >/dev/null
mkdir -p "$PREFIX/lib/pkgconfig"
cp "$BUILD/memprof.pc" "$PREFIX/lib/pkgconfig/"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig

# --- 3. the six builds ----------------------------------------------------------
rm -rf "$OUT" && mkdir -p "$OUT/profiles"
# shellcheck disable=SC2046 # pkg-config's flags are split on purpose
{
  log "building speedtest1: plain"
  $CC -O2 -I"$WORK/sqlite" "${SRC[@]}" -o "$OUT/plain" -lm -lpthread -ldl
  log "building speedtest1: clang -fmemory-profile"
  $CC -O2 -fmemory-profile "${STACKS[@]}" -I"$WORK/sqlite" "${SRC[@]}" -o "$OUT/clang" -lm -lpthread -ldl
  log "building speedtest1: our runtime only"
  $CC -O2 "${STACKS[@]}" -fno-optimize-sibling-calls -I"$WORK/sqlite" "${SRC[@]}" \
    $(pkg-config --libs memprof) -o "$OUT/runtime" -lm -lpthread -ldl
  log "building speedtest1: our pass + runtime"
  $CC -O2 $(pkg-config --cflags memprof) -I"$WORK/sqlite" "${SRC[@]}" \
    $(pkg-config --libs memprof) -o "$OUT/memprof" -lm -lpthread -ldl
  log "building speedtest1: our pass (-memprof-instrument-sink=false) + runtime"
  $CC -O2 $(pkg-config --cflags memprof) -mllvm -memprof-instrument-sink=false \
    -I"$WORK/sqlite" "${SRC[@]}" $(pkg-config --libs memprof) -o "$OUT/memprof-fast" -lm -lpthread -ldl
  log "building speedtest1: our pass (-memprof-instrument-granules) + runtime"
  $CC -O2 $(pkg-config --cflags memprof) -mllvm -memprof-instrument-granules \
    -I"$WORK/sqlite" "${SRC[@]}" $(pkg-config --libs memprof) -o "$OUT/memprof-granules" -lm -lpthread -ldl
} || die "a build failed"
fi
if [ "$STEP" = builds ]; then
  log "built the six programs in $OUT (MEMPROF_BENCH_STEP=measure times them)"
  exit 0
fi
for b in plain clang runtime memprof memprof-fast memprof-granules; do
  [ -x "$OUT/$b" ] || die "no $OUT/$b (run with MEMPROF_BENCH_STEP=builds first)"
done
rm -rf "$OUT/profiles" && mkdir -p "$OUT/profiles"

# --- 4. measurements -------------------------------------------------------------
ARGS=(--testset main --size "$SIZE" --memdb)
SPEC=$OUT/spec.txt
: >"$SPEC"
cmd() { printf '%q ' "$@" >>"$SPEC"; echo >>"$SPEC"; }
cmd plain   "$OUT/plain" "${ARGS[@]}"
cmd clang   env MEMPROF_OPTIONS=log_path="$OUT/profiles/clang" "$OUT/clang" "${ARGS[@]}"
cmd runtime env MEMPROF_PROFILE_FILE="$OUT/profiles/runtime.%n.memprofraw" "$OUT/runtime" "${ARGS[@]}"
cmd memprof env MEMPROF_PROFILE_FILE="$OUT/profiles/memprof.%n.memprofraw" "$OUT/memprof" "${ARGS[@]}"
cmd memprof-fast env MEMPROF_PROFILE_FILE="$OUT/profiles/fast.%n.memprofraw" "$OUT/memprof-fast" "${ARGS[@]}"
cmd memprof-granules env MEMPROF_PROFILE_FILE="$OUT/profiles/granules.%n.memprofraw" "$OUT/memprof-granules" "${ARGS[@]}"
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
log "measuring: $REPS interleaved rounds (load average $LOAD)"
python3 "$ROOT/bench/measure.py" "$REPS" "$OUT" <"$SPEC" >"$OUT/times.txt" ||
  die "a measured command failed (see $OUT/*.log)"
declare -A T C R
while read -r name t c r; do T[$name]=$t; C[$name]=$c; R[$name]=$r; done <"$OUT/times.txt"

# The profiles are real: the total access count of the last run of each
# (every context once: an inlined site is listed under each enclosing
# function too).
accesses() {
  llvm-profdata-22 show --memory "$1" --profiled-binary "$2" 2>/dev/null | python3 -c '
import sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
recs = (docs[0]["MemprofProfile"].get("Records") or []) if docs else []
print(sum(s["MemInfoBlock"]["TotalAccessCount"] for r in recs
          for s in (r.get("AllocSites") or [])
          if s["Callstack"][0]["Function"] == r["FunctionGUID"]))'
}
CLANGRAW=$(ls -t "$OUT"/profiles/clang.* | head -n1)
OURRAW=$(ls -t "$OUT"/profiles/memprof.* | head -n1)

ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
{
  echo "Run $(date -u +%Y-%m-%d) on $(nproc) cores, $CPU; memprof $REV; $($CC --version | head -n1)."
  echo "\`speedtest1 ${ARGS[*]}\`; best of $REPS interleaved rounds (wall and CPU = user + system"
  echo "separately), peak RSS the largest; load average when measuring began: $LOAD."
  echo
  echo "| build | wall s | CPU s | wall / plain | CPU / plain | peak RSS MiB |"
  echo "|---|---|---|---|---|---|"
  for n in plain clang runtime memprof memprof-fast memprof-granules; do
    printf '| %s | %s | %s | %s | %s | %.1f |\n' "$n" "${T[$n]}" "${C[$n]}" \
      "$(ratio "${T[$n]}" "${T[plain]}")" "$(ratio "${C[$n]}" "${C[plain]}")" \
      "$(python3 -c "print(${R[$n]} / 1024)")"
  done
  echo
  echo "memprof / clang: wall $(ratio "${T[memprof]}" "${T[clang]}"), CPU $(ratio "${C[memprof]}" "${C[clang]}"); memprof-fast / clang: wall $(ratio "${T[memprof-fast]}" "${T[clang]}"), CPU $(ratio "${C[memprof-fast]}" "${C[clang]}")."
  echo "Total access counts of one run: clang $(accesses "$CLANGRAW" "$OUT/clang"), memprof $(accesses "$OURRAW" "$OUT/memprof"), memprof-granules $(accesses "$(ls -t "$OUT"/profiles/granules.* | head -n1)" "$OUT/memprof-granules")."
} | tee "$WORK/pass-results.md"
