#!/usr/bin/env python3
"""Runs a program built with clang's -fmemory-profile COUNT times, with the
arguments 1 to COUNT, each run's raw profile and printed ground truth kept:
run-many.py DIR COUNT PROGRAM writes DIR/NN.memprofraw and DIR/NN.truth
(NN from 01) and DIR/inputs.list (the profiles' absolute paths, one a line,
for memprof-merge -f)."""
import glob, os, subprocess, sys

out, count, prog = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(out, exist_ok=True)
paths = []
for i in range(1, count + 1):
    stem = os.path.join(out, "%02d" % i)
    for old in glob.glob(stem + ".part.*"):
        os.remove(old)
    with open(stem + ".truth", "w") as truth:
        env = dict(os.environ, MEMPROF_OPTIONS="log_path=" + stem + ".part")
        subprocess.run([prog, str(i)], env=env, stdout=truth, check=True)
    [part] = glob.glob(stem + ".part.*")
    os.replace(part, stem + ".memprofraw")
    paths.append(os.path.abspath(stem + ".memprofraw"))
with open(os.path.join(out, "inputs.list"), "w") as f:
    f.write("".join(p + "\n" for p in paths))
