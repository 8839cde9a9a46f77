#!/usr/bin/env bash
# Issue 35, bench (a): does placing cold blocks apart help the hot ones?
# bench/hotcold-placement.cpp (cold records allocated between hot ones, then a
# hot phase traversing the hot records) goes through clang-22's whole flow:
#
#   1. a profiling build (memprof's pass and runtime, -gmlt
#      -fdebug-info-for-profiling -fno-optimize-sibling-calls -fno-unroll-loops)
#      run on a smaller input; memprof-merge; memprof-show --hints must call
#      newCold's site cold and newHot's notcold;
#   2. a rebuild with -fmemory-profile-use -mllvm -optimize-hot-cold-new
#      -mllvm -memprof-ave-lifetime-cold-threshold=0, linked with
#      libmemprof_hotcold; llvm-objdump-22 (lit-tests/hotcold/Inputs/check-hints.py) must show newCold passing 1 and
#      newHot 128 to _Znwm12__hot_cold_t;
#   3. paired rounds (bench/paired.py) of four rows: hinted; the same binary
#      with MEMPROF_HOTCOLD=ignore_hints=1 (the baseline); a plain build linked
#      with Debian's libjemalloc.so.2; a plain build on glibc.
#
# Each run prints its hot phase's time and the pages it referenced
# (clear_refs before, smaps' Referenced: over anonymous mappings after); the
# script pairs those by round as paired.py does the whole runs. A benchmark,
# not a test: it writes one run's figures to $WORK/results.md.
#
#   bench/hotcold-placement.sh [BUILD_DIR]
#
# Environment:
#   MEMPROF_BENCH_WORK     work directory (default bench/work/placement)
#   MEMPROF_BENCH_ROUNDS   paired rounds (default 15)
#   MEMPROF_BENCH_HOT      hot records in the measured runs (default 131072)
#   MEMPROF_BENCH_COLD     cold records allocated before each hot one (default 7)
#   MEMPROF_BENCH_PASSES   hot-phase passes in the measured runs (default 100)
#   MEMPROF_BENCH_PROFILE  the profiling run's arguments (default "20000 7 1000":
#                          a hot phase of ~0.5 s, so that the cold records'
#                          one write per 64 bytes falls under clang's 0.05
#                          accesses/byte/s)
set -euo pipefail
# Every run symbolizes afresh, as these figures always have (and nothing is
# written to ~/.cache): bench/symcache-bench.sh measures the symbol cache.
export MEMPROF_SYMBOL_CACHE=off

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/placement}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-15}
HOT=${MEMPROF_BENCH_HOT:-131072}
COLD=${MEMPROF_BENCH_COLD:-7}
PASSES=${MEMPROF_BENCH_PASSES:-100}
PROFILE_ARGS=${MEMPROF_BENCH_PROFILE:-20000 7 1000}
CXX=${CXX:-clang++-22}
LIB=$BUILD/lib
HCLIB=$LIB/HotColdAllocator
for f in "$LIB/MemProfInstrument.so" "$LIB/memprof_rt.o" "$HCLIB/libmemprof_hotcold.so" \
         "$BUILD/bin/memprof-merge" "$BUILD/bin/memprof-show"; do
  [ -e "$f" ] || { echo "hotcold-placement: error: $f: not built" >&2; exit 1; }
done
die() { echo "hotcold-placement: error: $*" >&2; exit 1; }
mkdir -p "$WORK/logs"
WORK=$(cd "$WORK" && pwd)
SRC=$ROOT/bench/hotcold-placement.cpp
BASE=(-O2 -std=c++17 -gmlt -fdebug-info-for-profiling)

# 1. Profile.
"$CXX" "${BASE[@]}" -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
  -fno-optimize-sibling-calls -fno-unroll-loops -fpass-plugin="$LIB/MemProfInstrument.so" \
  "$SRC" "$LIB/memprof_rt.o" -Wl,--export-dynamic-symbol-list="$LIB/memprof_rt.exports" \
  -o "$WORK/profiling"
rm -f "$WORK"/prof.*.memprofraw
# shellcheck disable=SC2086
MEMPROF_PROFILE_FILE="$WORK/prof.%p.memprofraw" "$WORK/profiling" $PROFILE_ARGS > "$WORK/logs/profiling.log"
"$BUILD/bin/memprof-merge" "$WORK"/prof.*.memprofraw -o "$WORK/p.profdata" 2> "$WORK/logs/merge.log"
"$BUILD/bin/memprof-show" "$WORK/p.profdata" --hints --cold-lifetime-threshold 0 > "$WORK/hints.txt"
COLD_LINE=$(grep -A1 'in (anonymous namespace)::newCold:' "$WORK/hints.txt" || true)
HOT_LINE=$(grep -A1 'in (anonymous namespace)::newHot:' "$WORK/hints.txt" || true)
grep -q 'newCold: cold' <<< "$COLD_LINE" || die "newCold's site is not cold (see $WORK/hints.txt)"
grep -q 'newHot: notcold' <<< "$HOT_LINE" || die "newHot's site is not notcold (see $WORK/hints.txt)"

