#!/usr/bin/env python3
"""Run named commands in interleaved rounds; print each one's best times.

    measure.py REPS LOGDIR < SPEC

SPEC has one command a line: a name, then the command, in shell quoting
(`printf '%q '` output). Each of the REPS rounds runs every command once, in
order, so that a slow spell of a shared machine hits all of them alike.

Prints one line per command, "NAME BEST_WALL BEST_CPU MAX_RSS_KB": the
shortest wall-clock time and the shortest CPU time (user + system, all
threads) of its REPS runs, in seconds with millisecond resolution, and the
largest peak resident set size of any run (KiB, from wait4's ru_maxrss, as
/usr/bin/time's %M). A command's stdout and stderr go to LOGDIR/NAME.log.
Exits 1 as soon as a run fails.
"""
import os
import shlex
import subprocess
import sys
import time


def run_once(tool, name, cmd, logdir):
    """Runs CMD once, its output into LOGDIR/NAME.log: (wall, cpu,
    maxrss_kib), or None (said on stderr, as TOOL) if it failed."""
    log = os.path.join(logdir, name + ".log")
    with open(log, "w") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"{tool}: {name}: exit status {code} (output in {log})",
              file=sys.stderr)
        return None
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    reps, logdir = int(sys.argv[1]), sys.argv[2]
    cmds = [shlex.split(l) for l in sys.stdin if l.strip()]
    best = {c[0]: [None, None, 0] for c in cmds}
    for rnd in range(reps):
        for name, *cmd in cmds:
            t = run_once("measure.py", name, cmd, logdir)
            if t is None:
                return 1
            wall, cpu, rss = t
            b = best[name]
            b[0] = wall if b[0] is None else min(b[0], wall)
            b[1] = cpu if b[1] is None else min(b[1], cpu)
            b[2] = max(b[2], rss)
        print(f"measure.py: round {rnd + 1} of {reps} done", file=sys.stderr)
    for name, (wall, cpu, rss) in best.items():
        print(f"{name} {wall:.3f} {cpu:.3f} {rss}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
