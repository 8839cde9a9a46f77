#!/usr/bin/env bash
# PGO counter merge benchmark: wall time, CPU time and peak RSS of
# `memprof-merge --no-names` against `llvm-profdata-22 merge` on .profraw files
# of a real program, SQLite's speedtest1 (from Debian's sqlite3 source
# package) built with clang-22 -O2 -fprofile-generate: one input, 100 inputs,
# and one counter profile with one raw MemProf profile (speedtest1 built with
# -fprofile-generate -fmemory-profile, run once, --profiled-binary). Checks that
# the outputs are byte-identical and reports it (a difference is reported, not
# a failure). A benchmark, not a test: it prints figures and ratios of one run
# (into $WORK/results.md) and fails only if something cannot run.
#
#   bench/instrprof-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK   work directory (default bench/work/instrprof, git-ignored)
#   MEMPROF_BENCH_BUILD  memprof Release build directory (default build-bench)
#   MEMPROF_BENCH_REPS   rounds of measurement, the best time is kept (default 3)
#   MEMPROF_MERGE        a memprof-merge binary to measure instead of building one
#   MEMPROF_SQLITE_SRC   a directory holding sqlite3.c, sqlite3.h and
#                        (test/)speedtest1.c, instead of bench/work/sqlite
set -euo pipefail
# Every run symbolizes afresh, as these figures always have (and nothing is
# written to ~/.cache): bench/symcache-bench.sh measures the symbol cache.
export MEMPROF_SYMBOL_CACHE=off

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/instrprof}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
REPS=${MEMPROF_BENCH_REPS:-3}
SQLITE=${MEMPROF_SQLITE_SRC:-$ROOT/bench/work/sqlite}
JOBS=2 # at most two cores

# speedtest1 runs for the 100 profiles: 5 test sets x sizes 1..20 (as
# merge-bench.sh); the single input and the MemProf run are `--testset main
# --size 10`.
TESTSETS=(main cte rtree orm fp)
SIZES=$(seq 1 20)
ONE=main-10

CC=clang-22
BASEFLAGS=(-O2 -DSQLITE_ENABLE_RTREE) # RTREE only for speedtest1's `--testset rtree`
PGOFLAGS=(-fprofile-generate)
# The MemProf build: counters and clang's MemProf instrumentation together,
# with the stacks merge-bench.sh uses.
BOTHFLAGS=(-fprofile-generate -fmemory-profile -gmlt -fdebug-info-for-profiling
           -fno-omit-frame-pointer)
LLVM_PROFDATA=llvm-profdata-22

