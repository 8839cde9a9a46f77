#!/usr/bin/env bash
# What recording heap values (docs/heap-data.md: live and peak per context,
# the timeline) costs the runtime: our preload runtime as it is against the
# same runtime before that recording existed (a baseline commit), on
# SQLite's speedtest1 and leveldb's db_bench (as runtime-bench.sh and
# unwind-bench.sh build them), and perl on bench/alloc-workload.pl (the most
# allocation-heavy of the runtime's programs), in paired rounds
# (bench/paired.py: the median over the rounds of each row's time over the
# uninstrumented program's in the same round). A benchmark, not a test: it
# prints one run's figures into $WORK/results.md.
#
#   bench/heap-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK     work directory (default bench/work/heap)
#   MEMPROF_BENCH_ROUNDS   paired rounds (default 20)
#   MEMPROF_HEAP_BASE      the baseline commit (default cb4d179, the last
#                          runtime without heap values)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/heap}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-20}
BASE=${MEMPROF_HEAP_BASE:-cb4d179}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
export MEMPROF_BENCH_BUILD=$BUILD
SQLITE=$ROOT/bench/work/sqlite
CFLAGS=(-O2 -g -fno-omit-frame-pointer -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_RTREE)
LDB_ARGS=("--benchmarks=fillrandom,readrandom,fillseq,readseq,overwrite" --num=30000)

log() { printf 'heap-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

bash "$ROOT/scripts/setup.sh" >&2
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# --- the two runtimes ----------------------------------------------------------
[ -e "$BUILD/build.ninja" ] ||
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
nice ninja -C "$BUILD" memprof_rt_shared >&2
NEW_RT=$BUILD/lib/libmemprof_rt.so
BASE_SRC=$WORK/base-src
BASE_HASH=$(git -C "$ROOT" rev-parse --verify "$BASE^{commit}") || die "no commit $BASE"
if [ "$(git -C "$BASE_SRC" rev-parse HEAD 2>/dev/null)" != "$BASE_HASH" ]; then
  rm -rf "$BASE_SRC"
  git -C "$ROOT" worktree prune
  git -C "$ROOT" worktree add --detach "$BASE_SRC" "$BASE_HASH" >&2
fi
[ -e "$WORK/base-build/build.ninja" ] ||
  cmake -S "$BASE_SRC" -B "$WORK/base-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMEMPROF_ENABLE_TESTS=OFF >/dev/null
nice ninja -C "$WORK/base-build" memprof_rt_shared >&2
BASE_RT=$WORK/base-build/lib/libmemprof_rt.so

# --- the programs ----------------------------------------------------------------
declare -A LDB
while read -r K P; do LDB[$K]=$P; done < <(bash "$ROOT/bench/leveldb-source.sh" "$ROOT/bench/work/unwind")
[ -x "${LDB[plain]:-}" ] || die "leveldb-source.sh made no plain db_bench"
bash "$ROOT/bench/sqlite-source.sh" "$ROOT/bench/work" >/dev/null
SPEEDTEST_C=$SQLITE/speedtest1.c
[ -e "$SPEEDTEST_C" ] || SPEEDTEST_C=$SQLITE/test/speedtest1.c
ST_BIN=$WORK/speedtest1
if [ ! -x "$ST_BIN" ]; then
  log "building speedtest1"
  nice clang-22 "${CFLAGS[@]}" -I"$SQLITE" "$SPEEDTEST_C" "$SQLITE/sqlite3.c" \
    -o "$ST_BIN" -lm -lpthread
fi

# --- the rounds -------------------------------------------------------------------
OUT=$WORK/out
DB=$WORK/db
rm -rf "$OUT" "$DB"
mkdir -p "$OUT" "$DB"
q() { printf '%q ' "$@"; echo; }
R=(setarch -R)
# shellcheck disable=SC2016 # expanded by that shell
FRESH=(sh -c 'rm -rf -- "$0" && mkdir -p -- "$0" && exec "$@"')
P=(env PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 setarch -R)
spec() { # PROGRAM: the three rows of one program
  case $1 in
  st)
    q st-plain "${R[@]}" "$ST_BIN" --size 20 --memdb
    q st-base "${R[@]}" env LD_PRELOAD="$BASE_RT" MEMPROF_PROFILE_FILE="$OUT/st-base.%p.raw" "$ST_BIN" --size 20 --memdb
    q st-heap "${R[@]}" env LD_PRELOAD="$NEW_RT" MEMPROF_PROFILE_FILE="$OUT/st-heap.%p.raw" "$ST_BIN" --size 20 --memdb ;;
  ldb)
    q ldb-plain "${FRESH[@]}" "$DB/p" "${R[@]}" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB/p"
    q ldb-base "${FRESH[@]}" "$DB/b" "${R[@]}" env LD_PRELOAD="$BASE_RT" MEMPROF_PROFILE_FILE="$OUT/ldb-base.%p.raw" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB/b"
    q ldb-heap "${FRESH[@]}" "$DB/h" "${R[@]}" env LD_PRELOAD="$NEW_RT" MEMPROF_PROFILE_FILE="$OUT/ldb-heap.%p.raw" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB/h" ;;
  pl)
    q pl-plain "${P[@]}" perl "$ROOT/bench/alloc-workload.pl"
    q pl-base "${P[@]}" env LD_PRELOAD="$BASE_RT" MEMPROF_PROFILE_FILE="$OUT/pl-base.%p.raw" perl "$ROOT/bench/alloc-workload.pl"
    q pl-heap "${P[@]}" env LD_PRELOAD="$NEW_RT" MEMPROF_PROFILE_FILE="$OUT/pl-heap.%p.raw" perl "$ROOT/bench/alloc-workload.pl" ;;
  esac
}
RES=$WORK/results.md
{
  echo "# heap-bench: $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "runtime $(git -C "$ROOT" rev-parse --short HEAD) against $BASE; $ROUNDS paired rounds"
  echo
} >"$RES"
for PROG in st ldb pl; do
  spec "$PROG" >"$WORK/spec-$PROG.txt"
  log "$PROG: $ROUNDS rounds"
  rm -rf "$OUT"/*
  mkdir -p "$WORK/logs-$PROG"
  python3 "$ROOT/bench/paired.py" "$ROUNDS" "$WORK/logs-$PROG" <"$WORK/spec-$PROG.txt" | tee -a "$RES" >&2
  echo >>"$RES"
done
log "results in $RES"
