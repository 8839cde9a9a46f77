#!/usr/bin/env python3
"""Checks memprof-convert --to-json output against the same profile's YAML.

  check-json.py JSON YAML

JSON is memprof-convert's output, format version 1 or 2; YAML is what
llvm-profdata-22 show --memory printed for the same indexed file. Asserts
the documented layout (docs/text-formats.md) and that every value agrees
with the YAML: record order and GUIDs, frames, every MemInfoBlock field of
the schema, call sites and callee GUIDs, the summary, and each site's class
under LLVM's default thresholds (recomputed here in single precision).
Version 2's tables are checked (ids, each file, function, frame and stack
once, parents before children), then it is read as version 1 through
lit-tests/tools/memprof_json.py and checked as version 1 is. Prints a
one-line summary.
"""
import json, os, re, struct, sys
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools"))
from memprof_json import stacks_of, to_v1


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def classify(mib):
    count = mib.get("AllocCount", 0)
    if count == 0:
        return "notcold"
    density = f32(f32(float(mib.get("TotalLifetimeAccessDensity", 0))) / f32(float(count)))
    density = f32(density / f32(100.0))
    lifetime = f32(f32(float(mib.get("TotalLifetime", 0))) / f32(float(count)))
    if density < f32(0.05) and lifetime >= f32(200000.0):
        return "cold"
    return "notcold"


def fail(msg):
    sys.exit("check-json: " + msg)


NAMES = {}


def check_names(obj, guid, where):
    """Optional names: both or neither, one name per GUID, the GUID being
    the MD5 of the linkage name (after LLVM's suffix rules)."""
    if ("name" in obj) != ("demangled_name" in obj):
        fail("%s: name without demangled_name or the reverse" % where)
    if ("file" in obj) != ("line" in obj):
        fail("%s: file without line or the reverse" % where)
    if "name" in obj:
        import hashlib
        name = obj["name"]
        for suffix in (".llvm.", ".part."):
            pos = name.rfind(suffix)
            if pos >= 0 and name.rfind(".") == pos + len(suffix) - 1:
                name = name[:pos]
        md5 = hashlib.md5(name.encode()).digest()
        if int.from_bytes(md5[:8], "little") != int(guid, 16):
            fail("%s: name %s does not hash to %s" % (where, obj["name"], guid))
        if NAMES.setdefault(guid, obj["name"]) != obj["name"]:
            fail("%s: two names for %s" % (where, guid))


def frames_equal(jframes, yframes, where):
    if len(jframes) != len(yframes or []):
        fail("%s: %d frames in JSON, %d in YAML" % (where, len(jframes), len(yframes or [])))
    for j, y in zip(jframes, yframes or []):
        keys = set(j) - {"name", "demangled_name", "file", "line"}
        if keys != {"function", "line_offset", "column", "inline"}:
            fail("%s: frame keys %s" % (where, sorted(j)))
        check_names(j, j["function"], where)
        if int(j["function"], 16) != y["Function"] or j["line_offset"] != y["LineOffset"] \
                or j["column"] != y["Column"] or j["inline"] != y["IsInlineFrame"]:
            fail("%s: frame %r differs from %r" % (where, j, y))
        if j["function"] != "0x%x" % y["Function"]:
            fail("%s: GUID %s is not printed as LLVM prints it" % (where, j["function"]))


