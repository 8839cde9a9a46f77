#!/usr/bin/env python3
"""Checks memprof-show's PGO counter section (--format=json) against
llvm-profdata-22's own output, the oracle:

check-counter-show.py OURS_JSON --show LLVM_SHOW [--showcs LLVM_SHOWCS]
                      [--topn LLVM_TOPN] [--text LLVM_PROFTEXT]

--show/--showcs: `llvm-profdata-22 show [--showcs] PROFILE`; the level line
  and the five totals must equal counters.summary (cs_summary).
--topn: `llvm-profdata-22 show --topn=N PROFILE`; ours must list N functions
  with the same maximum counts, and the same names except among functions
  tied at the smallest count listed (llvm-profdata's heap order is not ours).
--text: `llvm-profdata-22 merge --text PROFILE`; every function ours lists
  under "selected" (--function) must be there with the same counters and
  value sites (targets by name), and every record of the text whose name
  matches what was selected must be listed."""
import json, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
ours = json.load(open(args[0]))["counters"]
opts = dict(zip(args[1::2], args[2::2]))
fails = []


def summary_of(path):
    out = {}
    for line in open(path):
        m = re.match(r"(Instrumentation level|Total functions|Maximum function count|"
                     r"Maximum internal block count|Total number of blocks|Total count): (.*)",
                     line.rstrip("\n"))
        if m:
            out[m.group(1)] = m.group(2)
    return out


def check_summary(path, s, what):
    want = summary_of(path)
    got = {"Total functions": str(s["functions"]),
           "Maximum function count": str(s["max_function_count"]),
           "Maximum internal block count": str(s["max_internal_block_count"]),
           "Total number of blocks": str(s["blocks"]),
           "Total count": str(s["total_count"])}
    level = ours["level"]
    if level == "IR":
        level += "  entry_first = %d  instrument_loop_entries = %d" % (
            ours["entry_first"], ours["instrument_loop_entries"])
    got["Instrumentation level"] = level
    if got != want:
        fails.append("%s: ours %r, llvm-profdata %r" % (what, got, want))


check_summary(opts["--show"], ours["summary"], "summary")
if "--showcs" in opts:
    if ours["cs_summary"] is None:
        fails.append("no cs_summary")
    else:
        check_summary(opts["--showcs"], ours["cs_summary"], "cs_summary")

if "--topn" in opts:
    want = [(m.group(1), int(m.group(2))) for m in
            (re.match(r"  (.*), max count = (\d+)$", l.rstrip("\n"))
             for l in open(opts["--topn"])) if m]
    got = [(f["name"], f["max_count"]) for f in ours["hottest"]]
    if sorted(c for _, c in got) != sorted(c for _, c in want):
        fails.append("top counts: ours %r, llvm-profdata %r" % (got, want))
    elif want:
        low = min(c for _, c in want)
        for n, c in want:
            if c != low and (n, c) not in got:
                fails.append("top: %s (%d) missing" % (n, c))
    print("top %d functions agree" % len(want))

if "--text" in opts:
    from proftext import parse_proftext
    recs = parse_proftext(open(opts["--text"]).read())
    keys = {0: "indirect_call_sites", 1: "memop_size_sites", 2: "vtable_sites"}
    for f in ours["selected"]:
        key = (f["name"], int(f["hash"], 16))
        if key not in recs:
            fails.append("selected %r not in the text" % (key,))
            continue
        counts, bitmap, sites = recs[key]
        got_sites = {}
        for k, name in keys.items():
            if f[name]:
                got_sites[k] = [[(str(v["size"]) if k == 1 else
                                  (v["name"] or "** External Symbol **"),
                                  v["count"]) for v in s] for s in f[name]]
        if (f["counts"], f["bitmap_bytes"], got_sites) != (counts, bitmap, sites):
            fails.append("selected %r: ours %r, text %r" % (
                key, (f["counts"], f["bitmap_bytes"], got_sites),
                (counts, bitmap, sites)))
    names = {f["name"] for f in ours["selected"]}
    for (n, h) in recs:
        if n in names and (n, h) not in {(f["name"], int(f["hash"], 16))
                                         for f in ours["selected"]}:
            fails.append("record %s %#x of a selected name not listed" % (n, h))
    print("%d selected functions agree" % len(ours["selected"]))

for f in fails:
    print("MISMATCH", f)
if fails:
    sys.exit(1)
print("ok")
