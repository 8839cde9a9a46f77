#!/usr/bin/env python3
"""hints.test's oracle check: check-hints.py HINTS.json IR.ll SOURCE-NAME
(or --flags HINTS.json: the -mllvm flags the view says it mirrors).

Maps each allocation call of clang's IR (a call of operator new/new[]) to
its debug location line:column and compares its "memprof" attribute (none
when absent) with the hint memprof-show --hints predicted for the site at
that line:column of SOURCE-NAME. Prints one line per site and call, and
MISMATCH for any disagreement (a site with no call counts as one)."""
import json, re, sys

if sys.argv[1] == "--flags":
    # check-hints.py --flags HINTS.json: the clang flags the view mirrors.
    print(" ".join(json.load(open(sys.argv[2]))["thresholds"]["clang_flags"]))
    sys.exit(0)

hints = json.load(open(sys.argv[1]))
ir = open(sys.argv[2]).read().splitlines()
source = sys.argv[3]

attrs = {}  # attribute group -> memprof value
for line in ir:
    m = re.match(r'attributes #(\d+) = \{(.*)\}', line)
    if m:
        v = re.search(r'"memprof"="([a-z]+)"', m.group(2))
        attrs[m.group(1)] = v.group(1) if v else None
locs = {}  # metadata id -> (line, column)
for line in ir:
    m = re.match(r'!(\d+) = !DILocation\(line: (\d+), column: (\d+)', line)
    if m:
        locs[m.group(1)] = (int(m.group(2)), int(m.group(3)))

calls = {}  # (line, column) -> attribute
for line in ir:
    if not re.search(r'\b(call|invoke)\b.*@_Zn[wa]m', line):
        continue
    if re.match(r'\s*declare', line):
        continue
    dbg = re.search(r'!dbg !(\d+)', line)
    groups = re.findall(r'\) #(\d+)', line)
    value = None
    for g in groups:
        value = value or attrs.get(g)
    inline = re.search(r'"memprof"="([a-z]+)"', line)
    if inline:
        value = inline.group(1)
    loc = locs.get(dbg.group(1)) if dbg else None
    calls[loc] = value or "none"

bad = 0
seen = set()
for s in hints["sites"]:
    site = s["site"]
    if not (site["file"] or "").endswith(source):
        continue
    loc = (site["line"], site["column"])
    seen.add(loc)
    got = calls.get(loc)
    want = s["hint"]
    status = "ok" if got == want else "MISMATCH"
    bad += got != want
    print("%s site %s:%d:%d %s: want %s, got %s" % (
        status, source, loc[0], loc[1], site["function"], want, got))
for loc, value in sorted(calls.items(), key=lambda kv: str(kv[0])):
    if loc not in seen and value != "none":
        bad += 1
        print("MISMATCH call at %s has %s but no site was predicted" % (loc, value))
print("%d sites, %d allocation calls, %d mismatches" % (len(seen), len(calls), bad))