log() { printf 'instrprof-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --- 1. dependencies (Debian packages) --------------------------------------
bash "$ROOT/scripts/setup.sh" >&2

# --- 2. SQLite source from Debian's package ----------------------------------
if [ -z "${MEMPROF_SQLITE_SRC:-}" ]; then
  TARBALL=$(bash "$ROOT/bench/sqlite-source.sh" "$ROOT/bench/work")
else
  TARBALL="sqlite from $SQLITE"
fi
for f in sqlite3.c sqlite3.h; do
  [ -e "$SQLITE/$f" ] || die "no $SQLITE/$f"
done
SPEEDTEST_C=$SQLITE/speedtest1.c
[ -e "$SPEEDTEST_C" ] || SPEEDTEST_C=$SQLITE/test/speedtest1.c
[ -e "$SPEEDTEST_C" ] || die "no speedtest1.c under $SQLITE"

# --- 3. speedtest1, -fprofile-generate and -fprofile-generate -fmemory-profile -
mkdir -p "$WORK"
build() { # OUTPUT FLAGS...: compiles speedtest1 unless OUTPUT is current
  local out=$1; shift
  local stamp
  stamp="$TARBALL $CC $* $($CC --version | head -n1)"
  if [ ! -x "$out" ] || [ "$(cat "$out.stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -f "$out" "$out.stamp"
    log "compiling $(basename "$out") with $CC $*"
    nice $CC "$@" -I"$SQLITE" "$SPEEDTEST_C" "$SQLITE/sqlite3.c" -o "$out" -lm -lpthread -ldl ||
      die "compiling $(basename "$out") failed"
    echo "$stamp" >"$out.stamp"
    return 0
  fi
  return 1
}
ST=$WORK/speedtest1-pgo
ST2=$WORK/speedtest1-pgo-memprof
PROF=$WORK/profiles
if build "$ST" "${BASEFLAGS[@]}" "${PGOFLAGS[@]}"; then rm -rf "$PROF"; fi
if build "$ST2" "${BASEFLAGS[@]}" "${BOTHFLAGS[@]}"; then rm -rf "$WORK/both"; fi

# --- 4. raw profiles: 100 distinct runs, and one run with MemProf ------------
runs=()
for t in "${TESTSETS[@]}"; do for s in $SIZES; do runs+=("$t-$s"); done; done
missing=0
for r in "${runs[@]}"; do [ -s "$PROF/$r.profraw" ] || missing=1; done
if [ "$missing" = 1 ]; then
  log "profiling ${#runs[@]} runs of speedtest1 ($JOBS at a time)"
  rm -rf "$PROF" && mkdir -p "$PROF/tmp"
  export ST PROF
  # shellcheck disable=SC2016 # the inner script expands its own variables
  printf '%s\n' "${runs[@]}" | xargs -P "$JOBS" -n 1 sh -c '
    r=$1; t=${r%-*}; s=${r##*-}
    LLVM_PROFILE_FILE="$PROF/tmp/$r.profraw" "$ST" --testset "$t" --size "$s" --memdb \
      >"$PROF/tmp/$r.out" 2>&1 || { echo "speedtest1 $r failed" >&2; exit 255; }
    [ -s "$PROF/tmp/$r.profraw" ] || { echo "speedtest1 $r wrote no profile" >&2; exit 255; }
    mv "$PROF/tmp/$r.profraw" "$PROF/$r.profraw"' sh
  rm -rf "$PROF/tmp"
fi
ALL=()
for r in "${runs[@]}"; do ALL+=("$PROF/$r.profraw"); done
ONERAW=$PROF/$ONE.profraw

BOTH=$WORK/both
if [ ! -s "$BOTH/$ONE.profraw" ] || [ ! -s "$BOTH/$ONE.memprofraw" ]; then
  log "profiling speedtest1 --testset main --size 10 with counters and MemProf"
  rm -rf "$BOTH" && mkdir -p "$BOTH/tmp"
  t=${ONE%-*}; s=${ONE##*-}
  LLVM_PROFILE_FILE="$BOTH/tmp/$ONE.profraw" MEMPROF_OPTIONS=log_path="$BOTH/tmp/$ONE.mem" \
    "$ST2" --testset "$t" --size "$s" --memdb >"$BOTH/tmp/$ONE.out" 2>&1 ||
    die "speedtest1 with MemProf failed (see $BOTH/tmp/$ONE.out)"
  set -- "$BOTH/tmp/$ONE.mem".[0-9]*
  [ "$#" -eq 1 ] && [ -s "$1" ] || die "speedtest1 with MemProf wrote no MemProf profile"
  [ -s "$BOTH/tmp/$ONE.profraw" ] || die "speedtest1 with MemProf wrote no .profraw"
  mv "$1" "$BOTH/$ONE.memprofraw"
  mv "$BOTH/tmp/$ONE.profraw" "$BOTH/$ONE.profraw"
  rm -rf "$BOTH/tmp"
fi
BOTHRAW=$BOTH/$ONE.profraw
BOTHMEM=$BOTH/$ONE.memprofraw

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
[ -x "$MM" ] || die "no memprof-merge at $MM"

# --- 6. measurements -----------------------------------------------------
OUT=$WORK/out
rm -rf "$OUT" && mkdir -p "$OUT"
declare -A T C R
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
SPEC=$OUT/spec.txt
: >"$SPEC"
cmd() { printf '%q ' "$@" >>"$SPEC"; echo >>"$SPEC"; } # NAME COMMAND...
cmd llvm-1    $LLVM_PROFDATA merge "$ONERAW" -o "$OUT/llvm-1.profdata"
cmd mm-1      "$MM" --no-names "$ONERAW" -o "$OUT/mm-1.profdata"
cmd llvm-100  $LLVM_PROFDATA merge "${ALL[@]}" -o "$OUT/llvm-100.profdata"
cmd mm-100    "$MM" --no-names "${ALL[@]}" -o "$OUT/mm-100.profdata"
cmd llvm-both $LLVM_PROFDATA merge "$BOTHRAW" "$BOTHMEM" --profiled-binary "$ST2" -o "$OUT/llvm-both.profdata"
cmd mm-both   "$MM" --no-names "$BOTHRAW" "$BOTHMEM" --profiled-binary "$ST2" -o "$OUT/mm-both.profdata"
log "measuring: $REPS interleaved rounds of $(wc -l <"$SPEC") commands (load average $LOAD)"
python3 "$ROOT/bench/measure.py" "$REPS" "$OUT" <"$SPEC" >"$OUT/times.txt" ||
  die "a measured command failed (see $OUT/*.log)"
while read -r name t c r; do T[$name]=$t; C[$name]=$c; R[$name]=$r; done <"$OUT/times.txt"

# Byte identity, and where it fails, whether the contents agree.
S=(show --all-functions --counts --ic-targets --memop-sizes)
# (show --memory only where both files should hold MemProf: llvm-profdata 22
# crashes on an indexed profile without a MemProf section.)
same() { # LLVM OURS [memprof]
  if cmp -s "$1" "$2"; then echo yes; return; fi
  local what diff
  diff=$(cmp "$1" "$2" 2>&1 || true)
  case $diff in
    *EOF*) what="NO (sizes $(stat -c %s "$1") and $(stat -c %s "$2"), one a prefix of the other" ;;
    *) what="NO (sizes $(stat -c %s "$1") and $(stat -c %s "$2"), first difference at byte $(echo "$diff" | sed -n 's/.* byte \([0-9]*\).*/\1/p')" ;;
  esac
  if { $LLVM_PROFDATA "${S[@]}" "$1" >"$1.show" && $LLVM_PROFDATA "${S[@]}" "$2" >"$2.show"; } 2>/dev/null &&
     cmp -s "$1.show" "$2.show"; then what="$what; same counters in show"; else what="$what; counters differ in show"; fi
  if [ "${3:-}" = memprof ]; then
    if ( { $LLVM_PROFDATA show --memory "$1" >"$1.yaml" && $LLVM_PROFDATA show --memory "$2" >"$2.yaml"; } 2>/dev/null ) 2>/dev/null &&
       cmp -s "$1.yaml" "$2.yaml"; then what="$what; same MemProf YAML"; else what="$what; MemProf YAML differs"; fi
  fi
  echo "$what)"
}
SAME1=$(same "$OUT/llvm-1.profdata" "$OUT/mm-1.profdata")
SAME100=$(same "$OUT/llvm-100.profdata" "$OUT/mm-100.profdata")
SAMEBOTH=$(same "$OUT/llvm-both.profdata" "$OUT/mm-both.profdata" memprof)

size() { stat -c %s "$1"; }
total() { local n=0 f; for f in "$@"; do n=$((n + $(size "$f"))); done; echo "$n"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
ms() { python3 -c "import sys; print(round(float(sys.argv[1]) * 1000))" "$1"; }
mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1024:.1f}')" "$1"; }
funcs() { $LLVM_PROFDATA show "$1" 2>/dev/null | sed -n 's/^Total functions: //p'; }

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain -- lib include tools 2>/dev/null)" ] || REV="$REV + uncommitted changes"
row() { # LABEL NAME OUTPUT
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$(ms "${T[$2]}")" "$(ms "${C[$2]}")" "$(mib "${R[$2]}")" \
    "$(size "$3")" "$(funcs "$3")"
}

{
  echo "Run $(date -u +%Y-%m-%d) on $(nproc) cores, $CPU, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);"
  echo "memprof $REV${MEMPROF_MERGE:+ (memprof-merge: $MEMPROF_MERGE)}; llvm-profdata-22: $($LLVM_PROFDATA --version 2>&1 | grep -o 'LLVM version [0-9.]*' | head -n1)."
  echo "Wall and CPU (user + system) times: the best of $REPS runs each, in $REPS interleaved rounds;"
  echo "peak RSS: the largest. Both tools with their default thread counts."
  echo "Load average when measuring began: $LOAD.$(awk -v l="${LOAD%% *}" -v n="$(nproc)" \
    'BEGIN { if (l > n / 2) printf " The machine was busy: wall times are inflated, read the CPU column." }')"
  echo
  echo "Counter profiles of \`speedtest1\` built with \`$CC ${BASEFLAGS[*]} ${PGOFLAGS[*]}\` ($(size "$ST") bytes):"
  echo "one input is \`--testset main --size 10\`, $(size "$ONERAW") bytes; 100 inputs are 100 distinct runs"
  echo "(test sets ${TESTSETS[*]} x sizes 1-20), $(total "${ALL[@]}") bytes in all."
  echo "Counters + MemProf: \`speedtest1\` built with \`$CC ${BASEFLAGS[*]} ${BOTHFLAGS[*]}\`, one run of"
  echo "\`--testset main --size 10\`: .profraw $(size "$BOTHRAW") bytes, raw MemProf $(size "$BOTHMEM") bytes."
  echo
  echo "| command | wall (ms) | CPU (ms) | peak RSS (MiB) | output (bytes) | functions in output |"
  echo "|---|---:|---:|---:|---:|---:|"
  row "llvm-profdata-22 merge, 1 input" llvm-1 "$OUT/llvm-1.profdata"
  row "memprof-merge --no-names, 1 input" mm-1 "$OUT/mm-1.profdata"
  row "llvm-profdata-22 merge, 100 inputs" llvm-100 "$OUT/llvm-100.profdata"
  row "memprof-merge --no-names, 100 inputs" mm-100 "$OUT/mm-100.profdata"
  row "llvm-profdata-22 merge, counters + MemProf" llvm-both "$OUT/llvm-both.profdata"
  row "memprof-merge --no-names, counters + MemProf" mm-both "$OUT/mm-both.profdata"
  echo
  ratio_row() { echo "| $1 | $(ratio "${T[$2]}" "${T[$3]}") | $(ratio "${C[$2]}" "${C[$3]}") | $(ratio "${R[$2]}" "${R[$3]}") | $4 |"; }
  echo "| memprof-merge / llvm-profdata | wall | CPU | peak RSS | byte-identical |"
  echo "|---|---:|---:|---:|---|"
  ratio_row "1 input" mm-1 llvm-1 "$SAME1"
  ratio_row "100 inputs" mm-100 llvm-100 "$SAME100"
  ratio_row "counters + MemProf" mm-both llvm-both "$SAMEBOTH"
} | tee "$WORK/results.md"
