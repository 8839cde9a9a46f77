#!/usr/bin/env bash
# Fleet benchmark: memprof-fleet on a 2-worker local Dask cluster against
# memprof-merge -j2, one call per program, on 10,000 raw profiles of two
# programs (lit-tests/fleet/make-fleet.py: 40 runs of each, one of them
# also writing PGO counters, copied round robin as a fleet's hosts would
# write them). A benchmark, not a test: it prints the figures of one run
# (into bench/work/fleet-results.md) and fails only if something cannot run.
#
#   bench/fleet-bench.sh
#
# Environment:
#   MEMPROF_BENCH_WORK   work directory (default bench/work, git-ignored)
#   MEMPROF_BENCH_BUILD  memprof build directory (default build-bench)
#   MEMPROF_FLEET_INPUTS inputs (default 10000)
#   MEMPROF_BENCH_NO_SETUP  set: skip scripts/setup.sh (dependencies installed)
#
# Tools that have the symbol cache (docs/memprof-merge.md#symbol-cache) are
# also measured with it off, cold (an empty directory) and warm (the
# directory the cold run filled), all workers sharing it; the cache never
# leaves the work directory.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${MEMPROF_BENCH_WORK:-$ROOT/bench/work}/fleet
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
N=${MEMPROF_FLEET_INPUTS:-10000}
BIN=$BUILD/bin

log() { printf 'fleet-bench: %s\n' "$*" >&2; }
[ -n "${MEMPROF_BENCH_NO_SETUP:-}" ] || bash "$ROOT/scripts/setup.sh" >&2
[ -x "$BIN/memprof-fleet" ] || { log "error: no $BIN/memprof-fleet; build first"; exit 1; }

rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK"
export MEMPROF_SYMBOL_CACHE="$WORK/default-cache" # never the user's
CACHE=""
"$BIN/memprof-fleet" --help 2>/dev/null | grep -q -- --symbol-cache-dir && CACHE=yes
CFLAGS=(-fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O2)
clang++-22 "${CFLAGS[@]}" -fprofile-generate "$ROOT/lit-tests/memprof-show/Inputs/grow.cpp" -o a
clang++-22 "${CFLAGS[@]}" -O1 "$ROOT/lit-tests/memprof-show/Inputs/grow.cpp" -o b
log "writing $N inputs"
python3 "$ROOT/lit-tests/fleet/make-fleet.py" f "$N" ./a ./b
du -sh f/in >&2

cat > merge-both.sh <<EOS
#!/bin/sh
set -e
"$BIN/memprof-merge" -q -j2 --no-system-dirs --profiled-binary a -f f/a.list -o a.profdata
"$BIN/memprof-merge" -q -j2 --no-system-dirs --profiled-binary b -f f/b.list -o b.profdata
EOS
chmod +x merge-both.sh
{
  printf 'merge-j2 %q\n' ./merge-both.sh
  printf 'fleet-2w %s\n' "$(printf '%q ' env DASK_TEMPORARY_DIRECTORY="$WORK/dask" \
    "$BIN/memprof-fleet" f/in --output-dir out --profiled-binary a \
    --profiled-binary b --no-system-dirs --workers 2 --progress off)"
  # The fixed cost: a cluster started and stopped around two inputs.
  printf 'fleet-2w-two %s\n' "$(printf '%q ' env DASK_TEMPORARY_DIRECTORY="$WORK/dask" \
    "$BIN/memprof-fleet" "$(head -1 f/a.list)" "$(head -1 f/b.list)" \
    --output-dir out-two --profiled-binary a --profiled-binary b \
    --no-system-dirs --workers 2 --progress off)"
  # Shards of 64: a deep tree, many short merges.
  printf 'fleet-2w-s64 %s\n' "$(printf '%q ' env DASK_TEMPORARY_DIRECTORY="$WORK/dask" \
    "$BIN/memprof-fleet" f/in --output-dir out-s64 --profiled-binary a \
    --profiled-binary b --no-system-dirs --workers 2 --progress off --shard-size 64)"
  if [ -n "$CACHE" ]; then
    for mode in off cold warm; do
      opt=(--symbol-cache-dir "$WORK/fleet-cache")
      [ "$mode" = off ] && opt=(--no-symbol-cache)
      pre=true
      [ "$mode" = cold ] && pre="rm -rf $WORK/fleet-cache"
      printf 'fleet-2w-%s %s\n' "$mode" "$(printf '%q ' sh -c "$pre && exec \"\$@\"" sh \
        env DASK_TEMPORARY_DIRECTORY="$WORK/dask" "$BIN/memprof-fleet" f/in \
        --output-dir "out-$mode" --profiled-binary a --profiled-binary b \
        --no-system-dirs --workers 2 --progress off "${opt[@]}")"
    done
  fi
} > spec
python3 "$ROOT/bench/measure.py" 1 . < spec | tee times.txt >&2
python3 - "$WORK" <<'EOPY' | tee "$WORK/../fleet-results.md"
import json, os, sys
w = sys.argv[1]
t = {l.split()[0]: l.split()[1:] for l in open(os.path.join(w, "times.txt"))}
r = json.load(open(os.path.join(w, "out", "report.json")))
same = all(open(os.path.join(w, "out", p["output"]), "rb").read() ==
           open(os.path.join(w, n), "rb").read()
           for p, n in zip(sorted(r["programs"], key=lambda p: p["inputs"]),
                           ("b.profdata", "a.profdata")))
