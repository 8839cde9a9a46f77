#!/usr/bin/env python3
"""compare-contexts.py OURS.json ORACLE.json FUNCTION...

Both are memprof-show --format=json reports. For every context of OURS whose
frames include one of the FUNCTIONs (the program's allocation sites), the
ORACLE must hold a context with the same frames, function for function
(demangled names, a site matching the names it starts; unnamed frames by
GUID), and the same allocation count; and the other way round. Prints one line per site and "ok" when all agree."""
import json, sys

ours, oracle, sites = sys.argv[1], sys.argv[2], sys.argv[3:]


def contexts(path):
    out = {}
    for c in json.load(open(path))["contexts"]:
        names = tuple(f["function"] or f["guid"] for f in c["frames"])
        if any(any(n.startswith(s) for s in sites) for n in names):
            out[names] = out.get(names, 0) + (c["allocations"] or 0)
    return out


a, b = contexts(ours), contexts(oracle)
bad = 0
for names in sorted(set(a) | set(b)):
    if a.get(names) != b.get(names):
        bad += 1
        print("MISMATCH ours %s oracle %s: %s" % (a.get(names), b.get(names),
                                                   " <- ".join(names)))
for s in sites:
    n = sum(v for k, v in a.items() if any(x.startswith(s) for x in k))
    print("site %s: %d allocations in %d contexts" % (
        s, n, sum(1 for k in a if any(x.startswith(s) for x in k))))
if bad:
    sys.exit(1)
print("ok")