# 2. Rebuild with the hints; the plain builds.
"$CXX" "${BASE[@]}" -fmemory-profile-use="$WORK/p.profdata" -mllvm -optimize-hot-cold-new \
  -mllvm -memprof-ave-lifetime-cold-threshold=0 "$SRC" -o "$WORK/hinted" \
  -L"$HCLIB" -lmemprof_hotcold -Wl,-rpath,"$HCLIB"
"$CXX" "${BASE[@]}" "$SRC" -o "$WORK/plain-glibc"
"$CXX" "${BASE[@]}" "$SRC" -o "$WORK/plain-jemalloc" -Wl,--no-as-needed -ljemalloc
# The hint each function passes to _Znwm12__hot_cold_t, read from the
# disassembly by the hot/cold lit test's reader (check-hints.py).
python3 "$ROOT/lit-tests/hotcold/Inputs/check-hints.py" "$WORK/hinted" > "$WORK/hints-code.txt" ||
  die "no call of a __hot_cold_t variant in $WORK/hinted"
hint_of() {
  # "hint (anonymous namespace)::newCold -> _Znwm12__hot_cold_t 1": the name
  # holds a space, so the line is matched whole.
  awk -v fn="$1" '$1 == "hint" && index($0, "::" fn " -> _Znwm12__hot_cold_t ") { print $NF; exit }' \
    "$WORK/hints-code.txt"
}
CH=$(hint_of newCold); HH=$(hint_of newHot)
[ "$CH" = 1 ] || die "newCold passes '$CH' to _Znwm12__hot_cold_t, not 1 (see $WORK/hints-code.txt)"
[ "$HH" = 128 ] || die "newHot passes '$HH' to _Znwm12__hot_cold_t, not 128 (see $WORK/hints-code.txt)"

# 3. Paired rounds.
A="$HOT $COLD $PASSES"
rm -f "$WORK"/hot-*.txt
{
  echo "ignored env MEMPROF_HOTCOLD=ignore_hints=1 PLACEMENT_LOG=$WORK/hot-ignored.txt $WORK/hinted $A"
  echo "hinted env MEMPROF_HOTCOLD= PLACEMENT_LOG=$WORK/hot-hinted.txt $WORK/hinted $A"
  echo "jemalloc env PLACEMENT_LOG=$WORK/hot-jemalloc.txt $WORK/plain-jemalloc $A"
  echo "glibc env PLACEMENT_LOG=$WORK/hot-glibc.txt $WORK/plain-glibc $A"
} > "$WORK/spec"
{
  echo "# hotcold-placement: $ROUNDS paired rounds, $HOT hot records, $COLD cold before each, $PASSES passes; $(git -C "$ROOT" rev-parse --short HEAD)"
  echo "# $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# hints: $(echo $COLD_LINE | cut -c1-160)"
  echo "# hints: $(echo $HOT_LINE | cut -c1-160)"
  echo "# objdump: newCold passes $CH, newHot passes $HH to _Znwm12__hot_cold_t"
  echo "## whole runs (paired.py, baseline: ignored)"
  python3 "$ROOT/bench/paired.py" "$ROUNDS" "$WORK/logs" < "$WORK/spec"
  echo "## hot phase (baseline: ignored; ratio = median over rounds of row/baseline)"
  python3 - "$WORK" ignored hinted jemalloc glibc <<'EOF'
import statistics, sys
work, names = sys.argv[1], sys.argv[2:]
rows = {}
for n in names:
    with open(f"{work}/hot-{n}.txt") as f:
        rows[n] = [dict(zip(l.split()[0::2], map(float, l.split()[1::2]))) for l in f if l.strip()]
base = rows[names[0]]
print("row hot_ms_median hot_ratio ref_pages_median ref_pages_min ref_pages_max pages_ratio")
for n in names:
    r = rows[n]
    ms = statistics.median(x["hot_ms"] for x in r)
    ratio = statistics.median(a["hot_ms"] / b["hot_ms"] for a, b in zip(r, base))
    pg = [x["ref_pages"] for x in r]
    pratio = statistics.median(a["ref_pages"] / b["ref_pages"] for a, b in zip(r, base))
    print(f"{n} {ms:.1f} {ratio:.3f} {statistics.median(pg):.0f} {min(pg):.0f} {max(pg):.0f} {pratio:.3f}")
EOF
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$WORK/results.md"
