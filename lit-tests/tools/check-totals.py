#!/usr/bin/env python3
"""Checks merged allocation totals against the ground truth the test programs
print, using llvm-profdata-22's YAML of the merged profile as the reader.

check-totals.py YAML TRUTH... : every TRUTH line "site NAME COUNT BYTES" is
summed over the files; for each NAME, the allocation contexts whose leaf frame
is function NAME must hold exactly those totals. A TRUTH given as W*FILE counts
FILE W times (the truth of an input merged with weight W). A TRUTH line
"accesses NAME N" asks that those contexts' TotalAccessCount sum to N."""
import hashlib, sys, yaml

def guid(name):
    return int.from_bytes(hashlib.md5(name.encode()).digest()[:8], "little")

want = {}
want_accesses = {}
for arg in sys.argv[2:]:
    weight, path = 1, arg
    if "*" in arg and arg.split("*", 1)[0].isdigit():
        weight, path = int(arg.split("*", 1)[0]), arg.split("*", 1)[1]
    for line in open(path):
        parts = line.split()
        if len(parts) == 4 and parts[0] == "site":
            c, b = want.get(parts[1], (0, 0))
            want[parts[1]] = (c + weight * int(parts[2]), b + weight * int(parts[3]))
        elif len(parts) == 3 and parts[0] == "accesses":
            want_accesses[parts[1]] = (want_accesses.get(parts[1], 0)
                                       + weight * int(parts[2]))

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
records = docs[0].get("HeapProfileRecords", []) if docs else []
got = {}
ok = True
for name in want:
    g = guid(name)
    count = size = contexts = accesses = 0
    for rec in records:
        if rec["GUID"] != g:
            continue
        for site in rec.get("AllocSites", []) or []:
            if site["Callstack"][0]["Function"] != g:
                continue
            contexts += 1
            count += site["MemInfoBlock"]["AllocCount"]
            size += site["MemInfoBlock"]["TotalSize"]
            accesses += site["MemInfoBlock"].get("TotalAccessCount", 0)
    got[name] = (count, size)
    status = "ok" if got[name] == want[name] else "MISMATCH"
    ok = ok and got[name] == want[name]
    print("%s %s: want count=%d bytes=%d, got count=%d bytes=%d in %d contexts"
          % (status, name, want[name][0], want[name][1], count, size, contexts))
    if name in want_accesses:
        status = "ok" if accesses == want_accesses[name] else "MISMATCH"
        ok = ok and accesses == want_accesses[name]
        print("%s %s: want accesses=%d, got accesses=%d"
              % (status, name, want_accesses[name], accesses))
for name in want_accesses:
    if name not in want:
        print("MISMATCH %s: accesses given without a site line" % name)
        ok = False
sys.exit(0 if ok else 1)
