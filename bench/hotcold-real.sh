#!/usr/bin/env bash
# Issue 35, bench (b): the hot/cold flow on a real program nobody here wrote,
# leveldb's db_bench (leveldb 1.23 from Debian's source package,
# bench/leveldb-source.sh), profiled and rebuilt through the flow:
#
#   1. the profiling build: leveldb-source.sh's "memprof" kind (our pass and
#      runtime through pkg-config memprof); one run of the workload below on a
#      fresh database; memprof-merge with --profiled-binary;
#   2. memprof-show --hints under the thresholds below: how many contexts and
#      bytes clang will call cold;
#   3. the rebuild with the profile through pkg-config, as docs/hot-cold.md
#      says: `memprof-show --use-flags P` and `pkg-config --cflags
#      memprof-hotcold` (thresholds by --define-variable) in CMAKE_C(XX)_FLAGS,
#      `pkg-config --libs memprof-hotcold` in CMAKE_EXE_LINKER_FLAGS, the
#      probe (hotcold-probe.sh) first; the calls of __hot_cold_t variants
#      counted by hint (lit-tests/hotcold/Inputs/check-hints.py);
#   4. one stats run of the rebuilt db_bench (MEMPROF_HOTCOLD=stats=1): cold
#      requests, live and resident bytes per class;
#   5. paired rounds (bench/paired.py) of: the rebuilt binary with hints
#      ignored (MEMPROF_HOTCOLD=ignore_hints=1, the baseline); the same binary
#      hinted; the plain build (glibc malloc, no LTO). Each run starts on a
#      fresh database;
#   5b. a read phase's referenced pages (bench/phase-pages.py: clear_refs when
#      the first readrandom of fillrandom,readrandom,readrandom,readseq ends,
#      smaps' Referenced: over anonymous mappings when the second ends), the
#      same three rows, interleaved rounds;
#   6. the cost of -fno-unroll-loops in the profiling build: paired rounds of
#      the profiling db_bench against one built with it.
#
# A benchmark, not a test: one run's figures go to $WORK/results.md.
#
#   bench/hotcold-real.sh [BUILD_DIR]
#
# Environment:
#   MEMPROF_BENCH_WORK      work directory (default bench/work/hotcold-real)
#   MEMPROF_BENCH_ROUNDS    paired rounds (default 15)
#   MEMPROF_BENCH_LDB_ARGS  db_bench's arguments (default
#                           "--benchmarks=fillrandom,readrandom,fillseq,readseq,overwrite --num=200000")
#   MEMPROF_BENCH_COLD_LIFETIME, MEMPROF_BENCH_COLD_DENSITY
#                           clang's cold thresholds (default 0 s and 0.05, LLVM's
#                           density: a run of seconds has no context living 200 s)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/hotcold-real}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-15}
read -r -a LDB_ARGS <<< "${MEMPROF_BENCH_LDB_ARGS:---benchmarks=fillrandom,readrandom,fillseq,readseq,overwrite --num=200000}"
COLD_LIFETIME=${MEMPROF_BENCH_COLD_LIFETIME:-0}
COLD_DENSITY=${MEMPROF_BENCH_COLD_DENSITY:-0.05}
# The page counts' runs: a fill, a warm-up read, the measured read, and a
# phase after it to stop in.
NUM=$(sed -n 's/.*--num=\([0-9]*\).*/\1/p' <<< "${LDB_ARGS[*]}")
PAGES_ARGS="--benchmarks=fillrandom,readrandom,readrandom,readseq --num=${NUM:-200000}"
die() { echo "hotcold-real: error: $*" >&2; exit 1; }
log() { echo "hotcold-real: $*" >&2; }
mkdir -p "$WORK/logs"
WORK=$(cd "$WORK" && pwd)
[ -e "$BUILD/lib/HotColdAllocator/libmemprof_hotcold.so" ] || die "$BUILD: no hot/cold allocator built"

# memprof as a user has it: installed.
rm -rf "$WORK/inst"
cmake --install "$BUILD" --prefix "$WORK/inst" > /dev/null
SHOW=$WORK/inst/bin/memprof-show
export PKG_CONFIG_PATH=$WORK/inst/lib/pkgconfig
PC=(pkg-config --define-variable=cold_lifetime="$COLD_LIFETIME" --define-variable=cold_density="$COLD_DENSITY")

