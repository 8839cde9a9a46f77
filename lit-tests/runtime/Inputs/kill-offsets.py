#!/usr/bin/env python3
"""R9 at many byte offsets: runs PROG (dump-faults: one API dump) with the
write shim killing it with signal SIG once OFFSET bytes of the dump's
temporary file are written, for OFFSET in 0, 1, 2, 7, 8, 9 and every STEP-th
byte below the size of COMPLETE (a complete profile of the same program,
which OUTDIR/p.memprofraw holds before each run). After each run: the final
path is still COMPLETE byte for byte, exactly one new temporary file holds
the OFFSET bytes written, and it is removed before the next run (temporary
files there before are left alone).

  kill-offsets.py PROG SHIM RUNTIME OUTDIR COMPLETE SIG STEP
Prints one summary line."""
import glob, os, subprocess, sys

prog, shim, rt, outdir, complete, sig, step = sys.argv[1:8]
final = os.path.join(outdir, "p.memprofraw")
want = open(complete, "rb").read()
size = len(want)
offsets = sorted(set([0, 1, 2, 7, 8, 9] + list(range(0, size - 64, int(step)))))
statuses, bad = {}, []
before = set(glob.glob(final + ".tmp.*"))
for off in offsets:
    env = dict(os.environ, MEMPROF_TEST_SHIM="kill:%d:%s" % (off, sig),
               MEMPROF_PROFILE_FILE=final, LD_PRELOAD=shim + " " + rt)
    r = subprocess.run([prog, "1"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    statuses[r.returncode] = statuses.get(r.returncode, 0) + 1
    if open(final, "rb").read() != want:
        bad.append("%d: final path changed" % off)
    temps = sorted(set(glob.glob(final + ".tmp.*")) - before)
    if len(temps) != 1 or os.path.getsize(temps[0]) != off:
        bad.append("%d: temporary files %s" % (off, [(t, os.path.getsize(t)) for t in temps]))
    for t in temps:
        os.unlink(t)
print("%d offsets below %d bytes; statuses %s; %d bad%s" % (
    len(offsets), size, sorted(statuses.items()), len(bad),
    "".join("\n  " + b for b in bad[:10])))
