#!/usr/bin/env bash
# Symbolization benchmark (issue 37): memprof-merge against llvm-profdata-22
# on SQLite speedtest1's raw MemProf profiles, in paired rounds
# (bench/paired.py: every command's time as a ratio to llvm-profdata's in
# the same round, the median over the rounds), for the symbol cache cold,
# warm and off, with and without the system's directories, and for 50
# inputs against one. A benchmark, not a test: it prints the figures of one
# run (into bench/work/symcache-results.md) and fails only if something
# cannot run or an output differs where it must not.
#
#   bench/symcache-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK    work directory (default bench/work, git-ignored):
#                         speedtest1 and its profiles are made there as
#                         bench/merge-bench.sh makes them, from the SQLite
#                         source bench/sqlite-source.sh unpacks there
#   MEMPROF_BENCH_SQLITE  a directory holding sqlite3.c and test/speedtest1.c
#                         to use instead (no download)
#   MEMPROF_MERGE         the memprof-merge to measure (default build-bench's,
#                         built Release if missing)
#   MEMPROF_BENCH_ROUNDS  paired rounds (default 20)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work}
ROUNDS=${MEMPROF_BENCH_ROUNDS:-20}
BUILD=$ROOT/build-bench
LLVM_PROFDATA=llvm-profdata-22
JOBS=2 # at most two cores

