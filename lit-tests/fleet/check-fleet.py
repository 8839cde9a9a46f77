#!/usr/bin/env python3
"""check-fleet.py OUTDIR BIN... WANT... [BAD_LIST]: the fleet's report.json
names one output per program, by the build id llvm-readelf-22 reads from
each binary BIN, with every input counted (and, with BAD_LIST, exactly the
damaged inputs listed as bad), and each output holds exactly the bytes of
the WANT of its BIN (one memprof-merge call per program). BINs and WANTs
pair up in order; an odd argument count makes the last one BAD_LIST."""
import json, os, subprocess, sys

def build_id(path):
    out = subprocess.run(["llvm-readelf-22", "-n", path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return out.split("Build ID:")[1].split()[0]

d = sys.argv[1]
rep = json.load(open(os.path.join(d, "report.json")))
args = sys.argv[2:]
bad_list = args.pop() if len(args) % 2 else None
bins, wants = args[:len(args) // 2], args[len(args) // 2:]
ids = [build_id(b) for b in bins]
progs = {p["program"]: p for p in rep["programs"]}
fail = []
if sorted(progs) != sorted(ids):
    fail.append("programs %r, expected %r" % (sorted(progs), sorted(ids)))
bad = []
if bad_list:
    bad = sorted(l.strip() for l in open(bad_list) if l.strip())
got_bad = sorted(os.path.abspath(b["path"]) for b in rep["bad_inputs"])
if got_bad != bad:
    fail.append("bad inputs %r, expected %r" % (got_bad, bad))
total = sum(p["inputs"] for p in rep["programs"]) + sum(
    1 for b in rep["bad_inputs"] if not any(b in p["rejected"] for p in rep["programs"]))
if total != rep["inputs"]:
    fail.append("%d inputs counted in groups, %d given" % (total, rep["inputs"]))
for i, want in zip(ids, wants):
    p = progs.get(i)
    if not p or not p["output"]:
        continue
    if open(os.path.join(d, p["output"]), "rb").read() != open(want, "rb").read():
        fail.append("%s differs from %s" % (p["output"], want))
for f in fail:
    print("FAIL:", f)
if fail:
    sys.exit(1)
print("fleet ok: %d inputs, %d bad" % (rep["inputs"], len(bad)))
