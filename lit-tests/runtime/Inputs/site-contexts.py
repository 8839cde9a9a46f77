#!/usr/bin/env python3
"""site-contexts.py REPORT.json FUNCTION...

Prints the contexts of a memprof-show --format=json report that start at one
of the FUNCTIONs, as "ALLOCATIONS f0 <- f1 <- ...", sorted, then "end"."""
import json, sys

report, sites = sys.argv[1], sys.argv[2:]
rows = {}
for c in json.load(open(report))["contexts"]:
    names = [f["function"] or "?" for f in c["frames"]]
    if names and names[0] in sites:
        key = " <- ".join(names)
        rows[key] = rows.get(key, 0) + (c["allocations"] or 0)
for key in sorted(rows):
    print(rows[key], key)
print("end")
