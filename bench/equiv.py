#!/usr/bin/env python3
"""Compare the MemProf content of two indexed profiles, as llvm-profdata-22
shows it, with duplicate entries summed.

    equiv.py A.profdata B.profdata

llvm-profdata 22 lists a context (or call site) twice when two distinct return
addresses symbolize to the same frames; memprof-merge lists it once, summed
(docs/memprof-merge.md, "Output bytes"). This reads `llvm-profdata-22 show
--memory` of both files, sums MemInfoBlock fields of identical contexts of a
function, collapses identical call sites, and compares. Prints "yes (A: N
duplicate entries)" or "NO: <first difference>"; exit status 0 either way
unless a file cannot be read.
"""
import re
import subprocess
import sys

FRAME = re.compile(r"^\s*- \{ Function: (0x[0-9a-f]+), LineOffset: (\d+), "
                   r"Column: (\d+), IsInlineFrame: (true|false) \}$")
FIELD = re.compile(r"^\s+(\w+):\s+(\d+)$")


def load(path):
    text = subprocess.run(["llvm-profdata-22", "show", "--memory", path],
                          check=True, capture_output=True, text=True).stdout
    recs, dups = {}, 0
    guid = kind = None
    frames, mib = [], {}

    def flush():
        nonlocal frames, mib, dups
        if guid is not None and frames:
            rec = recs.setdefault(guid, ({}, set()))
            key = tuple(frames)
            if kind == "alloc":
                if key in rec[0]:
                    dups += 1
                    for k, v in mib.items():
                        rec[0][key][k] = rec[0][key].get(k, 0) + v
                else:
                    rec[0][key] = dict(mib)
            else:
                if key in rec[1]:
                    dups += 1
                rec[1].add(key)
        frames, mib = [], {}

    for line in text.splitlines():
        s = line.strip()
        if s.startswith("- GUID:"):
            flush()
            guid = s.split()[-1]
            kind = None
        elif s == "AllocSites:":
            flush()
            kind = "alloc"
        elif s == "CallSites:":
            flush()
            kind = "call"
        elif s in ("- Callstack:", "- Frames:"):
            flush()
        elif m := FRAME.match(line):
            frames.append(m.groups())
        elif kind == "alloc" and (m := FIELD.match(line)):
            mib[m.group(1)] = mib.get(m.group(1), 0) + int(m.group(2))
    flush()
    return recs, dups


def main():
    (a, dups), (b, _) = load(sys.argv[1]), load(sys.argv[2])
    for g in sorted(set(a) | set(b)):
        if g not in a or g not in b:
            print(f"NO: function {g} only in {'B' if g not in a else 'A'}")
            return
        if a[g][0] != b[g][0]:
            print(f"NO: allocation sites of function {g} differ")
            return
        if a[g][1] != b[g][1]:
            print(f"NO: call sites of function {g} differ")
            return
    print(f"yes (A: {dups} duplicate entries)")


if __name__ == "__main__":
    main()
