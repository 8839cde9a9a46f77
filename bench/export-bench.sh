#!/usr/bin/env bash
# Export benchmark: the output size and the time of every memprof-convert
# export of a large profile, against the indexed file's size and the time
# memprof-show takes to read and report the same file. The profile is
# generated (bench/gen-profile.py: a compiled program of 3,000 C++
# functions, 166,000 allocation contexts of 8 to 96 frames, about yaml-cpp's
# count) and symbolized by memprof-merge like any raw profile. A benchmark,
# not a test: it prints figures and ratios of one run (into
# bench/work/export-results.md) and fails only if something cannot run.
#
#   bench/export-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK      work directory (default bench/work, git-ignored)
#   MEMPROF_BENCH_BIN       directory of the memprof tools to measure (default:
#                           build them, Release, in MEMPROF_BENCH_BUILD)
#   MEMPROF_BENCH_BUILD     memprof Release build directory (default build-bench)
#   MEMPROF_BENCH_REPS      rounds of measurement, the best time is kept (default 3)
#   MEMPROF_BENCH_CONTEXTS  contexts of the generated profile (default 166000)
#   MEMPROF_BENCH_V1        1 (default): also time --json-format=1 once, its
#                           output counted, not kept (several GB); 0: skip it
#   MEMPROF_BENCH_BASELINE  a directory of older memprof tools: each export is
#                           also run once with them, for a before/after table
#                           (their --to-json is the old layout)
set -euo pipefail
# Every run symbolizes afresh, as these figures always have (and nothing is
# written to ~/.cache): bench/symcache-bench.sh measures the symbol cache.
export MEMPROF_SYMBOL_CACHE=off

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
REPS=${MEMPROF_BENCH_REPS:-3}
CONTEXTS=${MEMPROF_BENCH_CONTEXTS:-166000}
V1=${MEMPROF_BENCH_V1:-1}
BASE=${MEMPROF_BENCH_BASELINE:-}
JOBS=2 # at most two cores

