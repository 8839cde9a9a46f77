#!/usr/bin/env python3
"""header-only.test.py H.json GROW.id PLAIN.id PLAIN_PATH: the headers of
clang.raw, ours.raw, merged.profdata and bad.raw, in that order, against
the build ids llvm-readelf read from the two programs."""
import json, sys

h = json.load(open(sys.argv[1]))["headers"]
grow, plain = open(sys.argv[2]).read().strip(), open(sys.argv[3]).read().strip()
fail = []
want = [
    ("clang.raw", "raw", grow, None),
    ("ours.raw", "raw", plain, sys.argv[4]),
    ("merged.profdata", "indexed", None, None),
]
for (path, kind, prog, ppath), e in zip(want, h):
    got = (e["path"], e["kind"], e["program"], e["program_path"])
    if got != (path, kind, prog, ppath) or e["error"] is not None:
        fail.append("%r, expected %r" % (got, (path, kind, prog, ppath)))
    if prog and e["modules"][0] != prog:
        fail.append("%s: the program is not the first module" % path)
if len(h) != 4 or h[3]["path"] != "bad.raw" or not h[3]["error"]:
    fail.append("bad.raw: %r" % (h[3:],))
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else print("headers ok"))
