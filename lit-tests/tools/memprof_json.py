#!/usr/bin/env python3
"""Reads memprof-convert --to-json output of either format version and gives
it in version 1's shape (records with every frame in full), so that scripts
need one reader and a test can check that version 2 says all version 1 says.

  from memprof_json import load, to_v1
  doc = load(text)          # json.loads, then to_v1

As a script, compares the two forms of one profile:

  memprof_json.py compare V2.json V1.json   # equal once V2 is rebuilt as V1
  memprof_json.py v1 V2.json                # prints V2 rebuilt as V1

Version 2 (docs/text-formats.md): "files", "functions", "frames" and
"stacks" are tables whose entry with "id" k is at index k - 1; a stack's
frames are its "frames" (allocation site first) followed by the frames of
its "parent" stack, if any."""
import json, sys


def stacks_of(doc):
    """Every stack of a version 2 document in full, by id, as lists of
    frame ids, allocation site first. Parents come before their children,
    so one pass suffices."""
    full = [None]
    for i, s in enumerate(doc["stacks"]):
        if s["id"] != i + 1:
            raise ValueError("stack %d has id %r" % (i + 1, s["id"]))
        frames = list(s["frames"])
        if "parent" in s:
            if not 1 <= s["parent"] <= i:
                raise ValueError("stack %d: parent %r does not precede it"
                                 % (i + 1, s["parent"]))
            frames += full[s["parent"]]
        full.append(frames)
    return full


def to_v1(doc):
    """\p doc (either version) in version 1's shape."""
    if doc.get("format_version") == 1 or "records" not in doc:
        return doc
    if doc.get("format_version") != 2:
        raise ValueError("format_version %r" % doc.get("format_version"))
    files = [None] + doc["files"]
    funcs = [None] + doc["functions"]
    for i, f in enumerate(doc["functions"]):
        if f["id"] != i + 1:
            raise ValueError("function %d has id %r" % (i + 1, f["id"]))

    def named(obj, fid):
        f = funcs[fid]
        if "name" in f:
            obj["name"] = f["name"]
            obj["demangled_name"] = f["demangled_name"]
        return obj

    frames = [None]
    for i, f in enumerate(doc["frames"]):
        if f["id"] != i + 1:
            raise ValueError("frame %d has id %r" % (i + 1, f["id"]))
        v1 = named({"function": funcs[f["function"]]["guid"],
                    "line_offset": f["line_offset"], "column": f["column"],
                    "inline": f["inline"]}, f["function"])
        if "file" in f:
            v1["file"] = files[f["file"]]
            if "line" in f:  # left out for line 0, as in version 1
                v1["line"] = f["line"]
        frames.append(v1)
    stacks = stacks_of(doc)

    def frames_of(sid):
        return [dict(frames[f]) for f in stacks[sid]]

    schema = doc["schema"]
    out = {}
    for k, v in doc.items():
        if k in ("files", "functions", "frames", "stacks", "records"):
            continue
        out[k] = v
    out["format_version"] = 1
    records = []
    for r in doc["records"]:
        rec = named({"guid": funcs[r["function"]]["guid"]}, r["function"])
        rec["alloc_sites"] = [
            {"context_id": a["context_id"], "class": a["class"],
             "frames": frames_of(a["stack"]),
             "mib": dict(zip(schema, a["mib"]))}
            for a in r["alloc_sites"]]
        rec["call_sites"] = [
            {"frames": frames_of(c["stack"]),
             "callee_guids": [funcs[g]["guid"] for g in c["callees"]]}
            for c in r["call_sites"]]
        records.append(rec)
    # Version 1's key order: the header keys, records, then counters.
    ordered = {}
    for k, v in out.items():
        if k == "counters":
            continue
        ordered[k] = v
    ordered["records"] = records
    if "counters" in out:
        ordered["counters"] = out["counters"]
    return ordered


def load(text):
    return to_v1(json.loads(text))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        v2 = json.load(open(sys.argv[2]))
        v1 = json.load(open(sys.argv[3]))
        if v2.get("format_version") != 2 or v1.get("format_version") != 1:
            sys.exit("memprof_json: compare wants a version 2 and a version 1 file")
        rebuilt = to_v1(v2)
        if rebuilt != v1:
            for k in sorted(set(rebuilt) | set(v1)):
                if rebuilt.get(k) != v1.get(k):
                    if k == "records":
                        for i, (a, b) in enumerate(zip(rebuilt[k], v1[k])):
                            if a != b:
                                sys.exit("memprof_json: record %d differs:\n%r\n%r"
                                         % (i, a, b))
                    sys.exit("memprof_json: key %s differs" % k)
        if list(rebuilt) != list(v1):
            sys.exit("memprof_json: key order %r, version 1 %r"
                     % (list(rebuilt), list(v1)))
        n = len(v1.get("records", []))
        print("same: %d records, %d alloc sites, %d call sites" % (
            n, sum(len(r["alloc_sites"]) for r in v1.get("records", [])),
            sum(len(r["call_sites"]) for r in v1.get("records", []))))
    elif len(sys.argv) == 3 and sys.argv[1] == "v1":
        json.dump(load(open(sys.argv[2]).read()), sys.stdout, indent=2)
        print()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
