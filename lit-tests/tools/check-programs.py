#!/usr/bin/env python3
"""Checks memprof-show's per-module attribution ("modules (allocation
sites)") of a profile that merges several programs.

check-programs.py REPORT.json BIN=TRUTH...
  REPORT.json is memprof-show --format=json of the merged profile. For each
  BIN (a program's main executable, whose build id llvm-readelf-22 reads),
  the summary's module row of that build id must hold exactly the
  allocations and bytes of the truth that program printed (every line whose
  last two fields are COUNT BYTES), and there must be no other module row.
Prints "ok BIN: ..." lines; exits 1 with MISMATCH lines otherwise."""
import json, subprocess, sys


def build_id(path):
    out = subprocess.run(["llvm-readelf-22", "-n", path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return out.split("Build ID:")[1].split()[0]


report = json.load(open(sys.argv[1]))
rows = {m["build_id"]: m for m in report["summary"]["modules"]}
ok = True
seen = set()
for arg in sys.argv[2:]:
    binary, truth = arg.split("=", 1)
    count = size = 0
    for line in open(truth):
        p = line.split()
        if len(p) >= 3 and p[-1].isdigit() and p[-2].isdigit():
            count += int(p[-2])
            size += int(p[-1])
    bid = build_id(binary)
    seen.add(bid)
    row = rows.get(bid)
    got = (row["allocations"], row["bytes"]) if row else (0, 0)
    status = "ok" if got == (count, size) else "MISMATCH"
    ok = ok and status == "ok"
    print("%s %s: want allocations=%d bytes=%d, got allocations=%d bytes=%d"
          % (status, binary, count, size, got[0], got[1]))
for bid in rows:
    if bid not in seen:
        ok = False
        print("MISMATCH module %s credited, not one of the programs" % bid)
sys.exit(0 if ok else 1)
