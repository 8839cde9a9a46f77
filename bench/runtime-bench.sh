#!/usr/bin/env bash
# Runtime benchmark: slowdown and peak memory of memprof's preload mode
# (LD_PRELOAD=libmemprof_rt.so) on real programs, against the uninstrumented
# program, heaptrack, and clang-22's own MemProf runtime (preloaded into the
# same uninstrumented program, and compiled in with -fmemory-profile).
# A benchmark, not a test: it prints figures of one run into
# $WORK/results.md and fails only if something cannot run.
#
#   bench/runtime-bench.sh
#
# Programs:
#   speedtest1  SQLite's speedtest1 (`--size 20 --memdb`), built from the
#               amalgamation bench/sqlite-source.sh makes from Debian's sqlite3
#               source in bench/work/sqlite (or set MEMPROF_SQLITE_SRC to a
#               directory holding sqlite3.c, sqlite3.h and speedtest1.c)
#   perl        Debian's perl on bench/alloc-workload.pl (system malloc)
#   pod2man     Debian's pod2man (perl) on perl's own perldiag.pod: a real
#               program on a real input
#   clang       Debian's clang-22 -std=c++20 -fsyntax-only on
#               bench/syntax-workload.cpp (the standard library's headers)
#
# Environment:
#   MEMPROF_BENCH_WORK   work directory (default bench/work/runtime)
#   MEMPROF_BENCH_REPS   interleaved rounds; the best time is kept (default 7)
#   MEMPROF_RT           libmemprof_rt.so to measure (default: build-bench's,
#                        built here as a Release build)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work/runtime}
REPS=${MEMPROF_BENCH_REPS:-7}
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
SQLITE=${MEMPROF_SQLITE_SRC:-$ROOT/bench/work/sqlite}
CLANG_RT=$(clang-22 -print-file-name=libclang_rt.memprof-x86_64.so)
CFLAGS=(-O2 -g -fno-omit-frame-pointer -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_RTREE)

