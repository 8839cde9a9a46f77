#!/usr/bin/env python3
"""Writes random LLVM MemProf YAML for round-trip and identity tests.

  gen-yaml.py SEED OUT [--records N] [--full] [--unique]

The text uses every form llvm-profdata 22 reads: GUIDs as 0x hex (either case)
and as function names (with .llvm./.part. suffixes), block and flow styles,
shared frames and stack prefixes (radix sharing), inline frames, empty stacks,
repeated record GUIDs (the first wins), callee GUIDs, comments, a leading
comment-only document, and values at the edges of each field's width. Without
--full only the hot/cold fields are named; with it, a random subset of all 27.
--unique writes what an indexed file can hold exactly: no repeated record GUID
(whose frames and stacks LLVM keeps although the record is dropped) and one
MemInfoBlock per call stack (the V4 summary counts a stack's first block only).
"""
import os, random, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from mibfields import MIB_FIELDS as FIELDS

HOT_COLD = ["AllocCount", "TotalSize", "TotalLifetime", "TotalLifetimeAccessDensity"]


def main():
    seed = int(sys.argv[1])
    out = sys.argv[2]
    nrec = 12
    full = "--full" in sys.argv
    unique = "--unique" in sys.argv
    if "--records" in sys.argv:
        nrec = int(sys.argv[sys.argv.index("--records") + 1])
    r = random.Random(seed)

    names = ["main", "_Z3foov", "_Z3barv", "_ZN1A1fEv", "baz.llvm.123",
             "qux.part.4", "helper.__uniq.77", "_Z7alloc_am"]

    def guid():
        k = r.random()
        if k < 0.3:
            return r.choice(names)
        if k < 0.4:
            return "0X%X" % r.getrandbits(64)
        if k < 0.45:
            return "0x%x" % r.randrange(1, 16)
        return "0x%x" % r.getrandbits(r.choice([16, 32, 63, 64]))

    pool_funcs = [guid() for _ in range(10)]

    def frame(inline=None):
        f = r.choice(pool_funcs) if r.random() < 0.8 else guid()
        lo = r.choice([0, 1, 2, 7, 100, 4294967295])
        col = r.choice([0, 3, 15, 57, 4294967295])
        inl = r.random() < 0.25 if inline is None else inline
        return "{ Function: %s, LineOffset: %d, Column: %d, IsInlineFrame: %s }" % (
            f, lo, col, "true" if inl else "false")

    roots = [[frame(False) for _ in range(r.randint(1, 3))] for _ in range(4)]

    def stack():
        n = r.choice([0, 1, 1, 2, 3, 4, 6])
        if n == 0 and r.random() < 0.7:
            n = 1
        leaf = [frame() for _ in range(max(0, n - 2))]
        return leaf + r.choice(roots)[: r.randint(0, 3)]

    def value(width):
        k = r.random()
        if k < 0.15:
            return 0
        if k < 0.25:
            return (1 << (8 * width)) - 1
        if k < 0.5:
            return r.getrandbits(8 * width)
        return r.randrange(0, 100000)

    def mib():
        names_ = HOT_COLD if not full else [f for f, _ in FIELDS if r.random() < 0.7]
        vals = [(n, value(dict(FIELDS)[n])) for n in names_]
        r.shuffle(vals)  # key order in the text does not matter
        return vals

    lines = ["---", "# a comment-only document is skipped", "---",
             "HeapProfileRecords:"]
    used = []
    mibs = {}
    for _ in range(nrec):
        g = r.choice(used) if used and r.random() < 0.1 else guid()
        if unique:
            while g in used or ("0x%x" % int(g, 16) if g.lower().startswith("0x") else g) in used:
                g = guid()
            used.append("0x%x" % int(g, 16) if g.lower().startswith("0x") else g)
        used.append(g)
        lines.append("  - GUID:            %s" % g)
        na = r.choice([0, 1, 1, 2, 3])
        nc = r.choice([0, 1, 2, 3])
        if na:
            lines.append("    AllocSites:")
            for _ in range(na):
                st = stack()
                if st:
                    lines.append("      - Callstack:")
                    for f in st:
                        lines.append("          - " + f)
                else:
                    lines.append("      - Callstack:       []")
                vals = mib()
                if unique:
                    vals = mibs.setdefault(tuple(st), vals)
                if r.random() < 0.3:
                    lines.append("        MemInfoBlock: { %s }" % ", ".join(
                        "%s: %d" % kv for kv in vals))
                elif not vals:
                    lines.append("        MemInfoBlock: {}")
                else:
                    lines.append("        MemInfoBlock:")
                    for k, v in vals:
                        lines.append("          %s: %d" % (k, v))
        if nc:
            lines.append("    CallSites:   # call sites")
            for _ in range(nc):
                fr = [frame(True) for _ in range(r.randint(0, 2))] + [frame(False)]
                lines.append("      - Frames:")
                for f in fr:
                    lines.append("          - " + f)
                if r.random() < 0.5:
                    lines.append("        CalleeGuids: [ %s ]" % ", ".join(
                        guid() for _ in range(r.randint(0, 3))))
    lines.append("...")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


main()
