#!/usr/bin/env python3
"""labels.py TEXT JSON: memprof-show's text and JSON of one --group-by view
(function or site, the same rows in the same order). Each row's frame label
in the text must stand for one function only: two rows whose functions
(the JSON's full demangled names) differ never share a label. Prints
"ok N rows, L labels for F functions", or MISMATCH lines and exits 1."""
import json, re, sys

text, js = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
stats = ("size ", "lifetime ", "accesses ", "density ")
labels = []
for block in re.split(r"\n(?=#\d+  )", text)[1:]:
    frames = [l[4:] for l in block.split("\n")[1:]
              if l.startswith("    ") and not l[4:].startswith(stats)]
    if len(frames) != 1:
        sys.exit("MISMATCH a row with %d frame lines: %r" % (len(frames), block))
    labels.append(frames[0].split("  ")[0])
rows = js["contexts"]
if len(rows) != len(labels):
    sys.exit("MISMATCH %d rows in the text, %d in the JSON" % (len(labels), len(rows)))
by_label = {}
for label, row in zip(labels, rows):
    fn = row["frames"][0]["function"] or row["frames"][0]["guid"]
    by_label.setdefault(label, set()).add(fn)
bad = {l: f for l, f in by_label.items() if len(f) > 1}
for l, f in sorted(bad.items()):
    print("MISMATCH %r stands for %d functions: %r" % (l, len(f), sorted(f)))
if bad:
    sys.exit(1)
print("ok %d rows, %d labels for %d functions"
      % (len(rows), len(by_label), len({f for fs in by_label.values() for f in fs})))