log() { printf 'runtime-bench: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

bash "$ROOT/scripts/setup.sh" >&2
command -v heaptrack >/dev/null || die "heaptrack missing (scripts/setup.sh installs it)"
command -v perl >/dev/null || die "perl missing"
command -v pod2man >/dev/null || die "pod2man missing (Debian's perl has it)"
PERLDIAG=$(perl -MConfig -e 'print $Config{privlib}')/pod/perldiag.pod
[ -e "$PERLDIAG" ] || die "no $PERLDIAG (Debian's perl-modules has it)"
[ -e "$CLANG_RT" ] || die "clang's MemProf runtime not found ($CLANG_RT)"

mkdir -p "$WORK/out"
# --- the runtime -------------------------------------------------------------
if [ -z "${MEMPROF_RT:-}" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  nice ninja -C "$BUILD" memprof_rt_shared >&2
  MEMPROF_RT=$BUILD/lib/libmemprof_rt.so
fi
[ -e "$MEMPROF_RT" ] || die "no $MEMPROF_RT"

# --- speedtest1, uninstrumented and with -fmemory-profile ---------------------
[ -n "${MEMPROF_SQLITE_SRC:-}" ] || bash "$ROOT/bench/sqlite-source.sh" "$ROOT/bench/work" >/dev/null
for f in sqlite3.c sqlite3.h; do
  [ -e "$SQLITE/$f" ] || die "no $SQLITE/$f"
done
SPEEDTEST_C=$SQLITE/speedtest1.c
[ -e "$SPEEDTEST_C" ] || SPEEDTEST_C=$SQLITE/test/speedtest1.c
[ -e "$SPEEDTEST_C" ] || die "no speedtest1.c under $SQLITE"
if [ ! -x "$WORK/speedtest1" ]; then
  log "building speedtest1 (uninstrumented)"
  nice clang-22 "${CFLAGS[@]}" -I"$SQLITE" "$SPEEDTEST_C" "$SQLITE/sqlite3.c" \
    -o "$WORK/speedtest1" -lm -lpthread
fi
if [ ! -x "$WORK/speedtest1-fmemory-profile" ]; then
  log "building speedtest1 with -fmemory-profile"
  nice clang-22 "${CFLAGS[@]}" -fmemory-profile -I"$SQLITE" "$SPEEDTEST_C" \
    "$SQLITE/sqlite3.c" -o "$WORK/speedtest1-fmemory-profile" -lm -lpthread
fi

# --- the commands -------------------------------------------------------------
# Every profiler writes a real file under $WORK/out (never a device).
OUT=$WORK/out
SPEC=$WORK/spec.txt
ST=("$WORK/speedtest1" --size 20 --memdb)
PL=(perl "$ROOT/bench/alloc-workload.pl")
PM=(pod2man "$PERLDIAG")
CL=(clang-22 -std=c++20 -fsyntax-only "$ROOT/bench/syntax-workload.cpp")
q() { printf '%q ' "$@"; echo; }
# Every run without address-space randomization (setarch -R), and perl with a
# fixed hash seed and key order: both move perl's own time by up to 25% from
# run to run (session 3 saw its minimum at 1.86 s in one run, 1.49 s in the next).
R=(setarch -R)
P=(env PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 setarch -R)
{
  q st-plain "${R[@]}" "${ST[@]}"
  q st-memprof "${R[@]}" env LD_PRELOAD="$MEMPROF_RT" MEMPROF_PROFILE_FILE="$OUT/st.%p.memprofraw" "${ST[@]}"
  q st-heaptrack "${R[@]}" heaptrack -o "$OUT/st-heaptrack" "${ST[@]}"
  q st-clang-rt-preload "${R[@]}" env LD_PRELOAD="$CLANG_RT" MEMPROF_OPTIONS="log_path=$OUT/st-clang-rt" "${ST[@]}"
  q st-fmemory-profile "${R[@]}" env MEMPROF_OPTIONS="log_path=$OUT/st-fmp" "$WORK/speedtest1-fmemory-profile" --size 20 --memdb
  q pl-plain "${P[@]}" "${PL[@]}"
  q pl-memprof "${P[@]}" env LD_PRELOAD="$MEMPROF_RT" MEMPROF_PROFILE_FILE="$OUT/pl.%p.memprofraw" "${PL[@]}"
  q pl-heaptrack "${P[@]}" heaptrack -o "$OUT/pl-heaptrack" "${PL[@]}"
  q pl-clang-rt-preload "${P[@]}" env LD_PRELOAD="$CLANG_RT" MEMPROF_OPTIONS="log_path=$OUT/pl-clang-rt" "${PL[@]}"
  q pm-plain "${P[@]}" "${PM[@]}"
  q pm-memprof "${P[@]}" env LD_PRELOAD="$MEMPROF_RT" MEMPROF_PROFILE_FILE="$OUT/pm.%p.memprofraw" "${PM[@]}"
  q pm-heaptrack "${P[@]}" heaptrack -o "$OUT/pm-heaptrack" "${PM[@]}"
  q pm-clang-rt-preload "${P[@]}" env LD_PRELOAD="$CLANG_RT" MEMPROF_OPTIONS="log_path=$OUT/pm-clang-rt" "${PM[@]}"
  q cl-plain "${R[@]}" "${CL[@]}"
  q cl-memprof "${R[@]}" env LD_PRELOAD="$MEMPROF_RT" MEMPROF_PROFILE_FILE="$OUT/cl.%p.memprofraw" "${CL[@]}"
  q cl-heaptrack "${R[@]}" heaptrack -o "$OUT/cl-heaptrack" "${CL[@]}"
  q cl-clang-rt-preload "${R[@]}" env LD_PRELOAD="$CLANG_RT" MEMPROF_OPTIONS="log_path=$OUT/cl-clang-rt" "${CL[@]}"
} >"$SPEC"

log "measuring ($REPS interleaved rounds)"
python3 "$ROOT/bench/measure.py" "$REPS" "$OUT" <"$SPEC" >"$WORK/times.txt"
rm -f "$OUT"/*.memprofraw "$OUT"/*heaptrack* "$OUT"/*-clang-rt* "$OUT"/st-fmp*

python3 - "$WORK/times.txt" >"$WORK/results.md" <<'EOF'
import sys
rows = {}
for line in open(sys.argv[1]):
    name, wall, cpu, rss = line.split()
    rows[name] = (float(wall), float(cpu), int(rss) / 1024)
print("| command | wall (s) | CPU (s) | peak RSS (MiB) | wall / plain | CPU / plain | RSS / plain |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, (w, c, r) in rows.items():
    base = rows[name.split("-")[0] + "-plain"]
    print(f"| {name} | {w:.3f} | {c:.3f} | {r:.1f} | {w / base[0]:.2f} | {c / base[1]:.2f} | {r / base[2]:.2f} |")
EOF
cat "$WORK/results.md"
