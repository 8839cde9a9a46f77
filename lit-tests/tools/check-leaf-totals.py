#!/usr/bin/env python3
"""Checks each allocation site's totals in a profile against the ground truth
the test program printed, counting every context exactly once.

check-leaf-totals.py REPORT TRUTH...
  REPORT is memprof-show --format=json (every context listed: -n 1000000),
  llvm-profdata-22 show --memory (YAML, as memprof-convert --to-text) or
  memprof-convert --to-json of either format version (the file's records, as
  the YAML; version 2 read through memprof_json.py). TRUTH lines "site NAME COUNT BYTES"
  (NAME the linkage name of the allocating function) are summed over the
  files; W*FILE counts FILE W times.

For each NAME, the contexts whose leaf frame is NAME must hold exactly the
summed allocations and bytes, and with memprof-show's JSON the summary must
hold the sum of all sites (the program allocates nowhere else that is kept).

Read from the records (llvm-profdata's YAML: LLVM's own reader): a context sits
in the record of each function of its leading inline chain (frames up to the
first one not inlined) once per frame of that function, so the leaf's record
holds it k times, k the number of chain frames of the leaf function. Its
entries are summed and divided by k; each must come in whole copies."""
import hashlib, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memprof_json import to_v1


def guid(name):
    return int.from_bytes(hashlib.md5(name.encode()).digest()[:8], "little")


want = {}
for arg in sys.argv[2:]:
    weight, path = 1, arg
    if "*" in arg and arg.split("*", 1)[0].isdigit():
        weight, path = int(arg.split("*", 1)[0]), arg.split("*", 1)[1]
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[0] == "site":
            c, b = want.get(p[1], (0, 0))
            want[p[1]] = (c + weight * int(p[2]), b + weight * int(p[3]))
if not want:
    sys.exit("check-leaf-totals: no 'site NAME COUNT BYTES' line in the truth")

text = open(sys.argv[1]).read()
got = {name: [0, 0, 0] for name in want}  # count, bytes, contexts
ok = True
records = None
if text.lstrip().startswith("{"):
    report = json.loads(text)
    if "records" in report:  # memprof-convert --to-json: the YAML's shape
        report = to_v1(report)
        records = [{"GUID": int(r["guid"], 16), "AllocSites": [
            {"Callstack": [{"Function": int(f["function"], 16),
                            "LineOffset": f["line_offset"],
                            "Column": f["column"],
                            "IsInlineFrame": f["inline"]} for f in a["frames"]],
             "MemInfoBlock": a["mib"]} for a in r["alloc_sites"]]}
            for r in report["records"]]
if records is None and text.lstrip().startswith("{"):
    ctxs = report["contexts"]
    if len(ctxs) != report["summary"]["contexts"]:
        sys.exit("check-leaf-totals: list every context (-n 1000000): %d of %d"
                 % (len(ctxs), report["summary"]["contexts"]))
    for c in ctxs:
        name = c["frames"][0].get("linkage_name")
        if name in got:
            g = got[name]
            g[0] += c["allocations"]
            g[1] += c["size_bytes"]["total"]
            g[2] += 1
    total = (sum(c for c, _ in want.values()), sum(b for _, b in want.values()))
    summary = (report["summary"]["allocations"], report["summary"]["bytes"])
    if summary != total:
        ok = False
        print("MISMATCH summary: want count=%d bytes=%d, got count=%d bytes=%d"
              % (total + summary))
else:
    if records is None:
        import yaml
        docs = [d for d in yaml.safe_load_all(text) if d]
        records = docs[0].get("HeapProfileRecords", []) or [] if docs else []
    by_guid = {guid(n): n for n in want}
    for rec in records:
        name = by_guid.get(rec["GUID"])
        if name is None:
            continue
        entries = {}
        for site in rec.get("AllocSites", []) or []:
            stack = site["Callstack"]
            if stack[0]["Function"] != rec["GUID"]:
                continue
            k = 0
            for f in stack:
                k += f["Function"] == rec["GUID"]
                if not f["IsInlineFrame"]:
                    break
            key = tuple((f["Function"], f["LineOffset"], f["Column"],
                         f["IsInlineFrame"]) for f in stack)
            e = entries.setdefault(key, [k, 0, 0, 0])
            e[1] += 1
            e[2] += site["MemInfoBlock"]["AllocCount"]
            e[3] += site["MemInfoBlock"]["TotalSize"]
        for key, (k, n, count, size) in entries.items():
            if n % k or count % k or size % k:
                ok = False
                print("MISMATCH %s: a context held %d times, not in copies of %d"
                      % (name, n, k))
                continue
            g = got[name]
            g[0] += count // k
            g[1] += size // k
            g[2] += 1
for name, (count, size) in want.items():
    g = got[name]
    status = "ok" if (g[0], g[1]) == (count, size) else "MISMATCH"
    ok = ok and status == "ok"
    print("%s %s: want count=%d bytes=%d, got count=%d bytes=%d in %d contexts"
          % (status, name, count, size, g[0], g[1], g[2]))
sys.exit(0 if ok else 1)
