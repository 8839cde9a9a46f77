#!/usr/bin/env python3
"""Checks memprof-convert --to-pprof through pprof's own reading of it
(`go tool pprof -raw` and `-top`), against memprof-show's JSON of the same
input and the ground truth the test program prints (lines "site FUNCTION
COUNT BYTES": the totals of the contexts that pass through FUNCTION; see
memprof-show/Inputs/grow.cpp).

check-pprof.py samples RAW.txt NEW.json [BASE.json]
    RAW.txt is `pprof -raw` of an export, NEW.json `memprof-show --format=json
    -n <all>` of its input (BASE.json of its --diff-base). Sample types:
    alloc_objects/count, alloc_space/bytes (the default), then lifetime,
    accesses and lifetime_access_density exactly when some context stores
    them. One sample per context of NEW, matched by its context_id label,
    whose values, class label and frames (names, leaf first, inlined frames
    in their caller's location) are the context's; then the base's contexts
    with a value, negated and labelled pprof::base=true. The samples sum to
    the summaries' totals.
check-pprof.py class-totals RAW.txt REPORT.json CLASS
    RAW.txt is `pprof -raw -tagfocus=class=CLASS`: its samples sum to the
    report's totals of that class (and there is one per context of it).
check-pprof.py cum TRUTH TOP.txt count|bytes FUNCTION...
    TOP.txt is `pprof -top -unit=B -trim=false` of alloc_objects or
    alloc_space: each FUNCTION's row has the truth's total as its cum.
check-pprof.py diff-cum BASE_TRUTH NEW_TRUTH TOP.txt count|bytes FUNCTION...
    The same of a comparison: cum is NEW - BASE (a FUNCTION absent from one
    side counts 0 there; a FUNCTION that does not change may have no row).
Prints "ok MODE" when every check holds, else the failures; exit status 1.
"""
import json, re, sys

errors = []


def fail(msg):
    errors.append(msg)


def finish(mode):
    if errors:
        for e in errors[:40]:
            print("error:", e)
        sys.exit(1)
    print("ok", mode)


def parse_raw(path):
    """pprof's Profile.String(): samples, locations and mappings."""
    P = {"types": [], "default": None, "samples": [], "locations": {}, "comments": []}
    section = None
    loc = None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("Comment: "):
            P["comments"].append(line[len("Comment: "):])
            continue
        if line == "Samples:":
            section = "header"
            continue
        if line == "Locations":
            section = "locations"
            continue
        if line == "Mappings":
            section = "mappings"
            continue
        if section == "header":
            for i, t in enumerate(line.split()):
                if t.endswith("[dflt]"):
                    P["default"] = i
                    t = t[:-len("[dflt]")]
                ty, _, unit = t.partition("/")
                P["types"].append((ty, unit))
            section = "samples"
        elif section == "samples":
            m = re.match(r"^\s*(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$", line)
            if m:
                P["samples"].append({
                    "values": [int(v) for v in m.group(1).split()],
                    "locs": [int(v) for v in m.group(2).split()],
                    "labels": {}})
                continue
            labels = re.findall(r"(\S+?):\[([^\]]*)\]", line)
            if labels and P["samples"]:
                for k, v in labels:
                    P["samples"][-1]["labels"][k] = v.split()
            elif line.strip():
                fail("unexpected sample line %r" % line)
        elif section == "locations":
            m = re.match(r"^\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(.*)$", line)
            if m:
                loc = {"address": int(m.group(2), 16),
                       "mapping": int(m.group(3) or 0), "lines": [m.group(4)]}
                P["locations"][int(m.group(1))] = loc
            elif loc is not None and line.startswith(" "):
                loc["lines"].append(line.strip())
    if not P["types"]:
        fail("%s: no sample types" % path)
    return P


def load_json(path):
    return json.load(open(path))


