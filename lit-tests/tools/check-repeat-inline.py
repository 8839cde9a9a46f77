#!/usr/bin/env python3
"""Checks that a profile still exercises repeated functions in leading inline
chains, using llvm-profdata-22's YAML of it (show --memory) as the reader.

check-repeat-inline.py YAML TRUTH... : for every NAME of the TRUTH lines
"site NAME COUNT BYTES" (a TRUTH may be given as W*FILE, as for
check-totals.py; the weight is ignored), at least one allocation context
whose leaf (frame 0) is function NAME must have a leading inline chain
(frames 0..k, k the first frame with IsInlineFrame false) that holds some
function more than once. LLVM's format attaches such a context to the record
of that function once per occurrence, so that record must hold the context's
Callstack a multiple of that many times (at least twice); this is checked for
every repeating context found. Prints an "ok" line per NAME, or a MISMATCH
line and exits 1 (e.g. when compiler inlining changed and no chain repeats).
GUIDs are MD5 of the name, low 8 bytes little-endian, as in check-totals.py."""
import hashlib, sys, yaml


def guid(name):
    return int.from_bytes(hashlib.md5(name.encode()).digest()[:8], "little")


def key(callstack):
    return tuple((f["Function"], f["LineOffset"], f["Column"], bool(f["IsInlineFrame"]))
                 for f in callstack)


def leading_chain(callstack):
    chain = []
    for f in callstack:
        chain.append(f["Function"])
        if not f["IsInlineFrame"]:
            break
    return chain


if len(sys.argv) < 3:
    sys.exit("usage: check-repeat-inline.py YAML TRUTH...")

names = []
for arg in sys.argv[2:]:
    path = arg
    if "*" in arg and arg.split("*", 1)[0].isdigit():
        path = arg.split("*", 1)[1]
    for line in open(path):
        parts = line.split()
        if len(parts) == 4 and parts[0] == "site" and parts[1] not in names:
            names.append(parts[1])
if not names:
    print("MISMATCH: no 'site NAME COUNT BYTES' line in %s" % " ".join(sys.argv[2:]))
    sys.exit(1)

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
records = {}
for rec in (docs[0].get("HeapProfileRecords", []) or []) if docs else []:
    records.setdefault(rec["GUID"], []).extend(rec.get("AllocSites", []) or [])
known = {guid(n): n for n in names}


def label(g):
    return known.get(g, "0x%016x" % g)


ok = True
for name in names:
    g = guid(name)
    # All contexts with leaf NAME are in NAME's own record (frame 0 is always
    # in the leading chain); the same Callstack may be listed several times.
    contexts = {}
    for site in records.get(g, []):
        if site["Callstack"] and site["Callstack"][0]["Function"] == g:
            contexts.setdefault(key(site["Callstack"]), site["Callstack"])
    if not contexts:
        print("MISMATCH %s: no allocation context has this leaf (GUID 0x%016x)" % (name, g))
        ok = False
        continue
    repeating = 0
    example = None
    bad = []
    for k, callstack in contexts.items():
        chain = leading_chain(callstack)
        for f in sorted(set(chain), key=chain.index):
            positions = [i for i, x in enumerate(chain) if x == f]
            if len(positions) < 2:
                continue
            held = sum(1 for s in records.get(f, []) if key(s["Callstack"]) == k)
            if held < len(positions) or held % len(positions):
                bad.append("%s at chain positions %s but its record holds the context %d times"
                           % (label(f), positions, held))
            if example is None or len(positions) > len(example[1]):
                example = (f, positions, held, len(chain))
        if any(chain.count(f) > 1 for f in chain):
            repeating += 1
    if bad:
        for b in bad:
            print("MISMATCH %s: %s" % (name, b))
        ok = False
    elif not repeating:
        print("MISMATCH %s: none of its %d contexts has a leading inline chain "
              "repeating a function (inlining changed?)" % (name, len(contexts)))
        ok = False
    else:
        f, positions, held, depth = example
        print("ok %s: %d of %d contexts repeat a function in the leading inline chain; "
              "e.g. %s at positions %s of a %d-frame chain, its record holds the context %d times"
              % (name, repeating, len(contexts), label(f), positions, depth, held))
sys.exit(0 if ok else 1)