def check_v2(doc):
    """Version 2's tables: ids are indexes plus 1, every entry is distinct,
    references point at entries, and a stack's parent precedes it."""
    def ids(table, keys, optional=()):
        for i, e in enumerate(doc[table]):
            if e.get("id") != i + 1:
                fail("%s %d: id %r" % (table, i + 1, e.get("id")))
            if not set(keys) <= set(e) <= set(keys) | set(optional) | {"id"}:
                fail("%s %d: keys %s" % (table, i + 1, sorted(e)))
    def ref(table, v, where):
        if not isinstance(v, int) or not 1 <= v <= len(doc[table]):
            fail("%s: %r is no %s id" % (where, v, table))
    if len(set(doc["files"])) != len(doc["files"]):
        fail("a file is listed twice")
    ids("functions", ["guid"], ["name", "demangled_name", "decl_file", "decl_line"])
    if len({f["guid"] for f in doc["functions"]}) != len(doc["functions"]):
        fail("a function is listed twice")
    for f in doc["functions"]:
        if "decl_file" in f:
            ref("files", f["decl_file"], "function %d" % f["id"])
    ids("frames", ["function", "line_offset", "column", "inline"], ["file", "line"])
    seen = set()
    for f in doc["frames"]:
        ref("functions", f["function"], "frame %d" % f["id"])
        if "file" in f:
            ref("files", f["file"], "frame %d" % f["id"])
        key = (f["function"], f["line_offset"], f["column"], f["inline"])
        if key in seen:
            fail("frame %d is listed twice" % f["id"])
        seen.add(key)
    ids("stacks", ["frames"], ["parent"])
    for s in doc["stacks"]:
        for f in s["frames"]:
            ref("frames", f, "stack %d" % s["id"])
    full = stacks_of(doc)
    if len(set(map(tuple, full[1:]))) != len(doc["stacks"]):
        fail("a stack is listed twice")
    for r in doc["records"]:
        if set(r) != {"function", "alloc_sites", "call_sites"}:
            fail("record keys %s" % sorted(r))
        ref("functions", r["function"], "a record")
        for a in r["alloc_sites"]:
            if set(a) != {"context_id", "class", "stack", "mib"}:
                fail("alloc site keys %s" % sorted(a))
            ref("stacks", a["stack"], "an alloc site")
            if len(a["mib"]) != len(doc["schema"]):
                fail("an alloc site's mib has %d values" % len(a["mib"]))
        for c in r["call_sites"]:
            if set(c) != {"stack", "callees"}:
                fail("call site keys %s" % sorted(c))
            ref("stacks", c["stack"], "a call site")
            for g in c["callees"]:
                ref("functions", g, "a callee")


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    version = doc.get("format_version")
    if doc.get("format") == "memprof-json" and version == 2:
        check_v2(doc)
        doc = to_v1(doc)
    with open(sys.argv[2]) as f:
        text = f.read()
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    records = docs[0].get("HeapProfileRecords", []) if docs else []
    summary = {k: int(v) for k, v in re.findall(r"^#   ([A-Za-z ]+): (\d+)$", text, re.M)}

    if doc.get("format") != "memprof-json" or doc.get("format_version") != 1:
        fail("bad format header")
    if doc.get("memprof_version") not in (2, 3, 4):
        fail("bad memprof_version %r" % doc.get("memprof_version"))
    expect_summary = {
        "contexts": summary["Total contexts"],
        "cold_contexts": summary["Total cold contexts"],
        "hot_contexts": summary["Total hot contexts"],
        "max_cold_total_size": summary["Maximum cold context total size"],
        "max_warm_total_size": summary["Maximum warm context total size"],
        "max_hot_total_size": summary["Maximum hot context total size"],
    }
    if doc["summary"] != expect_summary:
        fail("summary %r differs from %r" % (doc["summary"], expect_summary))

    schema = doc["schema"]
    if len(doc["records"]) != len(records):
        fail("%d records in JSON, %d in YAML" % (len(doc["records"]), len(records)))
    contexts = {}
    nalloc = ncall = 0
    for i, (j, y) in enumerate(zip(doc["records"], records)):
        where = "record %d" % i
        if set(j) - {"name", "demangled_name"} != {"guid", "alloc_sites", "call_sites"}:
            fail("%s: keys %s" % (where, sorted(j)))
        check_names(j, j["guid"], where)
        if int(j["guid"], 16) != y["GUID"]:
            fail("%s: GUID %s, YAML %x" % (where, j["guid"], y["GUID"]))
        yallocs = y.get("AllocSites", [])
        if len(j["alloc_sites"]) != len(yallocs):
            fail("%s: alloc site count" % where)
        for k, (ja, ya) in enumerate(zip(j["alloc_sites"], yallocs)):
            w = "%s alloc site %d" % (where, k)
            if set(ja) != {"context_id", "class", "frames", "mib"}:
                fail("%s: keys %s" % (w, sorted(ja)))
            frames_equal(ja["frames"], ya["Callstack"], w)
            if list(ja["mib"]) != schema or list(ya["MemInfoBlock"]) != schema:
                fail("%s: MIB fields %s, schema %s, YAML %s" % (
                    w, list(ja["mib"]), schema, list(ya["MemInfoBlock"])))
            if ja["mib"] != ya["MemInfoBlock"]:
                fail("%s: MIB %r differs from %r" % (w, ja["mib"], ya["MemInfoBlock"]))
            if ja["class"] != classify(ja["mib"]):
                fail("%s: class %s, expected %s" % (w, ja["class"], classify(ja["mib"])))
            key = json.dumps(ja["frames"])
            if contexts.setdefault(key, ja["context_id"]) != ja["context_id"]:
                fail("%s: one stack, two context ids" % w)
            nalloc += 1
        ycalls = y.get("CallSites", [])
        if len(j["call_sites"]) != len(ycalls):
            fail("%s: call site count" % where)
        for k, (jc, yc) in enumerate(zip(j["call_sites"], ycalls)):
            w = "%s call site %d" % (where, k)
            if set(jc) != {"frames", "callee_guids"}:
                fail("%s: keys %s" % (w, sorted(jc)))
            frames_equal(jc["frames"], yc["Frames"], w)
            if [int(g, 16) for g in jc["callee_guids"]] != yc.get("CalleeGuids", []):
                fail("%s: callee GUIDs differ" % w)
            ncall += 1
    if len(set(contexts.values())) != len(contexts):
        fail("two stacks share a context id")
    print("json ok: version %d, %d records, %d alloc sites, %d call sites, %d fields, %d names" % (
        version, len(records), nalloc, ncall, len(schema), len(NAMES)))


main()