# (pprof type, unit, JSON key, scale from JSON to the stored integer)
EXTRA = [("lifetime", "milliseconds", "lifetime_ms", 1),
         ("accesses", "count", "accesses", 1),
         ("lifetime_access_density", "centiaccesses/byte/s",
          "lifetime_access_density", 100)]


def stored(ctx, key, scale):
    v = ctx[key]["total"] if isinstance(ctx[key], dict) else ctx[key]
    if v is None:
        return None
    return int(round(v * scale))


def expected_values(ctx, types):
    vals = []
    for ty, unit in types:
        if ty == "alloc_objects":
            vals.append(ctx["allocations"] or 0)
        elif ty == "alloc_space":
            vals.append(ctx["size_bytes"]["total"] or 0)
        else:
            key, scale = [(k, s) for (t, u, k, s) in EXTRA if t == ty][0]
            vals.append(stored(ctx, key, scale) or 0)
    return vals


def frame_name(f):
    if f["gap"]:
        return None  # "?? ... at module+0xOFF"
    return f["function"] if f["function"] is not None else f["guid"]


def check_frames(P, sample, ctx, where):
    lines, groups = [], []
    for l in sample["locs"]:
        loc = P["locations"].get(l)
        if loc is None:
            fail("%s: location %d not in the table" % (where, l))
            return
        groups.append(len(loc["lines"]))
        lines.extend(loc["lines"])
    frames = ctx["frames"]
    if len(lines) != len(frames):
        fail("%s: %d lines for %d frames" % (where, len(lines), len(frames)))
        return
    for line, f in zip(lines, frames):
        name = frame_name(f)
        if name is None:
            ok = line.startswith("?? ")
        else:
            ok = line.startswith(name + " ")
        if not ok:
            fail("%s: line %r is not frame %r" % (where, line, name or f["gap"]))
    # A location is a run of inlined frames and the frame they are
    # inlined into.
    i = 0
    for n in groups:
        run = frames[i:i + n]
        i += n
        if any(not f["inline"] for f in run[:-1]) or (run[-1]["inline"] and i < len(frames)):
            fail("%s: location of %d frames does not end at the first frame "
                 "not inlined: %r" % (where, n, [f["inline"] for f in run]))


def samples(raw_path, new_path, base_path=None):
    P = parse_raw(raw_path)
    sides = [(False, load_json(new_path))]
    if base_path:
        sides.append((True, load_json(base_path)))
    types = P["types"]
    if types[:2] != [("alloc_objects", "count"), ("alloc_space", "bytes")]:
        fail("first sample types %r" % types[:2])
    if P["default"] != 1:
        fail("default sample type is %r, not alloc_space" % P["default"])
    want = types[:2] + [(t, u) for (t, u, k, s) in EXTRA
                        if any(stored(c, k, s) is not None
                               for _, r in sides for c in r["contexts"])]
    if types != want:
        fail("sample types %r, want %r" % (types, want))
    for is_base, report in sides:
        byid = {c["id"]: c for c in report["contexts"]}
        if len(byid) != len(report["contexts"]):
            fail("repeated context ids in the JSON")
        mine = [s for s in P["samples"]
                if ("true" in s["labels"].get("pprof::base", [])) == is_base]
        seen = set()
        sums = [0, 0]
        for s in mine:
            ids = s["labels"].get("context_id", [])
            if len(ids) != 1 or ids[0] not in byid:
                fail("sample with context_id %r not in the report" % ids)
                continue
            cid = ids[0]
            where = ("base " if is_base else "") + cid
            if cid in seen:
                fail("%s: two samples" % where)
            seen.add(cid)
            ctx = byid[cid]
            vals = expected_values(ctx, types)
            if is_base:
                vals = [-v for v in vals]
            if s["values"] != vals:
                fail("%s: values %r, want %r" % (where, s["values"], vals))
            want_class = [ctx["class"]] if ctx["class"] else []
            if s["labels"].get("class", []) != want_class:
                fail("%s: class %r, want %r" % (where, s["labels"].get("class"), want_class))
            check_frames(P, s, ctx, where)
            sums[0] += s["values"][0]
            sums[1] += s["values"][1]
        # pprof's -diff_base drops the base's samples left without a value.
        want_ids = {c["id"] for c in report["contexts"]
                    if not is_base or any(expected_values(c, types))}
        if seen != want_ids:
            fail("%scontexts without a sample: %r; samples of no context: %r" % (
                "base " if is_base else "", sorted(want_ids - seen), sorted(seen - want_ids)))
        sign = -1 if is_base else 1
        S = report["summary"]
        if sums != [sign * S["allocations"], sign * S["bytes"]]:
            fail("%ssamples sum to %r, summary has %r" % (
                "base " if is_base else "", sums, [S["allocations"], S["bytes"]]))
    if not P["samples"]:
        fail("no samples")
    finish("samples")