log() { printf 'export-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
mkdir -p "$WORK"

# --- 1. the tools ------------------------------------------------------------
if [ -n "${MEMPROF_BENCH_BIN:-}" ]; then
  BIN=$MEMPROF_BENCH_BIN
else
  log "building memprof (Release) in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMEMPROF_ENABLE_TESTS=OFF >"$WORK/cmake.log" 2>&1 || die "cmake failed (see $WORK/cmake.log)"
  ninja -j"$JOBS" -C "$BUILD" memprof-convert memprof-merge memprof-show >"$WORK/ninja.log" 2>&1 ||
    die "building the tools failed (see $WORK/ninja.log)"
  BIN=$BUILD/bin
fi
for t in memprof-convert memprof-merge memprof-show; do
  [ -x "$BIN/$t" ] || die "no $BIN/$t"
done

# --- 2. the profile ----------------------------------------------------------
GEN=$WORK/gen-$CONTEXTS
ARGS=(--contexts "$CONTEXTS" --functions 3000 --min-depth 8 --max-depth 96 --seed 33)
STAMP="${ARGS[*]} $(clang++-22 --version | head -n1) $(sha1sum "$ROOT/bench/gen-profile.py" | cut -c1-12)"
PROFILE=$GEN/gen.profdata
if [ ! -s "$PROFILE" ] || [ "$(cat "$GEN/stamp" 2>/dev/null)" != "$STAMP" ]; then
  rm -rf "$GEN"
  log "generating a profile of $CONTEXTS contexts in $GEN"
  python3 "$ROOT/bench/gen-profile.py" --out "$GEN" "${ARGS[@]}"
  "$BIN/memprof-convert" --to-raw "$GEN/gen.rawtext" -o "$GEN/gen.memprofraw"
  "$BIN/memprof-merge" -q --no-system-dirs "$GEN/gen.memprofraw" --profiled-binary "$GEN/gen" -o "$PROFILE"
  rm -f "$GEN/gen.rawtext"
  echo "$STAMP" >"$GEN/stamp"
fi

# --- 3. measurements ---------------------------------------------------------
OUT=$WORK/export-out
rm -rf "$OUT" && mkdir -p "$OUT"
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
SPEC=$OUT/spec.txt
: >"$SPEC"
cmd() { printf '%q ' "$@" >>"$SPEC"; echo >>"$SPEC"; } # NAME COMMAND...
C=$BIN/memprof-convert
# Every export to a file beside the others; memprof-show's report (the top
# 10 contexts and the summary) to its log.
cmd show        "$BIN/memprof-show" "$PROFILE"
cmd json        "$C" --to-json "$PROFILE" -o "$OUT/gen.json"
cmd pprof       "$C" --to-pprof "$PROFILE" -o "$OUT/gen.pb.gz"
cmd flamegraph  "$C" --to-flamegraph "$PROFILE" -o "$OUT/gen.svg"
cmd folded      "$C" --to-folded "$PROFILE" -o "$OUT/gen.folded"
cmd text        "$C" --to-text "$PROFILE" -o "$OUT/gen.yaml"
log "measuring: $REPS interleaved rounds of $(wc -l <"$SPEC") commands (load average $LOAD)"
python3 "$ROOT/bench/measure.py" "$REPS" "$OUT" <"$SPEC" >"$OUT/times.txt" ||
  die "a measured command failed (see $OUT/*.log)"
declare -A T CPU RSS SIZE
while read -r name t c r; do T[$name]=$t; CPU[$name]=$c; RSS[$name]=$r; done <"$OUT/times.txt"
SIZE[json]=$(stat -c %s "$OUT/gen.json")
SIZE[pprof]=$(stat -c %s "$OUT/gen.pb.gz")
SIZE[flamegraph]=$(stat -c %s "$OUT/gen.svg")
SIZE[folded]=$(stat -c %s "$OUT/gen.folded")
SIZE[text]=$(stat -c %s "$OUT/gen.yaml")
rm -f "$OUT/gen.yaml" # LLVM's text, the largest; its size is kept

# One untimed-rounds run: the old JSON layout, counted through a pipe.
once() { # NAME COMMAND... (output on stdout, counted)
  local name=$1; shift
  /usr/bin/time -o "$OUT/$name.time" -f '%e %U %S %M' "$@" 2>"$OUT/$name.log" | wc -c >"$OUT/$name.size" ||
    die "$name failed (see $OUT/$name.log)"
  read -r w u s m <"$OUT/$name.time"
  T[$name]=$w; CPU[$name]=$(python3 -c "print($u + $s)"); RSS[$name]=$m
  SIZE[$name]=$(cat "$OUT/$name.size")
}
if [ "$V1" = 1 ]; then
  log "measuring --to-json --json-format=1 once"
  once json1 "$C" --to-json --json-format=1 "$PROFILE"
fi
BASE_ROWS=()
if [ -n "$BASE" ]; then
  log "measuring the baseline tools in $BASE once each"
  once base-show "$BASE/memprof-show" "$PROFILE"
  unset 'SIZE[base-show]' # a report, not an export
  once base-json "$BASE/memprof-convert" --to-json "$PROFILE"
  once base-pprof "$BASE/memprof-convert" --to-pprof "$PROFILE" -o -
  once base-flamegraph "$BASE/memprof-convert" --to-flamegraph "$PROFILE"
  once base-folded "$BASE/memprof-convert" --to-folded "$PROFILE"
  BASE_ROWS=(show json pprof flamegraph folded)
fi

# --- 4. the table ------------------------------------------------------------
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$1" "$2"; }
secs() { python3 -c "import sys; print(f'{float(sys.argv[1]):.2f}')" "$1"; }
mib() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1048576:.1f}')" "$1"; }
mibk() { python3 -c "import sys; print(f'{int(sys.argv[1]) / 1024:.0f}')" "$1"; }
CPUNAME=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$ROOT" status --porcelain -- lib include tools 2>/dev/null)" ] || REV="$REV + uncommitted changes"
PSIZE=$(stat -c %s "$PROFILE")
NCTX=$(sed -n 's/^  all  *\([0-9]*\) contexts.*/\1/p' "$OUT/show.log" | head -n1)
row() { # LABEL NAME
  local s="-" r="-"
  if [ -n "${SIZE[$2]:-}" ]; then s=$(mib "${SIZE[$2]}"); r=$(ratio "${SIZE[$2]}" "$PSIZE"); fi
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$s" "$r" "$(secs "${T[$2]}")" \
    "$(secs "${CPU[$2]}")" "$(ratio "${T[$2]}" "${T[show]}")" "$(ratio "${CPU[$2]}" "${CPU[show]}")" \
    "$(mibk "${RSS[$2]}")"
}
{
  echo "Run $(date -u +%Y-%m-%d) on $(nproc) cores, $CPUNAME, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo);"
  echo "memprof $REV, tools in $BIN."
  echo "Wall and CPU (user + system) times: the best of $REPS runs each, in $REPS interleaved rounds"
  echo "(--json-format=1${BASE:+ and the baseline}: one run); peak RSS: the largest."
  echo "Load average when measuring began: $LOAD.$(awk -v l="${LOAD%% *}" -v n="$(nproc)" \
    'BEGIN { if (l > n / 2) printf " The machine was busy: wall times are inflated, read the CPU columns." }')"
  echo
  echo "Profile: bench/gen-profile.py ${ARGS[*]}, memprof-merge'd: $NCTX contexts,"
  echo "indexed file $(mib "$PSIZE") MiB (MemProf V3, hot/cold schema, names extension)."
  echo
  echo "| command | output (MiB) | / indexed file | wall (s) | CPU (s) | wall / show | CPU / show | peak RSS (MiB) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  row "memprof-show (report of the top 10)" show
  row "--to-json (format version 2)" json
  [ "$V1" != 1 ] || row "--to-json --json-format=1" json1
  row "--to-pprof" pprof
  row "--to-flamegraph" flamegraph
  row "--to-folded" folded
  row "--to-text (LLVM's YAML)" text
  if [ -n "$BASE" ]; then
    echo
    echo "Baseline ($BASE), one run each, ratios to its own memprof-show:"
    echo
    echo "| command | output (MiB) | / indexed file | wall (s) | CPU (s) | wall / show | CPU / show | peak RSS (MiB) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    T[show_]=${T[show]}; CPU[show_]=${CPU[show]}
    T[show]=${T[base-show]}; CPU[show]=${CPU[base-show]}
    for n in "${BASE_ROWS[@]}"; do row "$n" "base-$n"; done
    T[show]=${T[show_]}; CPU[show]=${CPU[show_]}
  fi
} | tee "$WORK/export-results.md"
