#!/usr/bin/env python3
"""Checks memprof's heap data (docs/heap-data.md) as the tools show it against
the truth mkheap.py wrote into raw profiles, summing it here.

Each TRUTH.json (mkheap.py add) goes with MAP.json, `memprof-show
--format=json -n 100000` of that raw file alone (with --no-gaps when the
output checked dropped unsymbolized contexts, as memprof-merge does): a raw
stack is the context of that report whose allocations and bytes are the
stack's MIB's (summed over the file's dumps), which the check requires to be
one context per stack. Truth files count as often as they are given (a
merge of a file with itself: give it twice).

check-heap.py view TRUTH:MAP[,TRUTH:MAP...] VIEW.json [VIEW.txt]
    `memprof-show --view peak|leaks --format=json -n N` (and its text): the
    runs' sums, every row's values, their order (bytes, then blocks, then
    id), shares, the row count, the headline, the kept timeline (the run of
    the highest peak, its entries mapped to contexts and summed).
check-heap.py diff BASE-TRUTH:MAP[,...] NEW-TRUTH:MAP[,...] DIFF.json
    `memprof-show NEW --diff BASE --view peak|leaks --format=json -n <all>`:
    each changed row's before and after, the counts of new, vanished, grown,
    shrunk and unchanged rows, the order (largest change first).
check-heap.py json TRUTH:MAP[,...] TOJSON.json
    `memprof-convert --to-json`: the "heap" key, every context's values.
check-heap.py pprof TRUTH:MAP[,...] RAW.txt TOP.txt
    `go tool pprof -raw` of an export: inuse_objects, inuse_space,
    peak_objects, peak_space of every sample (by its context_id label);
    TOP.txt, `pprof -top -sample_index=inuse_space -unit=B`: the total.
Prints "ok MODE"; otherwise the failures, and exits 1.
"""
import importlib.util, json, os, re, sys

# The reader of go tool pprof -raw that the pprof tests use.
_spec = importlib.util.spec_from_file_location(
    "check_pprof", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "check-pprof.py"))
check_pprof = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_pprof)

errors = []


def fail(msg):
    errors.append(msg)


def finish(mode):
    if errors:
        for e in errors[:40]:
            print("error:", e)
        sys.exit(1)
    print("ok", mode)


def human(n):
    """memprof-show's humanBytes."""
    if n < 1024:
        return "%d B" % n
    units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    v, u = n / 1024.0, 0
    while round(v * 10) / 10 >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    return "%.1f %s" % (v, units[u])


def thousands(n):
    return "{:,}".format(n)


def blocks(n):
    return thousands(n) + (" block" if n == 1 else " blocks")


def runs(n):
    return thousands(n) + (" run" if n == 1 else " runs")


class Truth:
    """The truth of the given raw files, by context id."""

    def __init__(self, spec):
        self.ctx = {}        # id -> [live bytes, live blocks, peak bytes, peak blocks]
        self.runs = self.exit_runs = self.peak_bytes = self.peak_blocks = 0
        self.timelines = []  # (peak bytes, peak time, samples by context id)
        for pair in spec.split(","):
            truth_path, map_path = pair.split(":")
            self.add(json.load(open(truth_path)), json.load(open(map_path)))

    def add(self, truth, report):
        by_key = {}
        for c in report["contexts"]:
            key = (c["allocations"], c["size_bytes"]["total"])
            by_key.setdefault(key, []).append(c["id"])
        gaps_shown = (report["summary"].get("unsymbolized") or {}).get("gaps_shown", True)
        sums = {}
        for d in truth["dumps"]:
            for c in d["contexts"]:
                s = sums.setdefault(c["stack_id"], [0, 0])
                s[0] += c["alloc_count"]
                s[1] += c["total_size"]
        to_ctx = {}
        for sid, key in sums.items():
            ids = by_key.get(tuple(key), [])
            if len(ids) > 1:
                fail("stack %d: %d contexts have its allocations and bytes %r"
                     % (sid, len(ids), key))
            elif not ids:
                if gaps_shown:
                    fail("stack %d (%r) is no context of the report" % (sid, key))
                to_ctx[sid] = None  # dropped with its MIB
            else:
                to_ctx[sid] = ids[0]
        if len(set(v for v in to_ctx.values() if v)) != \
                len([v for v in to_ctx.values() if v]):
            fail("two stacks are one context: the truth cannot be mapped")
        for d in truth["dumps"]:
            self.runs += 1
            self.exit_runs += 1 if d["exit"] else 0
            self.peak_bytes += d["peak_bytes"]
            self.peak_blocks += d["peak_blocks"]
            for c in d["contexts"]:
                cid = to_ctx.get(c["stack_id"])
                if cid is None:
                    continue
                v = self.ctx.setdefault(cid, [0, 0, 0, 0])
                v[0] += c["live_bytes"]
                v[1] += c["live_blocks"]
                v[2] += c["peak_bytes"]
                v[3] += c["peak_blocks"]
            samples = []
            for s in d["samples"]:
                top = {}
                for sid, nbytes in s["top"]:
                    cid = to_ctx.get(sid)
                    if cid is not None:
                        top[cid] = top.get(cid, 0) + nbytes
                entries = sorted(top.items(), key=lambda e: (-e[1], int(e[0], 16)))
                samples.append((s["time_ms"], s["total_bytes"], entries))
            self.timelines.append((d["peak_bytes"], d["peak_time_ms"], samples))

    def live(self):
        return (sum(v[0] for v in self.ctx.values()),
                sum(v[1] for v in self.ctx.values()))

    def kept(self):
        top = max(t[0] for t in self.timelines)
        best = [t for t in self.timelines if t[0] == top]
        if any(t != best[0] for t in best):
            fail("the truth has %d different runs of the highest peak" % len(best))
        return best[0]


