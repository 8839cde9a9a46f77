#!/usr/bin/env python3
"""Sets fields of the first MIB whose AllocCount is greater than 1 (a site
the program itself allocated from more than once) in a raw text.

  edit-first-mib.py IN OUT FIELD=VALUE...
"""
import sys

src, dst = sys.argv[1], sys.argv[2]
edits = dict(a.split("=", 1) for a in sys.argv[3:])
lines = open(src).read().split("\n")
# Find the first mib whose AllocCount > 1 (a site the program itself made).
start = None
for i, l in enumerate(lines):
    if l.strip().startswith("mib "):
        for j in range(i + 1, len(lines)):
            w = lines[j].split()
            if w and w[0] == "AllocCount":
                if int(w[1]) > 1:
                    start = i
                break
        if start is not None:
            break
if start is None:
    sys.exit("edit-first-mib: no MIB with AllocCount > 1")
for j in range(start + 1, len(lines)):
    w = lines[j].split()
    if not w or w[0] in ("mib", "stacks", "padding"):
        break
    if w[0] in edits:
        lines[j] = lines[j][: len(lines[j]) - len(lines[j].lstrip())] + w[0] + " " + edits.pop(w[0])
if edits:
    sys.exit("edit-first-mib: fields not found: %s" % ", ".join(edits))
open(dst, "w").write("\n".join(lines))
