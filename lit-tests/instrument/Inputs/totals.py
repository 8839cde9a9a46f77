#!/usr/bin/env python3
"""totals.py BIN RAW: prints "LEAF TotalAccessCount AllocCount" for every
allocation site (leaf function) of a raw profile, summed over its contexts,
as llvm-profdata-22 reads it: the same lines for two runtimes means the
same counts."""
import subprocess, sys, yaml

out = subprocess.run(["llvm-profdata-22", "show", "--memory", sys.argv[2],
                      "--profiled-binary", sys.argv[1]],
                     check=True, capture_output=True, text=True).stdout
docs = [d for d in yaml.safe_load_all(out) if d]
prof = docs[0]["MemprofProfile"] if docs else {}
tot = {}
for rec in prof.get("Records", []) or []:
    for site in rec.get("AllocSites", []) or []:
        leaf = site["Callstack"][0]
        if leaf["Function"] != rec["FunctionGUID"]:
            continue
        name = leaf.get("SymbolName", str(leaf["Function"]))
        if not name.startswith("site_"):
            continue
        m = site["MemInfoBlock"]
        a, c = tot.get(name, (0, 0))
        tot[name] = (a + m["TotalAccessCount"], c + m["AllocCount"])
for name in sorted(tot):
    print(name, *tot[name])
