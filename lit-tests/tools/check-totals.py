#!/usr/bin/env python3
"""Checks merged allocation totals against the ground truth the test programs
print, using llvm-profdata-22's YAML of the merged profile as the reader.

check-totals.py YAML TRUTH... : every TRUTH line "site NAME COUNT BYTES" is
summed over the files; for each NAME, the allocation contexts whose leaf frame
is function NAME must hold exactly those totals. A TRUTH given as W*FILE counts
FILE W times (the truth of an input merged with weight W)."""
import hashlib, sys, yaml

def guid(name):
    return int.from_bytes(hashlib.md5(name.encode()).digest()[:8], "little")

want = {}
for arg in sys.argv[2:]:
    weight, path = 1, arg
    if "*" in arg and arg.split("*", 1)[0].isdigit():
        weight, path = int(arg.split("*", 1)[0]), arg.split("*", 1)[1]
    for line in open(path):
        parts = line.split()
        if len(parts) == 4 and parts[0] == "site":
            c, b = want.get(parts[1], (0, 0))
            want[parts[1]] = (c + weight * int(parts[2]), b + weight * int(parts[3]))

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
records = docs[0].get("HeapProfileRecords", []) if docs else []
got = {}
for name in want:
    g = guid(name)
    count = size = contexts = 0
    for rec in records:
        if rec["GUID"] != g:
            continue
        for site in rec.get("AllocSites", []) or []:
            if site["Callstack"][0]["Function"] != g:
                continue
            contexts += 1
            count += site["MemInfoBlock"]["AllocCount"]
            size += site["MemInfoBlock"]["TotalSize"]
    got[name] = (count, size)
    status = "ok" if got[name] == want[name] else "MISMATCH"
    print("%s %s: want count=%d bytes=%d, got count=%d bytes=%d in %d contexts"
          % (status, name, want[name][0], want[name][1], count, size, contexts))
sys.exit(0 if got == want else 1)
