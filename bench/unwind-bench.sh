#!/usr/bin/env bash
# Unwinder benchmark: what each of the runtime's stack walks (the unwind=
# option) costs, and how many allocation contexts it takes into the
# program's own code, on leveldb's db_bench, against the uninstrumented
# program, clang-22's own MemProf runtime with its fast (frame-pointer) and
# slow (DWARF) unwinder, and heaptrack; and, per mode, the cost and reach on
# the existing runtime-bench programs (speedtest1, perl), whose targets must
# still hold. A benchmark, not a test: it prints the figures of one run into
# $WORK/results.md and fails only if something cannot run.
#
#   bench/unwind-bench.sh
#
# db_bench (leveldb 1.23 from Debian's source package, bench/leveldb-source.sh)
# runs `--benchmarks=fillrandom,readrandom,fillseq,readseq,overwrite
# --num=30000`, its --db directory under $WORK/db removed before every run:
#   ldb-plain                uninstrumented
#   ldb-memprof-MODE         our runtime preloaded into the uninstrumented
#                            binary (LD_PRELOAD=libmemprof_rt.so,
#                            MEMPROF_RT_OPTIONS=unwind=MODE)
#   ldb-instrumented-MODE    built with our pass and runtime (pkg-config's
#                            flags, see leveldb-source.sh), unwind=MODE
#   ldb-clang-rt-fast/slow   clang's runtime preloaded into the uninstrumented
#                            binary, MEMPROF_OPTIONS=fast_unwind_on_malloc=1/0
#   ldb-fmemory-profile-fast/slow   built with clang's -fmemory-profile
#   ldb-heaptrack            heaptrack -o
# speedtest1 (as runtime-bench.sh builds it, `--size 20 --memdb`) and perl
# (Debian's, on bench/alloc-workload.pl) run plain and with our runtime
# preloaded in each mode (st-*, pl-*).
#
# Reach (bench/context-reach.py): the share of allocations (sum of
# AllocCount), and of contexts, whose call stack has at least one frame in
# the program's own code, the runtime's own functions not counted: the
# db_bench executable of the row; speedtest1 (SQLite is compiled into it);
# for perl the perl executable (Debian links libperl into /usr/bin/perl
# statically; libperl.so is named too but is not loaded). Each row's share is
# over the profiles of all its rounds. For each of our modes on db_bench, the
# allocation callers where our walk stops short of db_bench but clang's slow
# unwinder reaches it are listed below the table (context-reach.py --compare,
# the top 5, symbolized).
#
# Environment:
#   MEMPROF_BENCH_WORK    work directory (default bench/work/unwind)
#   MEMPROF_BENCH_REPS    interleaved rounds; the best time is kept (default 5)
#   MEMPROF_BENCH_UNWIND  our runtime's unwind modes to measure
#                         (default "fp hybrid cfi"); a mode the runtime does
#                         not know stops the script before measuring
#   MEMPROF_BENCH_BUILD   our build directory, whose libmemprof_rt.so is
#                         preloaded and whose plugin and memprof_rt.o build the
#                         instrumented db_bench (default build-bench,
#                         configured here as a Release build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/unwind}
REPS=${MEMPROF_BENCH_REPS:-5}
read -r -a MODES <<<"${MEMPROF_BENCH_UNWIND:-fp hybrid cfi}"
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
export MEMPROF_BENCH_BUILD=$BUILD # leveldb-source.sh's plugin and runtime too
SQLITE=$ROOT/bench/work/sqlite
CLANG_RT=$(clang-22 -print-file-name=libclang_rt.memprof-x86_64.so)
CLANG_RT_A=$(clang-22 -print-file-name=libclang_rt.memprof-x86_64.a)
CLANG_RT_CXX_A=$(clang-22 -print-file-name=libclang_rt.memprof_cxx-x86_64.a)
CFLAGS=(-O2 -g -fno-omit-frame-pointer -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_RTREE)
LDB_ARGS=("--benchmarks=fillrandom,readrandom,fillseq,readseq,overwrite" --num=30000)

