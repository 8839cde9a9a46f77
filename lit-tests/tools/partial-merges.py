#!/usr/bin/env python3
"""Merges a set of inputs in partial merges of three shapes, with memprof-merge.

partial-merges.py --seed S --out DIR [--arg ARG]... [--list FILE] INPUT...

The inputs are shuffled and split at random (seed S) into parts of one to
five inputs, each part merged on its own (DIR/part-N.profdata); then
  DIR/chain.profdata  each part merged into the running result in turn;
  DIR/tree.profdata   the parts reduced pairwise, level by level (fan-in 2);
  DIR/step.profdata   one input at a time, in the original order, into the
                      result so far (the incremental workflow: memprof-merge
                      acc.profdata new.raw -o acc2.profdata).
Every call gets the --arg values (e.g. --arg=--no-system-dirs). --list FILE
adds the inputs FILE lists, one a line. Prints the split; a failed call ends
the script."""
import argparse, os, random, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--seed", type=int, required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--arg", action="append", default=[])
ap.add_argument("--list")
ap.add_argument("inputs", nargs="*")
a = ap.parse_args()
if a.list:
    a.inputs += [l.strip() for l in open(a.list) if l.strip()]
if not a.inputs:
    sys.exit("partial-merges: no inputs")
os.makedirs(a.out, exist_ok=True)
calls = 0


def merge(inputs, out):
    global calls
    calls += 1
    rc = subprocess.call(["memprof-merge", "--quiet"] + a.arg + list(inputs)
                         + ["-o", out])
    if rc != 0:
        sys.exit("partial-merges: memprof-merge %s -o %s failed (%d)"
                 % (" ".join(inputs), out, rc))
    return out


rng = random.Random(a.seed)
shuffled = list(a.inputs)
rng.shuffle(shuffled)
parts, i = [], 0
while i < len(shuffled):
    n = rng.randint(1, 5)
    parts.append(merge(shuffled[i:i + n],
                       os.path.join(a.out, "part-%d.profdata" % len(parts))))
    i += n
print("split: %d inputs into %d parts" % (len(shuffled), len(parts)))

chain = parts[0]
for j, p in enumerate(parts[1:]):
    chain = merge([chain, p], os.path.join(a.out, "chain-%d.profdata" % j))
os.replace(chain, os.path.join(a.out, "chain.profdata"))

level, depth = parts, 0
while len(level) > 1:
    level = [merge(level[k:k + 2],
                   os.path.join(a.out, "tree-%d-%d.profdata" % (depth, k // 2)))
             for k in range(0, len(level), 2)]
    depth += 1
os.replace(level[0], os.path.join(a.out, "tree.profdata"))

# memprof-merge refuses to write over an input: two files take turns.
step = merge([a.inputs[0]], os.path.join(a.out, "step-0.profdata"))
for j, inp in enumerate(a.inputs[1:]):
    step = merge([step, inp], os.path.join(a.out, "step-%d.profdata" % ((j + 1) % 2)))
os.replace(step, os.path.join(a.out, "step.profdata"))
print("memprof-merge calls: %d" % calls)