def class_totals(raw_path, report_path, cls):
    P = parse_raw(raw_path)
    want = load_json(report_path)["summary"]["classes"][cls]
    got = [0, 0]
    for s in P["samples"]:
        if s["labels"].get("class") != [cls]:
            fail("sample of class %r" % s["labels"].get("class"))
        got[0] += s["values"][0]
        got[1] += s["values"][1]
    if got != [want["allocations"], want["bytes"]] or len(P["samples"]) != want["contexts"]:
        fail("class %s: %d samples of %r, summary %r" % (cls, len(P["samples"]), got, want))
    if want["contexts"] == 0:
        fail("class %s has no context: the check would prove nothing" % cls)
    finish("class-totals")


def truth(path):
    out = {}
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[0] == "site":
            out[p[1]] = (int(p[2]), int(p[3]))
    if not out:
        fail("%s: no truth lines" % path)
    return out


def top_rows(path, index):
    """pprof -top rows: function name (up to its parameters) -> cums."""
    rows = {}
    for line in open(path):
        m = re.match(r"^\s*(-?[0-9.]+B?|0)\s+-?[0-9.]+%\s+-?[0-9.]+%\s+"
                     r"(-?[0-9.]+B?|0)\s+-?[0-9.]+%\s+(.*)$", line)
        if not m:
            continue
        cum = m.group(2)
        if index == "bytes" and cum != "0" and not cum.endswith("B"):
            fail("%s: %r is not in bytes (give -unit=B)" % (path, cum))
        cum = cum.rstrip("B")
        if not re.match(r"^-?\d+$", cum):
            fail("%s: cum %r is not exact" % (path, cum))
            continue
        rows.setdefault(m.group(3).split("(")[0], []).append(int(cum))
    if not rows:
        fail("%s: no rows" % path)
    return rows


def cum(truth_path, top_path, index, functions, base_path=None):
    new = truth(truth_path)
    base = truth(base_path) if base_path else {}
    k = 0 if index == "count" else 1
    rows = top_rows(top_path, index)
    for fn in functions:
        if fn not in new and fn not in base:
            fail("%s is in neither truth" % fn)
            continue
        want = new.get(fn, (0, 0))[k] - base.get(fn, (0, 0))[k]
        got = rows.get(fn, [])
        if len(got) > 1:
            fail("%s: %d rows in %s" % (fn, len(got), top_path))
        elif not got and not (base_path and want == 0):
            fail("%s: no row in %s" % (fn, top_path))
        elif got and got[0] != want:
            fail("%s: cum %d, truth %d" % (fn, got[0], want))
    finish("diff-cum" if base_path else "cum")


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "samples" and len(argv) in (4, 5):
        samples(*argv[2:])
    elif mode == "class-totals" and len(argv) == 5:
        class_totals(*argv[2:])
    elif mode == "cum" and len(argv) >= 6:
        cum(argv[2], argv[3], argv[4], argv[5:])
    elif mode == "diff-cum" and len(argv) >= 7:
        cum(argv[3], argv[4], argv[5], argv[6:], base_path=argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
