#!/usr/bin/env python3
"""Checks memprof-show's comparisons and groups against the ground truth the
test program prints (lines "site FUNCTION COUNT BYTES": the totals of the
contexts that pass through FUNCTION; see memprof-show/Inputs/grow.cpp).

check-show-groups.py diff BASE_TRUTH NEW_TRUTH DIFF.json
    memprof-show NEW --diff BASE --format=json -n <all>: for each FUNCTION,
    the rows through it change by exactly NEW - BASE in bytes and
    allocations; a FUNCTION only in NEW has only "new" rows, one only in
    BASE only "vanished" ones; rows are ranked by the size of their change;
    the changes listed sum to the change of the totals.
check-show-groups.py diff-site BASE_TRUTH NEW_TRUTH DIFF.json
    The same of --group-by site, whose rows hold one frame: only for the
    functions that allocate themselves (fixed, only_big, only_small).
check-show-groups.py function TRUTH REPORT.json
    memprof-show --group-by function --format=json -n <all>: each FUNCTION's
    row has "through" totals equal to the truth; the flat rows sum to the
    summary's totals.
check-show-groups.py site TRUTH REPORT.json CONTEXTS.json
    memprof-show --group-by site: the rows sum to the summary's totals, hold
    as many contexts as the context report, and the rows whose site lies in
    a FUNCTION that allocates itself (and nothing through callees: fixed,
    only_big, only_small) equal its truth.
"""
import json, sys


def truth(path):
    out = {}
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[0] == "site":
            c, b = out.get(p[1], (0, 0))
            out[p[1]] = (c + int(p[2]), b + int(p[3]))
    if not out:
        sys.exit("no truth lines in " + path)
    return out


def names(frames):
    return [f["function"] or "" for f in frames]


def through(frames, fn):
    return any(n == fn or n.startswith(fn + "(") for n in names(frames))


def totals(row):
    if row is None:
        return (0, 0)
    return (row["allocations"] or 0, row["size_bytes"]["total"] or 0)


fail = []
mode = sys.argv[1]
if mode in ("diff", "diff-site"):
    base, new, d = truth(sys.argv[2]), truth(sys.argv[3]), json.load(open(sys.argv[4]))
    rows = d["changes"]
    fns = set(base) | set(new)
    if mode == "diff-site":
        fns &= {"fixed", "only_big", "only_small"}
    for fn in sorted(fns):
        b, n = base.get(fn, (0, 0)), new.get(fn, (0, 0))
        mine = [r for r in rows
                if through((r["after"] or r["before"])["frames"], fn)]
        dc = sum(totals(r["after"])[0] - totals(r["before"])[0] for r in mine)
        db = sum(totals(r["after"])[1] - totals(r["before"])[1] for r in mine)
        if (dc, db) != (n[0] - b[0], n[1] - b[1]):
            fail.append("%s: change %d allocations, %d bytes; truth %d, %d"
                        % (fn, dc, db, n[0] - b[0], n[1] - b[1]))
        want = "new" if fn not in base else "vanished" if fn not in new else None
        if want and not mine:
            fail.append("%s: no row, expected %s ones" % (fn, want))
        for r in mine:
            if want and r["status"] != want:
                fail.append("%s: a row is %s, expected %s" % (fn, r["status"], want))
            if r["change"] != totals(r["after"])[1] - totals(r["before"])[1]:
                fail.append("%s: change %r is not after - before" % (fn, r["change"]))
    db = sum(totals(r["after"])[1] - totals(r["before"])[1] for r in rows)
    if db != d["new"]["bytes"] - d["base"]["bytes"]:
        fail.append("the rows change by %d bytes, the totals by %d"
                    % (db, d["new"]["bytes"] - d["base"]["bytes"]))
    ranks = [abs(r["change"]) for r in rows]
    if ranks != sorted(ranks, reverse=True):
        fail.append("rows not ranked by the size of their change: %r" % ranks)
    if any(r["status"] == "unchanged" for r in rows):
        fail.append("an unchanged row is listed")
    st = d["rows"]
    if st["new"] + st["vanished"] + st["grown"] + st["shrunk"] != len(rows):
        fail.append("row counts %r do not match the %d rows listed" % (st, len(rows)))
elif mode == "function":
    t, r = truth(sys.argv[2]), json.load(open(sys.argv[3]))
    rows = r["contexts"]
    for fn, (c, b) in sorted(t.items()):
        mine = [x for x in rows if through(x["frames"], fn)]
        if len(mine) != 1:
            fail.append("%s: %d function rows" % (fn, len(mine)))
            continue
        th = mine[0]["through"]
        if (th["allocations"], th["bytes"]) != (c, b):
            fail.append("%s: through it %d allocations, %d bytes; truth %d, %d"
                        % (fn, th["allocations"], th["bytes"], c, b))
    flat = (sum(totals(x)[0] for x in rows), sum(totals(x)[1] for x in rows))
    want = (r["summary"]["allocations"], r["summary"]["bytes"])
    if flat != want:
        fail.append("function rows sum to %r, the summary says %r" % (flat, want))
    if sum(x["contexts"] for x in rows) != r["summary"]["contexts"]:
        fail.append("function rows do not hold every context once")
elif mode == "site":
    t, r, ctx = truth(sys.argv[2]), json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
    rows = r["contexts"]
    flat = (sum(totals(x)[0] for x in rows), sum(totals(x)[1] for x in rows))
    want = (r["summary"]["allocations"], r["summary"]["bytes"])
    if flat != want:
        fail.append("site rows sum to %r, the summary says %r" % (flat, want))
    if sum(x["contexts"] for x in rows) != len(ctx["contexts"]):
        fail.append("site rows hold %d contexts, the context report lists %d"
                    % (sum(x["contexts"] for x in rows), len(ctx["contexts"])))
    for fn in ("fixed", "only_big", "only_small"):
        if fn not in t:
            continue
        mine = [x for x in rows if through(x["frames"], fn)]
        got = (sum(totals(x)[0] for x in mine), sum(totals(x)[1] for x in mine))
        if got != t[fn]:
            fail.append("%s: its sites hold %r; truth %r" % (fn, got, t[fn]))
else:
    sys.exit("unknown mode " + mode)

for f in fail:
    print("FAIL:", f)
if fail:
    sys.exit(1)
print("ok", mode)
