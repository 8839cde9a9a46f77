#!/usr/bin/env bash
# The memoized capture (issue 36) on the runtime benchmarks' programs: SQLite's
# speedtest1 (`--size 20 --memdb`, as runtime-bench.sh builds it) and leveldb's
# db_bench (as unwind-bench.sh builds it, bench/leveldb-source.sh), each in
# paired rounds (bench/paired.py) against the plain program:
#   preload            LD_PRELOAD=libmemprof_rt.so (hybrid walk, memoized)
#   preload-nomemo     the same with capture_memo=0: every frame walked
#   memprof            db_bench built with our pass and runtime
#   memprof-nomemo     the same with capture_memo=0
#   fmemory-profile    clang-22 -fmemory-profile
#   heaptrack          heaptrack -o
# then a few rounds each for the peak RSS (bench/measure.py). A benchmark,
# not a test: it prints the figures of one run into WORK/results.md.
# (bench/yaml-bench.sh measures the allocation-heavy program.)
#
#   bench/capture-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK    work directory (default bench/work/capture)
#   MEMPROF_BENCH_ROUNDS  paired rounds (default 11)
#   MEMPROF_BENCH_BUILD   our build (default build): its libmemprof_rt.so is
#                         preloaded, its plugin and runtime build db_bench
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/capture}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-11}
export MEMPROF_BENCH_BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build}
BUILD=$MEMPROF_BENCH_BUILD
SQLITE=$ROOT/bench/work/sqlite
CFLAGS=(-O2 -g -fno-omit-frame-pointer -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_RTREE)
LDB_ARGS=("--benchmarks=fillrandom,readrandom,fillseq,readseq,overwrite" --num=30000)
log() { printf 'capture-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
command -v heaptrack >/dev/null || die "heaptrack missing (scripts/setup.sh installs it)"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

CCACHE_NOHASHDIR=true nice ninja -j2 -C "$BUILD" >&2
RT=$BUILD/lib/libmemprof_rt.so

bash "$ROOT/bench/sqlite-source.sh" "$ROOT/bench/work" >/dev/null
SPEEDTEST_C=$SQLITE/speedtest1.c
[ -e "$SPEEDTEST_C" ] || SPEEDTEST_C=$SQLITE/test/speedtest1.c
[ -e "$SPEEDTEST_C" ] || die "no speedtest1.c under $SQLITE"
for K in plain fmemory-profile; do
  if [ ! -x "$WORK/speedtest1-$K" ]; then
    log "building speedtest1 ($K)"
    EXTRA=()
    [ "$K" = plain ] || EXTRA=(-fmemory-profile)
    nice clang-22 "${CFLAGS[@]}" "${EXTRA[@]}" -I"$SQLITE" "$SPEEDTEST_C" "$SQLITE/sqlite3.c" \
      -o "$WORK/speedtest1-$K" -lm -lpthread
  fi
done
declare -A LDB
while read -r K P; do LDB[$K]=$P; done < <(bash "$ROOT/bench/leveldb-source.sh" "$WORK")
for K in plain fmemory-profile memprof; do
  [ -x "${LDB[$K]:-}" ] || die "leveldb-source.sh made no $K db_bench"
done

OUT=$WORK/out
rm -rf "$OUT" && mkdir -p "$OUT"
q() { printf '%q ' "$@"; echo; }
spec_st() {
  local ST=("$WORK/speedtest1-plain" --size 20 --memdb)
  q st-plain "${ST[@]}"
  q st-preload env LD_PRELOAD="$RT" MEMPROF_PROFILE_FILE="$OUT/st.%p.memprofraw" "${ST[@]}"
  q st-preload-nomemo env LD_PRELOAD="$RT" MEMPROF_RT_OPTIONS=capture_memo=0 MEMPROF_PROFILE_FILE="$OUT/stn.%p.memprofraw" "${ST[@]}"
  q st-fmemory-profile env MEMPROF_OPTIONS="log_path=$OUT/st-fmp" "$WORK/speedtest1-fmemory-profile" --size 20 --memdb
  q st-heaptrack heaptrack -o "$OUT/st-heaptrack" "${ST[@]}"
}
spec_ldb() {
  local DB=$OUT/db
  q ldb-plain "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB-plain"
  q ldb-memprof env MEMPROF_PROFILE_FILE="$OUT/lm.%p.memprofraw" "${LDB[memprof]}" "${LDB_ARGS[@]}" --db="$DB-m"
  q ldb-memprof-nomemo env MEMPROF_RT_OPTIONS=capture_memo=0 MEMPROF_PROFILE_FILE="$OUT/lmn.%p.memprofraw" "${LDB[memprof]}" "${LDB_ARGS[@]}" --db="$DB-mn"
  q ldb-preload env LD_PRELOAD="$RT" MEMPROF_PROFILE_FILE="$OUT/lp.%p.memprofraw" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB-p"
  q ldb-preload-nomemo env LD_PRELOAD="$RT" MEMPROF_RT_OPTIONS=capture_memo=0 MEMPROF_PROFILE_FILE="$OUT/lpn.%p.memprofraw" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB-pn"
  q ldb-fmemory-profile env MEMPROF_OPTIONS="log_path=$OUT/ldb-fmp" "${LDB[fmemory-profile]}" "${LDB_ARGS[@]}" --db="$DB-f"
  q ldb-heaptrack heaptrack -o "$OUT/ldb-heaptrack" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB-h"
}
spec_st >"$WORK/st.spec"
spec_ldb >"$WORK/ldb.spec"
for P in st ldb; do
  log "$P: $ROUNDS paired rounds"
  python3 "$ROOT/bench/paired.py" "$ROUNDS" "$OUT" <"$WORK/$P.spec" >"$WORK/$P-paired.txt"
  python3 "$ROOT/bench/measure.py" 3 "$OUT" <"$WORK/$P.spec" >"$WORK/$P-rss.txt"
  rm -rf "$OUT"/*.memprofraw "$OUT"/*heaptrack* "$OUT"/*-fmp* "$OUT"/db-*
done

{
  echo "# speedtest1 and db_bench, $ROUNDS paired rounds, $(date -u +%Y-%m-%dT%H:%MZ)"
  for P in st ldb; do
    BASE=$(awk '$1 ~ /-plain$/ {print $4}' "$WORK/$P-rss.txt")
    echo
    echo "| run | CPU vs plain | wall vs plain | peak RSS vs plain |"
    echo "|---|---|---|---|"
    while read -r NAME _ CPU _ WALL _ _; do
      case $NAME in *-plain) continue ;; esac
      RSS=$(awk -v n="$NAME" '$1 == n {print $4}' "$WORK/$P-rss.txt")
      printf '| %s | %s | %s | %.2f |\n' "$NAME" "$CPU" "$WALL" "$(echo "$RSS / $BASE" | bc -l)"
    done <"$WORK/$P-paired.txt"
    echo
    echo "$(grep -- '-plain ' "$WORK/$P-paired.txt")"
  done
} >"$WORK/results.md"
cat "$WORK/results.md"
