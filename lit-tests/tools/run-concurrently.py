#!/usr/bin/env python3
"""Runs N copies of one command at the same time: run-concurrently.py N
COMMAND..., with {} in the command replaced by the copy's number (1 to N).
All are started before any is waited for; each one's stderr is printed in
order, prefixed by its number. Exits 1 if any copy failed."""
import subprocess, sys

n, cmd = int(sys.argv[1]), sys.argv[2:]
procs = [subprocess.Popen([a.replace("{}", str(i)) for a in cmd],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
         for i in range(1, n + 1)]
failed = 0
for i, p in enumerate(procs, 1):
    out, err = p.communicate()
    for line in err.decode(errors="replace").splitlines():
        print("%d: %s" % (i, line))
    if p.returncode != 0:
        print("%d: exit status %d" % (i, p.returncode))
        failed = 1
sys.exit(failed)
