#!/usr/bin/env python3
"""site-contexts.py [--through] REPORT.json FUNCTION...

Prints the contexts of a memprof-show --format=json report that start at one
of the FUNCTIONs (with --through: that have a frame whose function starts
with one of them), as "ALLOCATIONS f0 <- f1 <- ...", sorted, then "end"."""
import json, sys

args = sys.argv[1:]
through = args[:1] == ["--through"]
if through:
    args = args[1:]
report, sites = args[0], args[1:]


def wanted(names):
    if through:
        return any(n.startswith(s) for n in names for s in sites)
    return bool(names) and names[0] in sites


rows = {}
for c in json.load(open(report))["contexts"]:
    names = [f["function"] or "?" for f in c["frames"]]
    if wanted(names):
        key = " <- ".join(names)
        rows[key] = rows.get(key, 0) + (c["allocations"] or 0)
for key in sorted(rows):
    print(rows[key], key)
print("end")
