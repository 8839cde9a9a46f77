#!/usr/bin/env python3
"""report.test.py REPORT SHOW|- STATUS GIVEN USED BAD...: checks a
memprof-merge --report against what the test knows (inputs given, used,
which were bad) and, when SHOW is given, against memprof-show's JSON of the
merged profile (contexts, functions named)."""
import json, os, sys

rep = json.load(open(sys.argv[1]))
status, given, used, bad = sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:]
fail = []
if rep["status"] != status:
    fail.append("status %r" % rep["status"])
if (rep["inputs"]["given"], rep["inputs"]["used"]) != (given, used):
    fail.append("inputs %r" % rep["inputs"])
if sorted(r["path"] for r in rep["inputs"]["rejected"]) != sorted(bad):
    fail.append("rejected %r" % rep["inputs"]["rejected"])
for r in rep["inputs"]["rejected"]:
    if not r["error"] or not any(r["path"] in d for d in rep["diagnostics"]):
        fail.append("rejection of %s not explained" % r["path"])
if status == "ok":
    if not os.path.exists(rep["output"]) or os.path.getsize(rep["output"]) != rep["output_bytes"]:
        fail.append("output %r, %r bytes" % (rep["output"], rep["output_bytes"]))
    show = json.load(open(sys.argv[2]))
    if rep["memprof"]["contexts"] != show["summary"]["contexts"]:
        fail.append("contexts %d, the profile holds %d"
                    % (rep["memprof"]["contexts"], show["summary"]["contexts"]))
    if rep["memprof"]["named_functions"] != show["summary"]["named_functions"]:
        fail.append("named functions %d, the profile names %d"
                    % (rep["memprof"]["named_functions"], show["summary"]["named_functions"]))
else:
    if rep["output"] is not None:
        fail.append("a failed merge names an output")
for f in fail:
    print("FAIL:", f)
if fail:
    sys.exit(1)
print("report", status)
