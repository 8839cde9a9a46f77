#!/usr/bin/env python3
"""Counts allocations in a raw profile through its text form
(memprof-convert --to-text, docs/text-formats.md), for programs whose
contexts cannot all be named (interpreters without frame pointers or
symbols): every MIB counts, symbolized or not.

raw-counts.py TEXT [--at-least N] [--exact-size SIZE COUNT]...
    prints "allocations TOTAL" (the sum of every MIB's AllocCount) and
    exits 1 unless TOTAL >= N; with --exact-size, the MIBs whose every
    allocation was SIZE bytes (MinSize == MaxSize == SIZE) must hold exactly
    COUNT allocations in all."""
import sys


def mibs(path):
    cur = None
    for line in open(path):
        p = line.split()
        if p and p[0] == "mib":
            cur = {}
            yield cur
        elif cur is not None and len(p) == 2 and p[1].isdigit():
            cur[p[0]] = int(p[1])


def main():
    args = sys.argv[2:]
    at_least, exact = 0, []
    while args:
        if args[0] == "--at-least":
            at_least = int(args[1]); args = args[2:]
        elif args[0] == "--exact-size":
            exact.append((int(args[1]), int(args[2]))); args = args[3:]
        else:
            sys.exit("raw-counts.py: unknown argument " + args[0])
    all_mibs = list(mibs(sys.argv[1]))
    total = sum(m.get("AllocCount", 0) for m in all_mibs)
    ok = total >= at_least and bool(all_mibs)
    print("allocations %d, at least %d: %s" % (total, at_least, "ok" if ok else "MISMATCH"))
    for size, count in exact:
        got = sum(m["AllocCount"] for m in all_mibs
                  if m.get("MinSize") == size and m.get("MaxSize") == size)
        good = got == count
        ok &= good
        print("%s size %d: want %d allocations, got %d"
              % ("ok" if good else "MISMATCH", size, count, got))
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