log() { printf 'unwind-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
[ "${#MODES[@]}" -gt 0 ] || die "MEMPROF_BENCH_UNWIND is empty"

T_START=$(date +%s)
bash "$ROOT/scripts/setup.sh" >&2
command -v heaptrack >/dev/null || die "heaptrack missing (scripts/setup.sh installs it)"
command -v perl >/dev/null || die "perl missing"
[ -e "$CLANG_RT" ] || die "clang's MemProf runtime not found ($CLANG_RT)"
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# --- the runtime ------------------------------------------------------------------
[ -e "$BUILD/build.ninja" ] ||
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
CCACHE_NOHASHDIR=true nice ninja -j2 -C "$BUILD" memprof_rt_shared >&2
MEMPROF_RT=$BUILD/lib/libmemprof_rt.so
# Every mode asked for must be one the runtime knows: with an unknown value
# it warns and walks with fp, which would be measured under the wrong name.
for M in "${MODES[@]}"; do
  W=$(env LD_PRELOAD="$MEMPROF_RT" MEMPROF_RT_OPTIONS="unwind=$M" \
        MEMPROF_PROFILE_FILE="$WORK/probe.memprofraw" /bin/true 2>&1 | grep "warning" || true)
  if [ -n "$W" ]; then
    rm -f "$WORK/probe.memprofraw"
    die "unwind=$M: $W (set MEMPROF_BENCH_UNWIND, e.g. \"fp cfi\")"
  fi
done
rm -f "$WORK/probe.memprofraw"

# --- the programs ---------------------------------------------------------------
# db_bench three ways (leveldb-source.sh prints "KIND PATH" lines; the
# instrumented one uses $BUILD's plugin and runtime, and is rebuilt whenever
# they changed).
declare -A LDB
while read -r K P; do LDB[$K]=$P; done < <(bash "$ROOT/bench/leveldb-source.sh" "$WORK")
for K in plain fmemory-profile memprof; do
  [ -x "${LDB[$K]:-}" ] || die "leveldb-source.sh made no $K db_bench"
done
MEMPROF_RT_A=${LDB[runtime]}

# speedtest1, as runtime-bench.sh builds it (from bench/work/sqlite).
bash "$ROOT/bench/sqlite-source.sh" "$ROOT/bench/work" >/dev/null
SPEEDTEST_C=$SQLITE/speedtest1.c
[ -e "$SPEEDTEST_C" ] || SPEEDTEST_C=$SQLITE/test/speedtest1.c
[ -e "$SPEEDTEST_C" ] || die "no speedtest1.c under $SQLITE"
ST_BIN=$WORK/speedtest1
ST_STAMP="$(cat "$ROOT/bench/work/sqlite.stamp") | $(clang-22 --version | head -1) | ${CFLAGS[*]}"
if [ ! -x "$ST_BIN" ] || [ "$(cat "$WORK/speedtest1.stamp" 2>/dev/null)" != "$ST_STAMP" ]; then
  log "building speedtest1 (uninstrumented)"
  nice clang-22 "${CFLAGS[@]}" -I"$SQLITE" "$SPEEDTEST_C" "$SQLITE/sqlite3.c" \
    -o "$ST_BIN" -lm -lpthread
  echo "$ST_STAMP" >"$WORK/speedtest1.stamp"
fi
PERL_BIN=$(readlink -f "$(command -v perl)")
PERL_OWN=(--binary "$PERL_BIN")
for F in /usr/lib/x86_64-linux-gnu/libperl.so.5*; do
  [ -f "$F" ] && [ ! -L "$F" ] && PERL_OWN+=(--binary "$F")
done

# --- the commands -------------------------------------------------------------
# Every profiler writes a real file under $OUT: ours NAME.PID.memprofraw,
# clang's NAME.clang.PID, heaptrack NAME.*.zst. Earlier runs' files go first,
# since each row's reach is taken over all the files of its name.
OUT=$WORK/out
DB=$WORK/db
rm -rf "$OUT" "$DB"
mkdir -p "$OUT" "$DB"
SPEC=$WORK/spec.txt
q() { printf '%q ' "$@"; echo; }
# Every run without address-space randomization (setarch -R), perl with a
# fixed hash seed and key order, as in runtime-bench.sh. db_bench's database
# directory is removed (and made again, empty) by a shell before the program
# starts: its few milliseconds are in every db_bench row alike, and
# $WORK/spec.txt replays by itself (bench/measure.py or bench/paired.py).
R=(setarch -R)
# shellcheck disable=SC2016 # expanded by that shell: $0 the directory, $@ the command
FRESH=(sh -c 'rm -rf -- "$0" && mkdir -p -- "$0" && exec "$@"')
P=(env PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 setarch -R)
ldb() { # NAME DB_BENCH [ENV...]: a db_bench row
  local N=$1 B=$2
  shift 2
  q "$N" "${FRESH[@]}" "$DB/$N" "${R[@]}" env "$@" "$B" "${LDB_ARGS[@]}" --db="$DB/$N"
}
ours() { # NAME MODE: our runtime's environment for a row, into OURS
  OURS=(MEMPROF_PROFILE_FILE="$OUT/$1.%p.memprofraw" MEMPROF_RT_OPTIONS="unwind=$2")
}
{
  ldb ldb-plain "${LDB[plain]}"
  for M in "${MODES[@]}"; do
    ours "ldb-memprof-$M" "$M"
    ldb "ldb-memprof-$M" "${LDB[plain]}" LD_PRELOAD="$MEMPROF_RT" "${OURS[@]}"
  done
  for M in "${MODES[@]}"; do
    ours "ldb-instrumented-$M" "$M"
    ldb "ldb-instrumented-$M" "${LDB[memprof]}" "${OURS[@]}"
  done
  for U in fast slow; do
    F=1; [ "$U" = slow ] && F=0
    ldb "ldb-clang-rt-$U" "${LDB[plain]}" LD_PRELOAD="$CLANG_RT" \
      MEMPROF_OPTIONS="log_path=$OUT/ldb-clang-rt-$U.clang:fast_unwind_on_malloc=$F"
    ldb "ldb-fmemory-profile-$U" "${LDB[fmemory-profile]}" \
      MEMPROF_OPTIONS="log_path=$OUT/ldb-fmemory-profile-$U.clang:fast_unwind_on_malloc=$F"
  done
  q ldb-heaptrack "${FRESH[@]}" "$DB/ldb-heaptrack" "${R[@]}" \
    heaptrack -o "$OUT/ldb-heaptrack" "${LDB[plain]}" "${LDB_ARGS[@]}" --db="$DB/ldb-heaptrack"
  q st-plain "${R[@]}" "$ST_BIN" --size 20 --memdb
  for M in "${MODES[@]}"; do
    ours "st-memprof-$M" "$M"
    q "st-memprof-$M" "${R[@]}" env LD_PRELOAD="$MEMPROF_RT" "${OURS[@]}" "$ST_BIN" --size 20 --memdb
  done
  q pl-plain "${P[@]}" perl "$ROOT/bench/alloc-workload.pl"
  for M in "${MODES[@]}"; do
    ours "pl-memprof-$M" "$M"
    q "pl-memprof-$M" "${P[@]}" env LD_PRELOAD="$MEMPROF_RT" "${OURS[@]}" perl "$ROOT/bench/alloc-workload.pl"
  done
} >"$SPEC"

log "measuring ($REPS interleaved rounds, unwind modes: ${MODES[*]})"
python3 "$ROOT/bench/measure.py" "$REPS" "$OUT" <"$SPEC" >"$WORK/times.txt"
rm -rf "$OUT"/ldb-heaptrack* "$DB"

# --- reach ----------------------------------------------------------------------
REACH=$WORK/reach.txt
: >"$REACH"
profiles() { # NAME: the raw profiles a row wrote, one a line
  local F
  for F in "$OUT/$1".*.memprofraw "$OUT/$1".clang.*; do
    [ -e "$F" ] && echo "$F"
  done
  return 0
}
reach() { # NAME ARGS...: one line "NAME JSON" into $REACH
  local N=$1 F
  shift
  mapfile -t F < <(profiles "$N")
  [ "${#F[@]}" -gt 0 ] || die "$N wrote no profile"
  printf '%s %s\n' "$N" "$(python3 "$ROOT/bench/context-reach.py" --json "$@" "${F[@]}")" >>"$REACH"
}
log "reach of every profile"
for M in "${MODES[@]}"; do
  reach "ldb-memprof-$M" --binary "${LDB[plain]}" --runtime "$MEMPROF_RT"
  reach "ldb-instrumented-$M" --binary "${LDB[memprof]}" --runtime "$MEMPROF_RT_A"
  reach "st-memprof-$M" --binary "$ST_BIN" --runtime "$MEMPROF_RT"
  reach "pl-memprof-$M" "${PERL_OWN[@]}" --runtime "$MEMPROF_RT"
done
for U in fast slow; do
  reach "ldb-clang-rt-$U" --binary "${LDB[plain]}" --runtime "$CLANG_RT"
  reach "ldb-fmemory-profile-$U" --binary "${LDB[fmemory-profile]}" \
    --runtime "$CLANG_RT_A" --runtime "$CLANG_RT_CXX_A"
done
# Where our walks stop short of db_bench and clang's slow unwinder does not:
# both preloaded into the same uninstrumented binary.
COMPARE=$WORK/lost-contexts.txt
: >"$COMPARE"
REF=()
while read -r F; do REF+=(--compare "$F"); done < <(profiles ldb-clang-rt-slow)
for M in "${MODES[@]}"; do
  {
    echo "### unwind=$M against clang's runtime, fast_unwind_on_malloc=0 (both preloaded)"
    echo
    echo '```'
    python3 "$ROOT/bench/context-reach.py" "${REF[@]}" --binary "${LDB[plain]}" \
      --runtime "$MEMPROF_RT" --runtime "$CLANG_RT" -n 5 "$OUT/ldb-memprof-$M".*.memprofraw
    echo '```'
    echo
  } >>"$COMPARE"
done

# --- the report -------------------------------------------------------------------
RT_REV=$(git -C "$ROOT" rev-parse --short HEAD)
git -C "$ROOT" diff --quiet HEAD -- lib/MemProfRuntime || RT_REV="$RT_REV + uncommitted changes in lib/MemProfRuntime"
T_END=$(date +%s)
python3 - "$WORK/times.txt" "$REACH" "$COMPARE" "$REPS" "$RT_REV" "$((T_END - T_START))" \
  "$(uptime | sed 's/.*load average: //')" "${LDB_ARGS[*]}" >"$WORK/results.md" <<'EOF'
import json, sys
times, reach_file, compare_file, reps, rev, secs, load, ldb_args = sys.argv[1:]
rows = {}
for line in open(times):
    name, wall, cpu, rss = line.split()
    rows[name] = (float(wall), float(cpu), int(rss) / 1024)
reach = {}
for line in open(reach_file):
    name, js = line.split(" ", 1)
    reach[name] = json.loads(js)
PROGRAM = {"ldb": "db_bench", "st": "speedtest1", "pl": "perl"}
print(f"# Unwinder benchmark: best of {reps} interleaved rounds, runtime at {rev}")
print()
print(f"db_bench `{ldb_args}`; speedtest1 `--size 20 --memdb`; perl "
      f"`bench/alloc-workload.pl`. Load average at the end: {load}. "
      f"The script ran {secs} s.")
print()
print("Reach: allocations (sum of AllocCount) and contexts whose stack has a frame "
      "in the program's own code (db_bench; speedtest1; the perl executable), over "
      "all rounds' profiles; heaptrack's profile is not MemProf's (n/a).")
print()
print("| program | command | wall (s) | CPU (s) | peak RSS (MiB) | wall / plain | CPU / plain "
      "| RSS / plain | allocations reaching the program | contexts reaching it | allocations per run |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name, (w, c, r) in rows.items():
    prog = name.split("-")[0]
    base = rows[prog + "-plain"]
    cmd = name[len(prog) + 1:]
    if name in reach:
        t = reach[name]
        n = len(t["allocations_per_file"])
        ra = f"{100 * t['allocations_reached'] / t['allocations']:.1f}%"
        rc = f"{100 * t['contexts_reached'] / t['contexts']:.1f}% of {t['contexts'] / n:,.0f}"
        lo, hi = min(t["allocations_per_file"]), max(t["allocations_per_file"])
        per = f"{lo:,}" if lo == hi else f"{lo:,}-{hi:,}"
    elif cmd == "plain":
        ra = rc = per = ""
    else:
        ra = rc = per = "n/a"
    print(f"| {PROGRAM[prog]} | {cmd} | {w:.3f} | {c:.3f} | {r:.1f} | {w / base[0]:.2f} | "
          f"{c / base[1]:.2f} | {r / base[2]:.2f} | {ra} | {rc} | {per} |")
print()
print("Reach is over all the rounds' profiles of a row (contexts: per run, on "
      "average); allocations per run: the fewest and the most of its runs. "
      "db_bench's count moves from run to run (by up to half) with the "
      "allocations of table block reads (Block::NewIterator, ReadBlock, the "
      "block iterator's key strings), which depend on how much its background "
      "thread has flushed and compacted by then; its allocation share moves "
      "with it.")
print()
print("## Where our walks stop short of db_bench (against clang's slow unwinder)")
print()
print(open(compare_file).read().rstrip())
EOF
cat "$WORK/results.md"