mw, mc, mr = map(float, t["merge-j2"])
fw, fc, fr = map(float, t["fleet-2w"])
tw = float(t["fleet-2w-two"][0])
sw = float(t["fleet-2w-s64"][0])
print("| run | wall | CPU (all processes) | ratio to memprof-merge |")
print("|---|---|---|---|")
print("| memprof-merge -j2, one call per program | %.2f s | %.2f s | 1.00x |" % (mw, mc))
print("| memprof-fleet, 2 workers, default shards (one a worker and program) | %.2f s | %.2f s | %.2fx |" % (fw, fc, fw / mw))
print("| memprof-fleet, 2 workers, shards of 64 | %.2f s | | %.2fx |" % (sw, sw / mw))
print("| memprof-fleet, 2 workers, 2 inputs (the fixed cost) | %.2f s | | |" % tw)
for mode in ("off", "cold", "warm"):
    k = "fleet-2w-" + mode
    if k in t:
        w_, c_ = float(t[k][0]), float(t[k][1])
        print("| memprof-fleet, 2 workers, symbol cache %s | %.2f s | %.2f s | %.2fx |"
              % (mode, w_, c_, w_ / mw))
peaks = sorted(r["workers"].values())
per_input = 2 * (fw - tw) / r["inputs"]  # worker-seconds
print()
print("%d inputs (%.1f MiB). Peak memory of a worker's memprof tools: %s MiB "
      "(memprof-merge alone: %.0f MiB). Outputs identical to the two "
      "memprof-merge calls: %s. Per input, beyond the fixed cost: %.2f ms of "
      "a worker." % (r["inputs"], sum(os.path.getsize(l.strip()) for n in ("a", "b")
                     for l in open(os.path.join(w, "f", n + ".list"))) / 2**20,
                     ", ".join("%.0f" % (p / 1024) for p in peaks), mr / 1024,
                     "yes" if same else "NO", 1000 * per_input))
modes = [m for m in ("off", "cold", "warm") if os.path.isdir(os.path.join(w, "out-" + m))]
if modes:
    def outs(d):
        d = os.path.join(w, d)
        return {n: open(os.path.join(d, n), "rb").read()
                for n in os.listdir(d) if n.endswith(".profdata")}
    base = outs("out")
    print()
    print("Outputs with the symbol cache %s identical to the default run's: %s."
          % ("/".join(modes), "yes" if all(outs("out-" + m) == base for m in modes) else "NO"))
print()
print("PER_INPUT_WORKER_SECONDS %.6f FIXED_SECONDS %.2f" % (per_input, tw))
EOPY
