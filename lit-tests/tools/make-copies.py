#!/usr/bin/env python3
"""Writes COUNT copies of a file for scale tests, and a list file naming them:

  make-copies.py IN DIR COUNT LIST

DIR/00000.raw ... and LIST with one line per copy (relative to LIST's
directory when DIR is below it)."""
import os, shutil, sys

src, out, count, lst = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(out, exist_ok=True)
data = open(src, "rb").read()
names = []
for i in range(count):
    p = os.path.join(out, "%05d.raw" % i)
    with open(p, "wb") as f:
        f.write(data)
    names.append(os.path.relpath(p, os.path.dirname(os.path.abspath(lst))))
with open(lst, "w") as f:
    f.write("\n".join(names) + "\n")