log() { printf 'symcache-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
mkdir -p "$WORK"

# --- speedtest1 and 50 profiles (5 test sets x sizes 1..10) ------------------
ST=$WORK/speedtest1
if [ ! -x "$ST" ]; then
  if [ -n "${MEMPROF_BENCH_SQLITE:-}" ]; then
    SRC=$MEMPROF_BENCH_SQLITE
  else
    bash "$ROOT/bench/sqlite-source.sh" "$WORK" >/dev/null
    SRC=$WORK/sqlite
  fi
  log "compiling speedtest1"
  clang-22 -fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O2 \
    -DSQLITE_ENABLE_RTREE -I"$SRC" "$SRC/test/speedtest1.c" "$SRC/sqlite3.c" \
    -o "$ST" -lm -lpthread -ldl
fi
PROF=$WORK/symcache-profiles
runs=()
for t in main cte rtree orm fp; do for s in $(seq 1 10); do runs+=("$t-$s"); done; done
if [ ! -s "$PROF/main-10.memprofraw" ] || [ "$(ls "$PROF"/*.memprofraw | wc -l)" -lt 50 ]; then
  log "profiling ${#runs[@]} runs of speedtest1"
  rm -rf "$PROF" && mkdir -p "$PROF/tmp"
  export ST PROF
  # shellcheck disable=SC2016 # the inner script expands its own variables
  printf '%s\n' "${runs[@]}" | xargs -P "$JOBS" -n 1 sh -c '
    r=$1; t=${r%-*}; s=${r##*-}
    MEMPROF_OPTIONS=log_path="$PROF/tmp/$r" "$ST" --testset "$t" --size "$s" --memdb "$r.db" \
      >/dev/null 2>&1 || { echo "speedtest1 $r failed" >&2; exit 255; }
    set -- "$PROF/tmp/$r".[0-9]*
    mv "$1" "$PROF/$r.memprofraw"' sh
  rm -rf "$PROF/tmp"
fi
ONE=$PROF/main-10.memprofraw
ALL=()
for r in "${runs[@]}"; do ALL+=("$PROF/$r.memprofraw"); done

# --- memprof-merge ------------------------------------------------------------
if [ -n "${MEMPROF_MERGE:-}" ]; then
  MM=$MEMPROF_MERGE
else
  log "building memprof-merge (Release) in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMEMPROF_ENABLE_TESTS=OFF >"$WORK/cmake.log" 2>&1 || die "cmake failed"
  ninja -j"$JOBS" -C "$BUILD" memprof-merge >"$WORK/ninja.log" 2>&1 || die "build failed"
  MM=$BUILD/bin/memprof-merge
fi

# --- measurements ------------------------------------------------------------
OUT=$WORK/symcache-out
rm -rf "$OUT" && mkdir -p "$OUT"
WARM=$OUT/warm-cache     # filled before the rounds, then only read
WARM50=$OUT/warm-cache-50
COLD=$OUT/cold-cache     # a new directory for every run: COLD/<pid of its shell>
SPEC=$OUT/spec.txt
# Every command runs under sh -c, so that all pay the same shell start (the
# cold runs need the shell's pid for a fresh directory: no `rm` process is
# timed).
cmd() { local name=$1; shift; printf '%s %q %q %q\n' "$name" sh -c "$*" >>"$SPEC"; }
: >"$SPEC"
B="--profiled-binary $ST"
cmd llvm-1        "$LLVM_PROFDATA merge $ONE $B -o $OUT/llvm-1.profdata"
cmd mm-cold       "MEMPROF_SYMBOL_CACHE=$COLD/\$\$ $MM $ONE $B -o $OUT/mm-cold.profdata"
cmd mm-warm       "MEMPROF_SYMBOL_CACHE=$WARM $MM $ONE $B -o $OUT/mm-warm.profdata"
cmd mm-off        "$MM --no-symbol-cache $ONE $B -o $OUT/mm-off.profdata"
cmd mm-sysdwarf   "$MM --no-symbol-cache --system-dwarf $ONE $B -o $OUT/mm-sysdwarf.profdata"
cmd nosys-cold    "MEMPROF_SYMBOL_CACHE=$COLD/\$\$ $MM --no-system-dirs --no-names $ONE $B -o $OUT/nosys-cold.profdata"
cmd nosys-warm    "MEMPROF_SYMBOL_CACHE=$WARM $MM --no-system-dirs --no-names $ONE $B -o $OUT/nosys-warm.profdata"
cmd nosys-off     "$MM --no-symbol-cache --no-system-dirs --no-names $ONE $B -o $OUT/nosys-off.profdata"
cmd mm50-cold     "MEMPROF_SYMBOL_CACHE=$COLD/\$\$ $MM -j2 ${ALL[*]} $B -o $OUT/mm50-cold.profdata"
cmd mm50-warm     "MEMPROF_SYMBOL_CACHE=$WARM50 $MM -j2 ${ALL[*]} $B -o $OUT/mm50-warm.profdata"
cmd mm50-off      "$MM --no-symbol-cache -j2 ${ALL[*]} $B -o $OUT/mm50-off.profdata"
log "warming the caches"
MEMPROF_SYMBOL_CACHE=$WARM "$MM" -q "$ONE" $B -o /dev/null
MEMPROF_SYMBOL_CACHE=$WARM "$MM" -q --no-system-dirs "$ONE" $B -o /dev/null
MEMPROF_SYMBOL_CACHE=$WARM50 "$MM" -q -j2 "${ALL[@]}" $B -o /dev/null
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
log "measuring: $ROUNDS paired rounds of $(wc -l <"$SPEC") commands (load average $LOAD)"
python3 "$ROOT/bench/paired.py" "$ROUNDS" "$OUT" <"$SPEC" >"$OUT/ratios.txt" ||
  die "a measured command failed (see $OUT/*.log)"

same() { cmp -s "$1" "$2" && echo yes || echo NO; }
declare -A CPU WALL MIN
while read -r name _ c _ w _ m; do CPU[$name]=$c; WALL[$name]=$w; MIN[$name]=$m; done \
  < <(grep -v '^llvm-1 ' "$OUT/ratios.txt")
read -r _ _ BCPUMIN BCPUMED _ BWALLMIN BWALLMED < <(grep '^llvm-1 ' "$OUT/ratios.txt")
r50() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(round(float(sys.argv[1]) * 1000))" "$1"; }
{
  echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC on $(nproc) cores; memprof $(git -C "$ROOT" rev-parse --short HEAD);"
  echo "$($LLVM_PROFDATA --version 2>&1 | grep -o 'LLVM version [0-9.]*' | head -n1); $ROUNDS paired rounds, load average $LOAD when they began."
  echo "Baseline llvm-profdata-22 merge of one input: CPU median $(ms "$BCPUMED") ms (fastest $(ms "$BCPUMIN")), wall median $(ms "$BWALLMED") ms."
  echo
  echo "| command | CPU / llvm-profdata (median of rounds) | wall / llvm-profdata | fastest CPU / fastest |"
  echo "|---|---:|---:|---:|"
  for n in mm-cold mm-warm mm-off mm-sysdwarf nosys-cold nosys-warm nosys-off mm50-cold mm50-warm mm50-off; do
    echo "| $n | ${CPU[$n]} | ${WALL[$n]} | ${MIN[$n]} |"
  done
  echo
  echo "50 inputs / 1 input (CPU medians): cold $(r50 "${CPU[mm50-cold]}" "${CPU[mm-cold]}")," \
       "warm $(r50 "${CPU[mm50-warm]}" "${CPU[mm-warm]}"), off $(r50 "${CPU[mm50-off]}" "${CPU[mm-off]}")."
  echo
  echo "- default output, cold = warm = off: $(same "$OUT/mm-cold.profdata" "$OUT/mm-warm.profdata") $(same "$OUT/mm-cold.profdata" "$OUT/mm-off.profdata")"
  echo "- --no-system-dirs --no-names = llvm-profdata's bytes: cold $(same "$OUT/llvm-1.profdata" "$OUT/nosys-cold.profdata"), warm $(same "$OUT/llvm-1.profdata" "$OUT/nosys-warm.profdata"), off $(same "$OUT/llvm-1.profdata" "$OUT/nosys-off.profdata")"
  echo "- 50 inputs, cold = warm = off: $(same "$OUT/mm50-cold.profdata" "$OUT/mm50-warm.profdata") $(same "$OUT/mm50-cold.profdata" "$OUT/mm50-off.profdata")"
} | tee "$WORK/symcache-results.md"