# 1. The builds leveldb-source.sh makes (plain, and the profiling one).
declare -A LDB
while read -r K P; do LDB[$K]=$P; done < <(bash "$ROOT/bench/leveldb-source.sh" "$ROOT/bench/work/unwind")
[ -x "${LDB[memprof]:-}" ] && [ -x "${LDB[plain]:-}" ] || die "leveldb-source.sh made no db_bench"
SRC=$ROOT/bench/work/unwind/leveldb/leveldb-src
DB=$WORK/db
rm -rf "$DB" "$WORK"/prof.*.memprofraw && mkdir -p "$DB"
log "profiling run"
MEMPROF_PROFILE_FILE="$WORK/prof.%p.memprofraw" "${LDB[memprof]}" "${LDB_ARGS[@]}" --db="$DB/p" > "$WORK/logs/profiling.log"
"$WORK/inst/bin/memprof-merge" -q "$WORK"/prof.*.memprofraw --profiled-binary "${LDB[memprof]}" \
  -o "$WORK/db_bench.profdata" 2> "$WORK/logs/merge.log"

# 2. What clang will decide.
"$SHOW" --hints --cold-lifetime-threshold "$COLD_LIFETIME" --cold-density-threshold "$COLD_DENSITY" \
  "$WORK/db_bench.profdata" > "$WORK/hints.txt"
HINTS=$(tail -1 "$WORK/hints.txt")

# 3. The rebuild through pkg-config.
USE=$("$SHOW" --use-flags "$WORK/db_bench.profdata")
HC_CFLAGS=$("${PC[@]}" --cflags memprof-hotcold)
HC_LIBS=$("${PC[@]}" --libs memprof-hotcold)
# shellcheck disable=SC2086
sh "$(pkg-config --variable=probe memprof-hotcold)" "$WORK/probe" clang++-22 $HC_CFLAGS -- $HC_LIBS > "$WORK/logs/probe.log" ||
  die "the probe says this flow would not place (see above)"
FLAGS="-O2 -g -fno-omit-frame-pointer -DNDEBUG"
# build_ldb NAME CFLAGS LDFLAGS: db_bench in $WORK/build-NAME, leveldb
# configured as leveldb-source.sh configures it.
build_ldb() {
  local B=$WORK/build-$1
  rm -rf "$B"
  cmake -S "$SRC" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=ON -DLEVELDB_INSTALL=OFF \
    -DBUILD_SHARED_LIBS=OFF -DHAVE_SNAPPY=OFF -DHAVE_CRC32C=OFF -DHAVE_TCMALLOC=OFF \
    -DCMAKE_C_FLAGS="$2" -DCMAKE_CXX_FLAGS="$2" -DCMAKE_EXE_LINKER_FLAGS="$3" \
    > "$WORK/logs/$1-cmake.log" 2>&1 || die "cmake failed (see $WORK/logs/$1-cmake.log)"
  nice ninja -j2 -C "$B" db_bench > "$WORK/logs/$1-ninja.log" 2>&1 || die "build failed (see $WORK/logs/$1-ninja.log)"
}
B=$WORK/build-hotcold
log "building db_bench with the profile (ThinLTO)"
build_ldb hotcold "$FLAGS $USE $HC_CFLAGS" "$HC_LIBS"
HINTED=$B/db_bench
# Calls of a __hot_cold_t variant by the hint passed (check-hints.py, the
# hot/cold lit test's reader of llvm-objdump-22's disassembly).
CALLS=$(python3 "$ROOT/lit-tests/hotcold/Inputs/check-hints.py" "$HINTED" |
  awk '$1 == "hint" { n[$NF]++ } END { for (k in n) printf "%s:%d ", k, n[k] }')

# 3b. The profiling build with -fno-unroll-loops (docs/hot-cold.md, the
# profiling build): its cost against the default profiling build.
BB=$ROOT/build-bench
MPC=(pkg-config --define-variable=libdir="$BB/lib" --define-variable=includedir="$ROOT/include" "$BB/memprof.pc")
NU=$WORK/build-memprof-nounroll
log "building the profiling db_bench with -fno-unroll-loops"
build_ldb memprof-nounroll "$FLAGS $("${MPC[@]}" --cflags) -fno-unroll-loops" "$("${MPC[@]}" --libs)"

