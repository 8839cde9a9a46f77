#!/usr/bin/env python3
"""raw -> memprof-convert --to-text -> --to-raw must give the same bytes for
every file in the given directories, whatever they hold.

  raw-text-identity.py DIR...
"""
import os, subprocess, sys

n = 0
bad = []
for d in sys.argv[1:]:
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if path.endswith((".txt", ".back")):
            continue
        n += 1
        text = subprocess.run(["memprof-convert", "--to-text", "--input-format=raw", path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if text.returncode != 0:
            bad.append("%s: --to-text failed: %s" % (path, text.stderr.decode()))
            continue
        back = subprocess.run(["memprof-convert", "--to-raw", "-", "-o", "-"],
                              input=text.stdout, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        with open(path, "rb") as f:
            data = f.read()
        if back.returncode != 0 or back.stdout != data:
            bad.append("%s: not identical %s" % (path, back.stderr.decode()))
for b in bad:
    print(b)
print("%d files, %s" % (n, "all identical" if not bad else "%d differ" % len(bad)))