def check_heap_key(h, T, with_live=True):
    for key, want in (("runs", T.runs), ("exit_runs", T.exit_runs),
                      ("peak_bytes", T.peak_bytes), ("peak_blocks", T.peak_blocks)):
        if h[key] != want:
            fail("heap.%s is %r, the truth %r" % (key, h[key], want))
    if with_live:
        lb, ln = T.live()
        if (h["live_bytes"], h["live_blocks"]) != (lb, ln):
            fail("live %r, the truth %r" % ((h["live_bytes"], h["live_blocks"]), (lb, ln)))
    peak, peak_ms, samples = T.kept()
    tl = h["timeline"]
    if (tl["peak_bytes"], tl["peak_time_ms"]) != (peak, peak_ms):
        fail("timeline peak %r at %r, the truth %r at %r"
             % (tl["peak_bytes"], tl["peak_time_ms"], peak, peak_ms))
    got = [(s["time_ms"], s["total_bytes"],
            [(e.get("id", e.get("context_id")), e["bytes"]) for e in s["top"]])
           for s in tl["samples"]]
    want = [(t, b, [(i, n) for i, n in e]) for t, b, e in samples]
    if got != want:
        fail("timeline %r, the truth %r" % (got, want))


def view(spec, view_path, text_path=None):
    T = Truth(spec)
    V = json.load(open(view_path))
    kind = V["view"]
    h = V["heap"]
    check_heap_key(h, T)
    idx = 2 if kind == "peak" else 0
    lb, ln = T.live()
    total = (T.peak_bytes, T.peak_blocks) if kind == "peak" else (lb, ln)
    if (V["total"]["bytes"], V["total"]["blocks"]) != total:
        fail("total %r, the truth %r" % (V["total"], total))
    rows = sorted(((cid, v) for cid, v in T.ctx.items() if v[idx] or v[idx + 1]),
                  key=lambda r: (-r[1][idx], -r[1][idx + 1], int(r[0], 16)))
    if V["rows"] != len(rows):
        fail("%d rows, the truth %d" % (V["rows"], len(rows)))
    if len(V["contexts"]) > len(rows) or (rows and not V["contexts"]):
        fail("%d rows listed of %d" % (len(V["contexts"]), len(rows)))
    for rank, (row, (cid, v)) in enumerate(zip(V["contexts"], rows), 1):
        want = {"rank": rank, "id": cid, "bytes": v[idx], "blocks": v[idx + 1],
                "live": {"bytes": v[0], "blocks": v[1]},
                "peak": {"bytes": v[2], "blocks": v[3]}}
        got = {k: row[k] for k in want}
        if got != want:
            fail("row %d: %r, the truth %r" % (rank, got, want))
        share = v[idx] / total[0] if total[0] else 0.0
        if abs(row["share"] - share) > 1e-9:
            fail("row %d share %r, the truth %r" % (rank, row["share"], share))
    at_exit = T.exit_runs == T.runs
    if kind == "peak":
        peak, peak_ms, _ = T.kept()
        if T.runs == 1:
            head = "peak: %s in %s at %.2f s, 1 run" % (
                human(T.peak_bytes), blocks(T.peak_blocks), peak_ms / 1000.0)
        else:
            head = "peak: %s in %s summed over %s (average %s); the highest, %s, at %.2f s" % (
                human(T.peak_bytes), blocks(T.peak_blocks), runs(T.runs),
                human(T.peak_bytes // T.runs), human(peak), peak_ms / 1000.0)
    else:
        head = ("live at exit: " if at_exit else "live at the dump: ") + \
            "%s in %s, %s" % (human(lb), blocks(ln), runs(T.runs))
        if not at_exit and T.exit_runs:
            head += " (%s dumped at exit)" % thousands(T.exit_runs)
    if V["headline"] != head:
        fail("headline %r, the truth %r" % (V["headline"], head))
    if text_path:
        text = open(text_path).read()
        if "  " + head + "\n" not in text:
            fail("the text has no line %r" % head)
        got = re.findall(r"^#(\d+)  (\d+) bytes \((\d+\.\d)%\) in ([\d,]+) blocks?", text, re.M)
        want = [(str(r), str(v[idx]),
                 "%.1f" % (100.0 * v[idx] / total[0] if total[0] else 0.0),
                 thousands(v[idx + 1]))
                for r, (cid, v) in enumerate(rows[:len(got)], 1)]
        if got != want or len(got) != len(V["contexts"]):
            fail("text rows %r, the truth %r" % (got, want))
    finish("view " + kind)


def diff(base_spec, new_spec, path):
    B, N = Truth(base_spec), Truth(new_spec)
    D = json.load(open(path))
    idx = 2 if D["view"] == "peak" else 0
    counts = {"new": 0, "vanished": 0, "grown": 0, "shrunk": 0, "unchanged": 0}
    rows = []
    for cid in set(B.ctx) | set(N.ctx):
        b, n = B.ctx.get(cid), N.ctx.get(cid)
        # A context without this view's values is not a row of that side.
        if b is not None and not (b[idx] or b[idx + 1]):
            b = None
        if n is not None and not (n[idx] or n[idx + 1]):
            n = None
        if b is None and n is None:
            continue
        change = (n[idx] if n else 0) - (b[idx] if b else 0)
        status = ("new" if b is None else "vanished" if n is None else
                  "grown" if change > 0 else "shrunk" if change < 0 else "unchanged")
        counts[status] += 1
        if status != "unchanged":
            rows.append((cid, status, change, b, n))
    rows.sort(key=lambda r: (-abs(r[2]), -r[2], int(r[0], 16)))
    if D["rows"] != counts:
        fail("rows %r, the truth %r" % (D["rows"], counts))
    side = lambda v: None if v is None else {"bytes": v[idx], "blocks": v[idx + 1]}
    got = [(c["id"], c["status"], c["change"], c["before"], c["after"]) for c in D["changes"]]
    want = [(cid, st, ch, side(b), side(n)) for cid, st, ch, b, n in rows][:len(got)]
    if got != want or not got:
        fail("changes %r, the truth %r" % (got, want))
    finish("diff " + D["view"])


def tojson(spec, path):
    T = Truth(spec)
    h = json.load(open(path))["heap"]
    check_heap_key(h, T, with_live=False)
    got = {c["context_id"]: [c["live_bytes"], c["live_blocks"], c["peak_bytes"],
                             c["peak_blocks"]] for c in h["contexts"]}
    want = {cid: v for cid, v in T.ctx.items() if any(v)}
    # The table also lists contexts the timeline names, with whatever they hold.
    named = {e["context_id"] for s in h["timeline"]["samples"] for e in s["top"]}
    for cid in named:
        want.setdefault(cid, T.ctx.get(cid, [0, 0, 0, 0]))
    if got != want:
        fail("contexts %r, the truth %r" % (got, want))
    finish("json")


def pprof(spec, raw_path, top_path):
    T = Truth(spec)
    P = check_pprof.parse_raw(raw_path)  # go tool pprof -raw, read once
    for e in check_pprof.errors:
        fail(e)
    types = [t for t, _ in P["types"]]
    samples = [{"values": x["values"],
                "id": x["labels"].get("context_id", [None])[0]}
               for x in P["samples"]]
    want_types = ["alloc_objects", "alloc_space", "inuse_objects", "inuse_space",
                  "peak_objects", "peak_space"]
    if types[:6] != want_types:
        fail("sample types %r, want %r first" % (types, want_types))
    seen = set()
    for s in samples:
        cid = s.get("id")
        seen.add(cid)
        v = T.ctx.get(cid, [0, 0, 0, 0])
        got = s["values"][2:6]
        want = [v[1], v[0], v[3], v[2]]
        if got != want:
            fail("sample %s: inuse/peak %r, the truth %r" % (cid, got, want))
    for cid in T.ctx:
        if cid not in seen:
            fail("no sample for context %s" % cid)
    lb, _ = T.live()
    top = open(top_path).read()
    m = re.search(r"of (\d+)B total", top)
    if not m or int(m.group(1)) != lb:
        fail("pprof's inuse_space total %r, the truth %d" % (m and m.group(1), lb))
    finish("pprof")


def main(a):
    if a[0] == "view":
        view(a[1], a[2], a[3] if len(a) > 3 else None)
    elif a[0] == "diff":
        diff(a[1], a[2], a[3])
    elif a[0] == "json":
        tojson(a[1], a[2])
    elif a[0] == "pprof":
        pprof(a[1], a[2], a[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
