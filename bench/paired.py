#!/usr/bin/env python3
"""Paired rounds: each command's time as a ratio to a baseline run in the
same round; print the median ratio.

    paired.py ROUNDS LOGDIR < SPEC

SPEC has one command a line, as for measure.py: a name, then the command in
shell quoting (`printf '%q '` output). The first command is the baseline.
Each round runs every command once; the order rotates by one command each
round, so that every command runs in every position equally often (a slow
spell, or an effect of the command run just before, falls on all alike).

For every command after the baseline, prints one line:
    NAME cpu MEDIAN_RATIO wall MEDIAN_RATIO minmin MIN_CPU_RATIO
MEDIAN_RATIO is the median over the rounds of (its time / the baseline's
time in the same round), for CPU time (user + system, all threads) and for
wall time; MIN_CPU_RATIO is its fastest CPU time over the baseline's
fastest. Then the baseline's own line:
    NAME cpu MIN MEDIAN wall MIN MEDIAN
in seconds. A command's stdout and stderr go to LOGDIR/NAME.log (the last
round's). Exits 1 as soon as a run fails.

bench/runtime-bench.sh keeps each configuration's fastest of a few rounds;
on a shared machine the median of paired ratios over many rounds (20-40) is
the steadier figure, and what docs/PERFORMANCE.md calls paired rounds.
"""
import os
import shlex
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import run_once  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rounds, logdir = int(sys.argv[1]), sys.argv[2]
    cmds = [shlex.split(l) for l in sys.stdin if l.strip()]
    if len(cmds) < 2 or rounds < 1:
        print("paired.py: need a baseline, another command and a round",
              file=sys.stderr)
        return 2
    names = [c[0] for c in cmds]
    if len(set(names)) != len(names):
        print("paired.py: command names must differ", file=sys.stderr)
        return 2
    times = {n: [] for n in names}  # per round: (cpu, wall)
    for rnd in range(rounds):
        k = rnd % len(cmds)
        for name, *cmd in cmds[k:] + cmds[:k]:
            t = run_once("paired.py", name, cmd, logdir)
            if t is None:
                return 1
            times[name].append((t[1], t[0]))  # (cpu, wall)
        print(f"paired.py: round {rnd + 1} of {rounds} done", file=sys.stderr)
    base = times[names[0]]

    def ratio(a, b):  # a baseline of 0 s (too short to time) has no ratio
        return a / b if b > 0 else float("nan")

    for name in names[1:]:
        t = times[name]
        cpu = statistics.median(ratio(a[0], b[0]) for a, b in zip(t, base))
        wall = statistics.median(ratio(a[1], b[1]) for a, b in zip(t, base))
        minmin = ratio(min(a[0] for a in t), min(b[0] for b in base))
        print(f"{name} cpu {cpu:.3f} wall {wall:.3f} minmin {minmin:.3f}")
    bc = [b[0] for b in base]
    bw = [b[1] for b in base]
    print(f"{names[0]} cpu {min(bc):.3f} {statistics.median(bc):.3f} "
          f"wall {min(bw):.3f} {statistics.median(bw):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
