#!/usr/bin/env bash
# Merge benchmark: wall time, CPU time and peak RSS of memprof-merge against
# llvm-profdata-22 on raw MemProf profiles of a real program, SQLite's
# speedtest1 (from Debian's sqlite3 source package), for one input and for
# 100 inputs. A benchmark, not a test: it prints figures and ratios of one
# run (into bench/work/results.md) and fails only if something cannot run.
#
#   bench/merge-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK   work directory (default bench/work, git-ignored)
#   MEMPROF_BENCH_BUILD  memprof Release build directory (default build-bench)
#   MEMPROF_BENCH_REPS   rounds of measurement, the best time is kept (default 3)
#   MEMPROF_MERGE        a memprof-merge binary to measure instead of building one
set -euo pipefail
# Every run symbolizes afresh, as these figures always have (and nothing is
# written to ~/.cache): bench/symcache-bench.sh measures the symbol cache.
export MEMPROF_SYMBOL_CACHE=off

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
REPS=${MEMPROF_BENCH_REPS:-3}
JOBS=2 # at most two cores

# speedtest1 runs for the 100 profiles: 5 test sets x sizes 1..20.
TESTSETS=(main cte rtree orm fp)
SIZES=$(seq 1 20)
ONE=main-10 # the single-input case: `--testset main --size 10`

CC=clang-22
CFLAGS=(-fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O2
        -DSQLITE_ENABLE_RTREE) # RTREE only for speedtest1's `--testset rtree`
LLVM_PROFDATA=llvm-profdata-22

