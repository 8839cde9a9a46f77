#!/usr/bin/env python3
"""Checks memprof-show's JSON or YAML output (docs/memprof-show.md) against
the ground truth a test program printed, with values computed here.

check-show.py REPORT TRUTH... [--no-minmax] [--sorted KEY [--reverse]]
                               [--names binary] [--same-contexts OTHER]

TRUTH lines: "site COUNT BYTES MIN MAX LINE CALLER_LINE INLINE NAME..." (see
lit-tests/memprof-show/Inputs/show.cpp); several files are summed (runs
merged). For each NAME, the listed contexts whose allocation-site frame has
that demangled name must hold the summed count and bytes (and, unless
--no-minmax, the overall min and max size); that frame must lie in a file
named like the program's source at LINE, carry the inline flag INLINE, and
the context's frame of main must be at CALLER_LINE. Also checks that the
summary agrees with the listed contexts when all are listed, that every
average is total/allocations, and with --sorted that the list is ordered by
KEY. --same-contexts: OTHER's contexts must equal REPORT's."""
import json, sys

def load(path):
    text = open(path).read()
    if text.startswith("---"):
        import yaml
        return yaml.safe_load(text)
    return json.loads(text)

args = sys.argv[1:]
opts = {}
for flag in ("--sorted", "--same-contexts"):
    if flag in args:
        i = args.index(flag); opts[flag] = args[i + 1]; del args[i:i + 2]
for flag in ("--no-minmax", "--reverse"):
    if flag in args:
        args.remove(flag); opts[flag] = True
report, truths = load(args[0]), args[1:]
ok = True

def fail(msg):
    global ok
    ok = False
    print("MISMATCH " + msg)

want = {}
for path in truths:
    for line in open(path):
        p = line.split()
        if len(p) < 9 or p[0] != "site":
            continue
        name = " ".join(p[8:])
        c, b, mn, mx, ln, call, inl = (int(x) for x in p[1:8])
        w = want.setdefault(name, dict(count=0, bytes=0, min=mn, max=mx,
                                       line=ln, call=call, inline=bool(inl)))
        w["count"] += c; w["bytes"] += b
        w["min"] = min(w["min"], mn); w["max"] = max(w["max"], mx)

ctxs = report["contexts"]
summary = report["summary"]
sel = report["selection"]
if len(ctxs) == sel["contexts"]:
    for key in ("allocations", "bytes"):
        total = sum(c["allocations"] if key == "allocations" else
                    c["size_bytes"]["total"] for c in ctxs)
        if total != sel[key]:
            fail("selection %s %d != sum over contexts %d" % (key, sel[key], total))
    classes = summary["classes"]
    for cls in ("cold", "notcold", "hot", "unclassified"):
        n = sum(1 for c in ctxs if (c["class"] or "unclassified") == cls)
        if not sel["functions"] and n != classes[cls]["contexts"]:
            fail("class %s: %d contexts listed, summary says %d"
                 % (cls, n, classes[cls]["contexts"]))
for c in ctxs:
    n = c["allocations"]
    for stat in ("size_bytes", "lifetime_ms", "accesses"):
        s = c[stat]
        if s["total"] is not None and n:
            if abs(s["average"] - s["total"] / n) > 1e-9 * max(1, s["average"]):
                fail("context %d %s average %r != %d/%d" % (c["rank"], stat, s["average"], s["total"], n))
    for stat in ("access_density", "lifetime_access_density"):
        s = c[stat]
        if s["total"] is not None and n:
            if abs(s["average"] - s["total"] / n) > 1e-9 * max(1, s["average"]):
                fail("context %d %s average mismatch" % (c["rank"], stat))

for name, w in sorted(want.items()):
    mine = [c for c in ctxs if c["frames"] and c["frames"][0]["function"] == name]
    count = sum(c["allocations"] for c in mine)
    size = sum(c["size_bytes"]["total"] for c in mine)
    msg = "%s: want count=%d bytes=%d, got count=%d bytes=%d in %d contexts" % (
        name, w["count"], w["bytes"], count, size, len(mine))
    good = (count, size) == (w["count"], w["bytes"]) and mine
    if good and "--no-minmax" not in opts:
        mn = min(c["size_bytes"]["min"] for c in mine)
        mx = max(c["size_bytes"]["max"] for c in mine)
        if (mn, mx) != (w["min"], w["max"]):
            good = False
            msg += " (min/max %r/%r, want %d/%d)" % (mn, mx, w["min"], w["max"])
    for c in mine:
        leaf = c["frames"][0]
        where = "%s:%s inline=%s" % (leaf["file"], leaf["line"], leaf["inline"])
        if (leaf["line"] != w["line"] or not str(leaf["file"]).endswith(".cpp")
                or leaf["inline"] != w["inline"]):
            good = False
            msg += " (site at %s, want line %d inline=%s)" % (where, w["line"], w["inline"])
        mains = [f for f in c["frames"] if f["function"] == "main"]
        if not mains or mains[-1]["line"] != w["call"]:
            good = False
            msg += " (main frame %r, want line %d)" % (mains and mains[-1]["line"], w["call"])
    if good:
        print("ok " + msg)
    else:
        fail(msg)

if "--sorted" in opts:
    key = opts["--sorted"]
    def value(c):
        n = c["allocations"] or 0
        return {"bytes": c["size_bytes"]["total"],
                "count": c["allocations"],
                "accesses": c["accesses"]["total"],
                "lifetime": c["lifetime_ms"]["total"] / n if n else 0,
                "density": c["lifetime_access_density"]["total"] / n if n else 0}[key]
    vals = [value(c) for c in ctxs]
    order = sorted(vals, reverse="--reverse" not in opts)
    if vals != order:
        fail("not sorted by %s: %r" % (key, vals))
    else:
        print("ok sorted by %s: %r" % (key, vals))

if "--same-contexts" in opts:
    other = load(opts["--same-contexts"])["contexts"]
    if other != ctxs:
        fail("contexts differ from %s" % opts["--same-contexts"])
    else:
        print("ok %d contexts equal" % len(ctxs))
sys.exit(0 if ok else 1)
