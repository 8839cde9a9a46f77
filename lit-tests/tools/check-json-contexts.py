#!/usr/bin/env python3
"""Checks that memprof-convert --to-json (either format version) holds every
allocation context memprof-show reports for the same indexed profile, with
the same frames and totals.

  check-json-contexts.py CONVERT.json SHOW.json

SHOW.json is memprof-show --format=json listing every context (-n 1000000).
The records hold a context once per frame of its leading inline chain (the
records of those functions); every copy must carry the same block. Per
context id: the frames (GUID, line offset, column, inline flag, and names
and lines where both know them), allocations, bytes, total lifetime and
class; and the summary's totals. Prints one line."""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memprof_json import to_v1


def fail(msg):
    sys.exit("check-json-contexts: " + msg)


conv = json.load(open(sys.argv[1]))
version = conv["format_version"]
conv = to_v1(conv)
show = json.load(open(sys.argv[2]))
if len(show["contexts"]) != show["summary"]["contexts"]:
    fail("memprof-show lists %d of %d contexts (use -n 1000000)"
         % (len(show["contexts"]), show["summary"]["contexts"]))

contexts = {}
for r in conv["records"]:
    for a in r["alloc_sites"]:
        prev = contexts.setdefault(a["context_id"], a)
        if prev["mib"] != a["mib"] or prev["frames"] != a["frames"]:
            fail("context %s: two copies differ" % a["context_id"])

want = {c["id"]: c for c in show["contexts"]}
if set(contexts) != set(want):
    fail("%d contexts in the JSON, %d in memprof-show's; %d in one only"
         % (len(contexts), len(want), len(set(contexts) ^ set(want))))
totals = [0, 0]
for cid, a in contexts.items():
    c = want[cid]
    mib = a["mib"]
    got = (mib["AllocCount"], mib["TotalSize"], mib["TotalLifetime"], a["class"])
    exp = (c["allocations"], c["size_bytes"]["total"], c["lifetime_ms"]["total"],
           c["class"])
    if got != exp:
        fail("context %s: %r, memprof-show %r" % (cid, got, exp))
    if len(a["frames"]) != len(c["frames"]):
        fail("context %s: %d frames, memprof-show %d"
             % (cid, len(a["frames"]), len(c["frames"])))
    for f, s in zip(a["frames"], c["frames"]):
        if (int(f["function"], 16), f["line_offset"], f["column"], f["inline"]) != \
                (int(s["guid"], 16), s["line_offset"], s["column"], s["inline"]):
            fail("context %s: frame %r, memprof-show %r" % (cid, f, s))
        if "name" in f and f["demangled_name"] != s["function"]:
            fail("context %s: %s, memprof-show %s"
                 % (cid, f["demangled_name"], s["function"]))
        if "line" in f and (f["file"], f["line"]) != (s["file"], s["line"]):
            fail("context %s: %s:%d, memprof-show %s:%s"
                 % (cid, f["file"], f["line"], s["file"], s["line"]))
    totals[0] += mib["AllocCount"]
    totals[1] += mib["TotalSize"]
summary = (show["summary"]["allocations"], show["summary"]["bytes"])
if tuple(totals) != summary:
    fail("totals %r, memprof-show %r" % (tuple(totals), summary))
if conv["summary"]["contexts"] != len(contexts):
    fail("the summary counts %d contexts, the records hold %d"
         % (conv["summary"]["contexts"], len(contexts)))
print("contexts ok: version %d, %d contexts, %d allocations, %d bytes"
      % (version, len(contexts), totals[0], totals[1]))
