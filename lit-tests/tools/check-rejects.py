#!/usr/bin/env python3
"""Runs a tool on every file of a directory and checks that each bad input is
answered cleanly: exit status 1, exactly one stderr line starting with
"<tool>: error: <file>: ", nothing at the output path, and within a time limit.

check-rejects.py [--allow-success] [--seconds N] DIR TOOL [ARGS...]
ARGS may use {} for the input path and {out} for a fresh output path. With
--allow-success an input may also be accepted (exit 0, an output written)."""
import os, subprocess, sys, time

args = sys.argv[1:]
allow_ok = "--allow-success" in args
if allow_ok:
    args.remove("--allow-success")
limit = 5.0
if "--seconds" in args:
    i = args.index("--seconds"); limit = float(args[i + 1]); del args[i:i + 2]
d, cmd = args[0], args[1:]
tool = os.path.basename(cmd[0])
bad = rejected = accepted = 0
for name in sorted(os.listdir(d), key=lambda n: (len(n), n)):
    path = os.path.join(d, name)
    out = path + ".out.profdata"
    argv = [c.replace("{out}", out).replace("{}", path) for c in cmd]
    t0 = time.time()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        print("HANG %s (over %.0f s)" % (name, limit)); bad += 1; continue
    dt = time.time() - t0
    lines = p.stderr.splitlines()
    if p.returncode == 0 and allow_ok:
        accepted += 1
        if os.path.exists(out):
            os.remove(out)
        continue
    prefix = "%s: error: %s: " % (tool, path)
    ok = (p.returncode == 1 and len(lines) == 1 and lines[0].startswith(prefix)
          and not os.path.exists(out))
    if not ok:
        bad += 1
        print("BAD %s: exit %d, %.2f s, output %s, stderr %r" % (
            name, p.returncode, dt, os.path.exists(out), p.stderr[:300]))
    else:
        rejected += 1
print("%d rejected cleanly, %d accepted, %d bad" % (rejected, accepted, bad))
sys.exit(1 if bad else 0)
