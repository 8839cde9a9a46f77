#!/usr/bin/env python3
"""Checks allocated types (docs/memprof-merge.md, "Allocated types") against
the ground truth Inputs/types.cpp prints: lines "type NAME COUNT BYTES" (what
the program allocated of each type) and "untyped malloc COUNT BYTES".

check-types.py show TRUTH GROUPS.json CONTEXTS.json
    GROUPS.json is `memprof-show --group-by type --format json -n <all>`,
    CONTEXTS.json the same input's contexts (`-n <all>`). Each type of the
    truth is one row with its count and bytes; no other row has a type; the
    unknown row holds at least the plain mallocs; rows sum to the summary;
    each context's type sums to its row.
check-types.py pprof TRUTH RAW.txt
    RAW.txt is `go tool pprof -raw`: the samples labelled type:[T] sum, per
    T, to the truth; no other type label.
check-types.py flamegraph TRUTH SVG [count]
    The pseudo-frames [T] of the flame graph (weight bytes, or count) sum,
    per T, to the truth; no other type frame.
check-types.py to-json TRUTH JSON
    memprof-convert --to-json (format 2): the alloc sites' types, each
    context once, sum to the truth (TotalSize, AllocCount of the schema).
Prints "ok MODE" when every check holds, else the failures; exit status 1.
"""
import json, re, sys
import xml.etree.ElementTree as ET

errors = []


def fail(msg):
    errors.append(msg)


def finish(mode):
    if errors:
        for e in errors[:40]:
            print("FAIL:", e)
        sys.exit(1)
    print("ok", mode)


def truth(path):
    types, untyped = {}, None
    for line in open(path):
        parts = line.split()
        if line.startswith("type "):
            types[parts[1]] = (int(parts[2]), int(parts[3]))
        elif line.startswith("untyped malloc "):
            untyped = (int(parts[2]), int(parts[3]))
    if not types or untyped is None:
        sys.exit("no ground truth in %s" % path)
    return types, untyped


def compare(mode, found, types, what):
    """found: {type: (count or None, bytes)}."""
    for t, (count, nbytes) in types.items():
        if t not in found:
            fail("%s: no %s for type %s" % (mode, what, t))
            continue
        c, b = found[t]
        if b != nbytes:
            fail("%s: type %s: %d bytes, the program allocated %d" % (mode, t, b, nbytes))
        if c is not None and c != count:
            fail("%s: type %s: %d allocations, the program made %d" % (mode, t, c, count))
    for t in found:
        if t not in types:
            fail("%s: a %s for type %r, which the program did not allocate" % (mode, what, t))


def show(args):
    types, untyped = truth(args[0])
    groups = json.load(open(args[1]))
    contexts = json.load(open(args[2]))
    if groups["selection"]["group_by"] != "type":
        fail("not grouped by type")
    found, unknown, total = {}, None, 0
    for row in groups["contexts"]:
        total += row["size_bytes"]["total"]
        if row["type"] is None:
            if unknown is not None:
                fail("two rows of unknown type")
            unknown = row
            continue
        if row["type"] in found:
            fail("two rows of type %s" % row["type"])
        found[row["type"]] = (row["allocations"], row["size_bytes"]["total"])
    compare("show", found, types, "row")
    if unknown is None:
        fail("no row of unknown type (the plain mallocs)")
    elif unknown["size_bytes"]["total"] < untyped[1] or unknown["allocations"] < untyped[0]:
        fail("the unknown row (%d bytes) holds less than the plain mallocs (%d)" %
             (unknown["size_bytes"]["total"], untyped[1]))
    if total != groups["summary"]["bytes"]:
        fail("rows sum to %d bytes, the summary says %d" % (total, groups["summary"]["bytes"]))
    if groups["selection"]["rows"] != len(groups["contexts"]):
        fail("not every row listed")
    # Each context's type, summed, gives the rows.
    by_type = {}
    for c in contexts["contexts"]:
        t = c["type"]
        b = by_type.setdefault(t, [0, 0])
        b[0] += c["allocations"]
        b[1] += c["size_bytes"]["total"]
    for row in groups["contexts"]:
        got = by_type.get(row["type"], [0, 0])
        if got != [row["allocations"], row["size_bytes"]["total"]]:
            fail("contexts of type %r sum to %s, the row says %s" %
                 (row["type"], got, [row["allocations"], row["size_bytes"]["total"]]))
    finish("show")


def pprof(args):
    types, _ = truth(args[0])
    lines = open(args[1]).read().split("\n")
    header = None
    found = {}
    i = 0
    while i < len(lines):
        if lines[i].startswith("alloc_objects/count"):
            header = [h.split("/")[0] for h in lines[i].split()]
            i += 1
            break
        i += 1
    if header is None:
        sys.exit("no samples in %s" % args[1])
    while i < len(lines) and not lines[i].startswith("Locations"):
        m = re.match(r"\s*([-\d ]+):", lines[i])
        if not m:
            i += 1
            continue
        values = [int(v) for v in m.group(1).split()]
        labels = lines[i + 1] if i + 1 < len(lines) else ""
        t = re.search(r"type:\[(.*)\]\s*$", labels)
        if t:
            f = found.setdefault(t.group(1), [0, 0])
            f[0] += values[header.index("alloc_objects")]
            f[1] += values[header.index("alloc_space")]
        i += 2
    compare("pprof", {t: tuple(v) for t, v in found.items()}, types, "label")
    finish("pprof")


def flamegraph(args):
    types, _ = truth(args[0])
    count = len(args) > 2 and args[2] == "count"
    root = ET.parse(args[1]).getroot()
    found = {}
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        name = g.get("data-n")
        if g.get("class") != "f" or not name or not name.startswith("["):
            continue
        title = g.find("{http://www.w3.org/2000/svg}title").text
        if "allocated type: " + name[1:-1] not in title:
            fail("flamegraph: the tooltip of %s does not name its type" % name)
        f = found.setdefault(name[1:-1], 0)
        found[name[1:-1]] = f + int(g.get("data-w"))
    want = {t: (None, c if count else b) for t, (c, b) in types.items()}
    compare("flamegraph", {t: (None, w) for t, w in found.items()}, want, "frame")
    finish("flamegraph")


def to_json(args):
    types, _ = truth(args[0])
    doc = json.load(open(args[1]))
    schema = doc["schema"]
    seen, found = set(), {}
    for rec in doc["records"]:
        for a in rec["alloc_sites"]:
            if a["context_id"] in seen:
                continue
            seen.add(a["context_id"])
            if "type" not in a:
                continue
            mib = dict(zip(schema, a["mib"]))
            f = found.setdefault(a["type"], [0, 0])
            f[0] += mib["AllocCount"]
            f[1] += mib["TotalSize"]
    compare("to-json", {t: tuple(v) for t, v in found.items()}, types, "alloc site")
    finish("to-json")


modes = {"show": show, "pprof": pprof, "flamegraph": flamegraph, "to-json": to_json}
if len(sys.argv) < 3 or sys.argv[1] not in modes:
    sys.exit(__doc__)
modes[sys.argv[1]](sys.argv[2:])