log() { printf 'merge-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- 1. dependencies (Debian packages) --------------------------------------
bash "$ROOT/scripts/setup.sh" >&2

# --- 2. SQLite source from Debian's package ----------------------------------
TARBALL=$(bash "$ROOT/bench/sqlite-source.sh" "$WORK")

# --- 3. speedtest1 with clang's MemProf instrumentation ----------------------
ST=$WORK/speedtest1
STAMP="$TARBALL $CC ${CFLAGS[*]} $($CC --version | head -n1)"
if [ ! -x "$ST" ] || [ "$(cat "$ST.stamp" 2>/dev/null)" != "$STAMP" ]; then
  rm -rf "$WORK/profiles" "$ST" "$ST.stamp"
  log "compiling speedtest1 with $CC ${CFLAGS[*]}"
  $CC "${CFLAGS[@]}" -I"$WORK/sqlite" "$WORK/sqlite/test/speedtest1.c" \
    "$WORK/sqlite/sqlite3.c" -o "$ST" -lm -lpthread -ldl
  echo "$STAMP" >"$ST.stamp"
fi

# --- 4. raw profiles: 100 distinct runs --------------------------------------
PROF=$WORK/profiles
runs=()
for t in "${TESTSETS[@]}"; do for s in $SIZES; do runs+=("$t-$s"); done; done
missing=0
for r in "${runs[@]}"; do [ -s "$PROF/$r.memprofraw" ] || missing=1; done
if [ "$missing" = 1 ]; then
  log "profiling ${#runs[@]} runs of speedtest1 ($JOBS at a time)"
  rm -rf "$PROF" && mkdir -p "$PROF/tmp"
  export ST PROF
  # shellcheck disable=SC2016 # the inner script expands its own variables
  printf '%s\n' "${runs[@]}" | xargs -P "$JOBS" -n 1 sh -c '
    r=$1; t=${r%-*}; s=${r##*-}
    MEMPROF_OPTIONS=log_path="$PROF/tmp/$r" "$ST" --testset "$t" --size "$s" --memdb "$r.db" \
      >"$PROF/tmp/$r.out" 2>&1 || { echo "speedtest1 $r failed" >&2; exit 255; }
    set -- "$PROF/tmp/$r".[0-9]*
    [ "$#" -eq 1 ] && [ -s "$1" ] || { echo "speedtest1 $r wrote no profile" >&2; exit 255; }
    mv "$1" "$PROF/$r.memprofraw"' sh
  rm -rf "$PROF/tmp"
fi
ALL=()
for r in "${runs[@]}"; do ALL+=("$PROF/$r.memprofraw"); done
printf '%s\n' "${runs[@]/%/.memprofraw}" >"$PROF/list.txt" # relative to the list
ONERAW=$PROF/$ONE.memprofraw

# --- 5. memprof-merge, Release --------------------------------------------
if [ -n "${MEMPROF_MERGE:-}" ]; then
  MM=$MEMPROF_MERGE
else
  log "building memprof-merge (Release) in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMEMPROF_ENABLE_TESTS=OFF >"$WORK/cmake.log" 2>&1 || die "cmake failed (see $WORK/cmake.log)"
  ninja -j"$JOBS" -C "$BUILD" memprof-merge >"$WORK/ninja.log" 2>&1 ||
    die "building memprof-merge failed (see $WORK/ninja.log)"
  MM=$BUILD/bin/memprof-merge
fi

# --- 6. measurements -----------------------------------------------------
OUT=$WORK/out
rm -rf "$OUT" && mkdir -p "$OUT"
declare -A T C R
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
SPEC=$OUT/spec.txt
: >"$SPEC"
cmd() { printf '%q ' "$@" >>"$SPEC"; echo >>"$SPEC"; } # NAME COMMAND...
cmd llvm-1    $LLVM_PROFDATA merge "$ONERAW" --profiled-binary "$ST" -o "$OUT/llvm-1.profdata"
cmd mm-1      "$MM" "$ONERAW" --profiled-binary "$ST" -o "$OUT/mm-1.profdata"
# memprof-merge's names extension (after LLVM's bytes) is on by default where
# the binary has it; --no-names writes LLVM's bytes only, for the byte check.
NONAMES=""
"$MM" --help 2>/dev/null | grep -q -- '--no-names' && NONAMES=yes
[ -z "$NONAMES" ] ||
  cmd mm-1-nn "$MM" --no-names "$ONERAW" --profiled-binary "$ST" -o "$OUT/mm-1-nn.profdata"
cmd llvm-100  $LLVM_PROFDATA merge "${ALL[@]}" --profiled-binary "$ST" -o "$OUT/llvm-100.profdata"
cmd mm-100-j1 "$MM" -j1 "${ALL[@]}" --profiled-binary "$ST" -o "$OUT/mm-100-j1.profdata"
cmd mm-100-j2 "$MM" -j2 "${ALL[@]}" --profiled-binary "$ST" -o "$OUT/mm-100-j2.profdata"
cmd mm-100-f  "$MM" -j2 -f "$PROF/list.txt" --profiled-binary "$ST" -o "$OUT/mm-100-f.profdata"
log "measuring: $REPS interleaved rounds of $(wc -l <"$SPEC") commands (load average $LOAD)"
python3 "$ROOT/bench/measure.py" "$REPS" "$OUT" <"$SPEC" >"$OUT/times.txt" ||
  die "a measured command failed (see $OUT/*.log)"
while read -r name t c r; do T[$name]=$t; C[$name]=$c; R[$name]=$r; done <"$OUT/times.txt"

same() { cmp -s "$1" "$2" && echo yes || echo NO; }
MM1=$OUT/mm-1.profdata
[ -z "$NONAMES" ] || MM1=$OUT/mm-1-nn.profdata
SAME1=$(same "$OUT/llvm-1.profdata" "$MM1")
EQUIV1=$(python3 "$ROOT/bench/equiv.py" "$OUT/llvm-1.profdata" "$MM1")
SAMEJ=$(same "$OUT/mm-100-j1.profdata" "$OUT/mm-100-j2.profdata")
SAMEF=$(same "$OUT/mm-100-j2.profdata" "$OUT/mm-100-f.profdata")
# llvm-profdata 22 keeps only the first raw input of each of its worker
# threads: with one thread its 100-input output is that of the first input.
log "checking what llvm-profdata keeps of 100 inputs (one untimed run, --num-threads=1)"
$LLVM_PROFDATA merge "${ALL[0]}" --profiled-binary "$ST" -o "$OUT/llvm-first.profdata" 2>/dev/null
$LLVM_PROFDATA merge --num-threads=1 "${ALL[@]}" --profiled-binary "$ST" \
  -o "$OUT/llvm-100-t1.profdata" 2>/dev/null
LLVMFIRST=$(same "$OUT/llvm-100-t1.profdata" "$OUT/llvm-first.profdata")
ctx() { $LLVM_PROFDATA show --memory "$1" | sed -n 's/^#   Total contexts: //p'; }

read -r _ ONEBYTES ONECTX < <(python3 "$ROOT/bench/rawstats.py" "$ONERAW")
read -r _ ALLBYTES ALLCTX < <(python3 "$ROOT/bench/rawstats.py" "${ALL[@]}")
size() { stat -c %s "$1"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(round(float(sys.argv[1]) * 1000))" "$1"; }
mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1024:.1f}')" "$1"; }

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain -- lib include tools 2>/dev/null)" ] || REV="$REV + uncommitted changes"
row() { # LABEL NAME OUTPUT
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$(ms "${T[$2]}")" "$(ms "${C[$2]}")" "$(mib "${R[$2]}")" \
    "$(size "$3")" "$(ctx "$3")"
}

{
  echo "Run $(date -u +%Y-%m-%d) on $(nproc) cores, $CPU, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);"
  echo "memprof $REV${MEMPROF_MERGE:+ (memprof-merge: $MEMPROF_MERGE)}; llvm-profdata-22: $($LLVM_PROFDATA --version 2>&1 | grep -o 'LLVM version [0-9.]*' | head -n1)."
  echo "Wall and CPU (user + system) times: the best of $REPS runs each, in $REPS interleaved rounds;"
  echo "peak RSS: the largest."
  echo "Load average when measuring began: $LOAD.$(awk -v l="${LOAD%% *}" -v n="$(nproc)" \
    'BEGIN { if (l > n / 2) printf " The machine was busy: wall times are inflated, read the CPU column." }')"
  echo
  echo "Profiles of \`speedtest1\` ($(size "$ST") bytes): one input is \`--testset main --size 10\`,"
  echo "$ONEBYTES bytes, $ONECTX contexts; 100 inputs are 100 distinct runs (test sets"
  echo "${TESTSETS[*]} x sizes 1-20), $ALLBYTES bytes ($(ratio "$ALLBYTES" "$ONEBYTES")x), $ALLCTX contexts in all."
  echo
  echo "| command | wall (ms) | CPU (ms) | peak RSS (MiB) | output (bytes) | contexts in output |"
  echo "|---|---:|---:|---:|---:|---:|"
  row "llvm-profdata-22 merge, 1 input" llvm-1 "$OUT/llvm-1.profdata"
  row "memprof-merge, 1 input" mm-1 "$OUT/mm-1.profdata"
  [ -z "$NONAMES" ] || row "memprof-merge --no-names, 1 input" mm-1-nn "$OUT/mm-1-nn.profdata"
  row "llvm-profdata-22 merge, 100 inputs (loses data)" llvm-100 "$OUT/llvm-100.profdata"
  row "memprof-merge -j1, 100 inputs" mm-100-j1 "$OUT/mm-100-j1.profdata"
  row "memprof-merge -j2, 100 inputs" mm-100-j2 "$OUT/mm-100-j2.profdata"
  row "memprof-merge -j2 -f list, 100 inputs" mm-100-f "$OUT/mm-100-f.profdata"
  echo
  ratio_row() { echo "| $1 | $(ratio "${T[$2]}" "${T[$3]}") | $(ratio "${C[$2]}" "${C[$3]}") | $(ratio "${R[$2]}" "${R[$3]}") | $4 |"; }
  echo "| ratio | wall | CPU | peak RSS | target (time) |"
  echo "|---|---:|---:|---:|---|"
  ratio_row "memprof-merge / llvm-profdata, 1 input" mm-1 llvm-1 "<= 1"
  [ -z "$NONAMES" ] || ratio_row "memprof-merge --no-names / llvm-profdata, 1 input" mm-1-nn llvm-1 ""
  ratio_row "memprof-merge 100 inputs / 1 input, -j2" mm-100-j2 mm-1 "< 3"
  ratio_row "memprof-merge 100 inputs / 1 input, -j1" mm-100-j1 mm-1 ""
  ratio_row "memprof-merge -j2 / llvm-profdata, 100 inputs" mm-100-j2 llvm-100 ""
  echo
  echo "- 1 input: memprof-merge${NONAMES:+ --no-names} output byte-identical to llvm-profdata's: $SAME1;"
  echo "  same content with duplicate entries summed (bench/equiv.py, llvm-profdata first): $EQUIV1"
  echo "- 100 inputs: -j1 and -j2 outputs identical: $SAMEJ; -f list identical: $SAMEF"
  echo "- llvm-profdata --num-threads=1 on 100 inputs: output identical to the first input's alone: $LLVMFIRST"
} | tee "$WORK/results.md"