# 4. One stats run.
rm -rf "$DB" && mkdir -p "$DB"
MEMPROF_HOTCOLD=stats=1 "$HINTED" "${LDB_ARGS[@]}" --db="$DB/s" > "$WORK/logs/stats-run.log" 2> "$WORK/stats.txt"

# 5. Paired rounds, each on a fresh database.
RUN="rm -rf $DB/r && exec"
{
  echo "ignored sh -c $(printf '%q' "$RUN env MEMPROF_HOTCOLD=ignore_hints=1 $HINTED ${LDB_ARGS[*]} --db=$DB/r")"
  echo "hinted sh -c $(printf '%q' "$RUN env MEMPROF_HOTCOLD= $HINTED ${LDB_ARGS[*]} --db=$DB/r")"
  echo "plain sh -c $(printf '%q' "$RUN ${LDB[plain]} ${LDB_ARGS[*]} --db=$DB/r")"
} > "$WORK/spec"
{
  echo "# hotcold-real: db_bench ${LDB_ARGS[*]}; $ROUNDS paired rounds; $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# thresholds: cold lifetime >= $COLD_LIFETIME s, density < $COLD_DENSITY"
  echo "# hints: $HINTS"
  echo "# hinted binary: calls of __hot_cold_t variants by hint: $CALLS"
  echo "# stats run:"
  grep "^memprof-hotcold" "$WORK/stats.txt" | sed "s/^/#   /"
  echo "## whole runs (paired.py, baseline: ignored)"
  python3 "$ROOT/bench/paired.py" "$ROUNDS" "$WORK/logs" < "$WORK/spec"
  echo "## a read phase's referenced pages (phase-pages.py: the second readrandom of $PAGES_ARGS; medians over $ROUNDS rounds, interleaved)"
  rm -f "$WORK"/pages-*.txt
  for r in $(seq "$ROUNDS"); do
    for row in ignored hinted plain; do
      rm -rf "$DB/g"
      case $row in
        ignored) cmd=(env MEMPROF_HOTCOLD=ignore_hints=1 "$HINTED") ;;
        hinted) cmd=(env MEMPROF_HOTCOLD= "$HINTED") ;;
        plain) cmd=("${LDB[plain]}") ;;
      esac
      # shellcheck disable=SC2086
      python3 "$ROOT/bench/phase-pages.py" 'readrandom:1' 'readrandom:2' "$WORK/pages-$row.txt" -- \
        "${cmd[@]}" $PAGES_ARGS --db="$DB/g" > "$WORK/logs/pages-$row.log"
    done
  done
  python3 - "$WORK" ignored hinted plain <<'PY'
import statistics, sys
work, names = sys.argv[1], sys.argv[2:]
rows = {}
for n in names:
    with open(f"{work}/pages-{n}.txt") as f:
        rows[n] = [dict(zip(l.split()[0::2], map(float, l.split()[1::2]))) for l in f if l.strip()]
base = rows[names[0]]
print("row ref_pages_median ref_pages_min ref_pages_max pages_ratio phase_ms_median phase_ratio")
for n in names:
    r = rows[n]
    pg = [x["ref_pages"] for x in r]
    pr = statistics.median(a["ref_pages"] / b["ref_pages"] for a, b in zip(r, base))
    ms = statistics.median(x["phase_ms"] for x in r)
    mr = statistics.median(a["phase_ms"] / b["phase_ms"] for a, b in zip(r, base))
    print(f"{n} {statistics.median(pg):.0f} {min(pg):.0f} {max(pg):.0f} {pr:.3f} {ms:.1f} {mr:.3f}")
PY
  echo "## the profiling build with -fno-unroll-loops (paired.py, baseline: the default profiling build)"
  {
    echo "memprof sh -c $(printf '%q' "$RUN env MEMPROF_PROFILE_FILE=$WORK/discard.memprofraw ${LDB[memprof]} ${LDB_ARGS[*]} --db=$DB/r")"
    echo "memprof-nounroll sh -c $(printf '%q' "$RUN env MEMPROF_PROFILE_FILE=$WORK/discard.memprofraw $NU/db_bench ${LDB_ARGS[*]} --db=$DB/r")"
  } > "$WORK/spec-nounroll"
  python3 "$ROOT/bench/paired.py" "$ROUNDS" "$WORK/logs" < "$WORK/spec-nounroll"
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$WORK/results.md"
