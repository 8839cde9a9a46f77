#!/usr/bin/env python3
"""Reads the heap section (docs/heap-data.md) of raw profiles the runtime
wrote, with a parser of its own (not memprof's reader), and checks it against
the truth a test program prints.

check-heap.py BIN RAW TRUTH
    TRUTH lines:
      peak NAME BLOCKS BYTES   the contexts whose leaf frame is function NAME
                               held exactly this at the peak
      live NAME BLOCKS BYTES   ... and this at the dump
      exit 0|1                 the dump is (not) the exit dump
      peak-within NAME BLOCKS BYTES TB TBYTES
                               at the peak, within TB blocks and TBYTES
                               bytes of BLOCKS and BYTES (threads)
      peak-diff-max N          the header's peak bytes are within N of the
                               sum of the contexts' (else: exactly it)
    Always checked: the header's peak blocks are the sum of the contexts'
    (and with one thread, `exact`, the peak bytes too); contexts and samples
    in order; every stack id a MIB's; a sample's top list largest first.
    Prints "ok ..." or "MISMATCH ..." lines, then facts for FileCheck.
check-heap.py dump RAW
    prints the section's header and samples.
check-heap.py view TRUTH peak|live VIEW.json
    `memprof-show --view peak|leaks --format=json -n <all>` of the profile:
    per leaf function (the first frame's), the rows' peak or live values
    equal the TRUTH's peak or live lines (a row is listed when it held
    something: a function the truth gives 0 has no row).
check-heap.py top TRUTH peak|live TOP.txt
    `go tool pprof -top -unit=B -sample_index=peak_space|inuse_space` of a
    pprof export: each TRUTH function's flat bytes are its peak or live
    bytes (a function the truth gives 0 is absent or 0).
check-heap.py peak RAW
    prints "PEAK_MS PEAK_BYTES" of the raw profile's (one) dump.
check-heap.py strip RAW OUT
    writes RAW without its heap sections (each dump's TotalSize less the
    section): what LLVM's runtime would have laid out."""
import re, struct, subprocess, sys


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def parse(path):
    """Yields one dict per dump: segments, MIB stack ids, stacks, heap."""
    b = open(path, "rb").read()
    pos = 0
    while pos < len(b):
        magic, version, total, segoff, miboff, stackoff = struct.unpack_from("<6Q", b, pos)
        assert magic == 0xFF6D70726F667281, "not a raw profile"
        d = {"segments": [], "mibs": set(), "stacks": {}, "heap": None,
             "start": pos, "total": total, "heapspan": None}
        o = pos + segoff
        for i in range(u64(b, o)):
            start, end, off, idsize = struct.unpack_from("<4Q", b, o + 8 + 64 * i)
            bid = b[o + 8 + 64 * i + 32:o + 8 + 64 * i + 32 + idsize].hex()
            d["segments"].append((start, end, off, bid))
        o = pos + miboff
        n = u64(b, o)
        o += 8
        for i in range(n):
            sid = u64(b, o)
            d["mibs"].add(sid)
            hsize = u64(b, o + 8 + 132)  # AccessHistogramSize
            o += 8 + 144 + 2 * hsize
        o = pos + stackoff
        n = u64(b, o)
        o += 8
        for i in range(n):
            sid, npcs = struct.unpack_from("<2Q", b, o)
            d["stacks"][sid] = list(struct.unpack_from("<%dQ" % npcs, b, o + 16))
            o += 16 + 8 * npcs
        o = (o + 7) & ~7
        end = pos + total
        while o + 8 <= end:
            m = u64(b, o)
            if m == 0x485450444F4D504D:  # module paths
                k = u64(b, o + 8)
                o += 16
                for i in range(k):
                    size = u64(b, o + 8)
                    o += 16 + ((size + 7) & ~7)
            elif m == 0x315650414548504D:  # MPHEAPV1
                hstart = o
                (flags, dumpms, peakms, peakbytes, peakblocks, nctx,
                 nsamples) = struct.unpack_from("<7Q", b, o + 8)
                o += 64
                ctxs = []
                for i in range(nctx):
                    ctxs.append(struct.unpack_from("<5Q", b, o))
                    o += 40
                samples = []
                for i in range(nsamples):
                    t, tot, ntop = struct.unpack_from("<3Q", b, o)
                    o += 24
                    top = [struct.unpack_from("<2Q", b, o + 16 * j) for j in range(ntop)]
                    o += 16 * ntop
                    samples.append((t, tot, top))
                d["heapspan"] = (hstart, o)
                d["heap"] = dict(flags=flags, dumpms=dumpms, peakms=peakms,
                                 peakbytes=peakbytes, peakblocks=peakblocks,
                                 contexts=ctxs, samples=samples)
            else:
                break
        yield d
        pos = end


def leaf_names(binary, d):
    """Stack id -> the function of its leaf frame, for frames in the binary
    (the first segment's module); other stacks are left out."""
    bid = d["segments"][0][3]
    addrs = {}
    for sid, pcs in d["stacks"].items():
        if not pcs:
            continue
        for start, end, off, b in d["segments"]:
            if b == bid and start <= pcs[0] < end:
                addrs[sid] = pcs[0] - off
    ids = sorted(addrs)
    if not ids:
        return {}
    out = subprocess.run(["llvm-symbolizer-22", "--obj=" + binary, "--no-inlines"]
                         + ["0x%x" % addrs[i] for i in ids],
                         check=True, capture_output=True, text=True).stdout
    names = [blk.split("\n")[0] for blk in out.strip().split("\n\n")]
    return dict(zip(ids, names))


def check(binary, raw, truth):
    dumps = list(parse(raw))
    assert len(dumps) == 1, "one dump expected"
    d = dumps[0]
    h = d["heap"]
    ok = True

    def report(good, what):
        nonlocal ok
        ok &= good
        print(("ok " if good else "MISMATCH ") + what)

    if h is None:
        report(False, "no heap section")
        return 1
    names = leaf_names(binary, d)
    want = {}
    within = {}
    wantexit = None
    diffmax = 0
    for line in open(truth):
        p = line.split()
        if len(p) == 6 and p[0] == "peak-within":
            within[p[1]] = [int(v) for v in p[2:]]
        elif len(p) == 2 and p[0] == "peak-diff-max":
            diffmax = int(p[1])
        elif len(p) == 4 and p[0] in ("peak", "live"):
            w = want.setdefault((p[0], p[1]), [0, 0])
            w[0] += int(p[2])
            w[1] += int(p[3])
        elif len(p) == 2 and p[0] == "exit":
            wantexit = int(p[1])
    got = {}
    prev = 0
    for sid, lb, lk, pb, pk in h["contexts"]:
        report(sid > prev and sid in d["mibs"], "context %d in order, a MIB's" % sid)
        prev = sid
        report((lk > 0 or lb == 0) and (pk > 0 or pb == 0), "context %d: no bytes without blocks" % sid)
        n = names.get(sid)
        if n is None:
            continue
        for kind, blocks, byts in (("peak", pk, pb), ("live", lk, lb)):
            g = got.setdefault((kind, n), [0, 0])
            g[0] += blocks
            g[1] += byts
    for key in sorted(want):
        g = got.get(key, [0, 0])
        report(g == want[key], "%s %s: want blocks=%d bytes=%d, got blocks=%d bytes=%d"
               % (key[0], key[1], want[key][0], want[key][1], g[0], g[1]))
    for name in sorted(within):
        wb, wy, tb, ty = within[name]
        g = got.get(("peak", name), [0, 0])
        report(abs(g[0] - wb) <= tb and abs(g[1] - wy) <= ty,
               "peak-within %s: want blocks=%d~%d bytes=%d~%d, got blocks=%d bytes=%d"
               % (name, wb, tb, wy, ty, g[0], g[1]))
    if wantexit is not None:
        report((h["flags"] & 1) == wantexit, "exit flag %d" % (h["flags"] & 1))
    sum_pb = sum(c[3] for c in h["contexts"])
    sum_pk = sum(c[4] for c in h["contexts"])
    report(sum_pk == h["peakblocks"], "peak blocks %d = sum of contexts' %d"
           % (h["peakblocks"], sum_pk))
    report(abs(h["peakbytes"] - sum_pb) <= diffmax,
           "peak bytes %d vs the contexts' %d (within %d)" % (h["peakbytes"], sum_pb, diffmax))
    last = -1
    for t, tot, top in h["samples"]:
        if t < last or any(s not in d["mibs"] for s, _ in top) or \
           any(top[i][1] < top[i + 1][1] for i in range(len(top) - 1)) or \
           tot > h["peakbytes"] or len(top) > 8:
            report(False, "sample at %d ms" % t)
        last = t
    print("samples %d" % len(h["samples"]))
    print("peak-time-ok %d" % (h["peakms"] <= h["dumpms"]))
    return 0 if ok else 1


def dump(raw):
    for d in parse(raw):
        h = d["heap"]
        if h is None:
            print("no heap section")
            continue
        print("flags %d dump %d ms peak %d bytes %d blocks at %d ms, %d contexts, %d samples"
              % (h["flags"], h["dumpms"], h["peakbytes"], h["peakblocks"], h["peakms"],
                 len(h["contexts"]), len(h["samples"])))
        for t, tot, top in h["samples"]:
            print("  %d ms %d bytes %s" % (t, tot, " ".join("%d:%d" % x for x in top)))


def read_truth(path):
    want = {}
    for line in open(path):
        p = line.split()
        if len(p) == 4 and p[0] in ("peak", "live"):
            w = want.setdefault((p[0], p[1]), [0, 0])
            w[0] += int(p[2])
            w[1] += int(p[3])
    return want


def view(truth, kind, path):
    import json
    want = read_truth(truth)
    got = {}
    for c in json.load(open(path))["contexts"]:
        name = c["frames"][0]["function"]
        g = got.setdefault((kind, name), [0, 0])
        g[0] += c[kind]["blocks"]
        g[1] += c[kind]["bytes"]
    ok = True
    for key in sorted(k for k in want if k[0] == kind):
        g = got.get(key, [0, 0])
        good = g == want[key]
        ok &= good
        print("%s view %s %s: want blocks=%d bytes=%d, got blocks=%d bytes=%d"
              % ("ok" if good else "MISMATCH", key[0], key[1], want[key][0],
                 want[key][1], g[0], g[1]))
    return 0 if ok else 1


def top(truth, kind, path):
    want = read_truth(truth)
    flat = {}
    for line in open(path):
        m = re.match(r"\s*([0-9.]+)B\s+[0-9.]+%\s+[0-9.]+%\s+[0-9.]+B\s+[0-9.]+%\s+(\S+)", line)
        if m:
            flat[m.group(2)] = flat.get(m.group(2), 0) + int(float(m.group(1)))
    ok = True
    for (k, name), (blocks, byts) in sorted(want.items()):
        if k != kind:
            continue
        good = flat.get(name, 0) == byts
        ok &= good
        print("%s top %s %s: want %d bytes, got %d" % ("ok" if good else "MISMATCH",
                                                     kind, name, byts, flat.get(name, 0)))
    return 0 if ok else 1


def folded(truth, kind, unit, path):
    """memprof-convert --to-folded --weight KIND-UNIT: the lines whose leaf
    (last frame) is one of the truth's functions sum to its blocks or bytes."""
    want = read_truth(truth)
    got = {}
    for line in open(path):
        stack, _, value = line.rstrip("\n").rpartition(" ")
        leaf = stack.split(";")[-1]
        got[leaf] = got.get(leaf, 0) + int(value)
    ok = True
    for (k, name), (blocks, byts) in sorted(want.items()):
        if k != kind:
            continue
        w = blocks if unit == "blocks" else byts
        good = got.get(name, 0) == w
        ok &= good
        print("%s folded %s-%s %s: want %d, got %d" % (
            "ok" if good else "MISMATCH", kind, unit, name, w, got.get(name, 0)))
    return 0 if ok else 1


def shown():
    """lit-tests/tools/check-heap.py, whose human(), blocks() and runs()
    spell sizes and counts as memprof-show's heap lines do."""
    import importlib.util, os
    spec = importlib.util.spec_from_file_location(
        "tools_check_heap", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "..", "..", "tools", "check-heap.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def summary(raw, show):
    """memprof-show's summary of a one-run profile: its heap lines say the
    peak and what was live at exit as the raw heap section (read here) does."""
    h = list(parse(raw))[0]["heap"]
    live_bytes = sum(c[1] for c in h["contexts"])
    live_blocks = sum(c[2] for c in h["contexts"])
    text = open(show).read()
    f = shown()
    want = ["heap         peak: %s in %s at %.2f s, %s (--view peak)" %
            (f.human(h["peakbytes"]), f.blocks(h["peakblocks"]), h["peakms"] / 1000, f.runs(1)),
            "             live at exit: %s in %s, %s (--view leaks)" %
            (f.human(live_bytes), f.blocks(live_blocks), f.runs(1))]
    bad = 0
    for w in want:
        if w in text:
            print("ok summary:", w.strip())
        else:
            print("MISMATCH summary: want %r" % w.strip())
            bad = 1
    return bad


def strip(raw, out):
    b = open(raw, "rb").read()
    res = bytearray()
    for d in parse(raw):
        chunk = bytearray(b[d["start"]:d["start"] + d["total"]])
        if d["heapspan"]:
            lo, hi = (x - d["start"] for x in d["heapspan"])
            assert hi == len(chunk), "the heap section ends the dump"
            del chunk[lo:hi]
            struct.pack_into("<Q", chunk, 16, len(chunk))
        res += chunk
    open(out, "wb").write(res)


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif sys.argv[1] == "strip":
        strip(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "view":
        sys.exit(view(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif sys.argv[1] == "top":
        sys.exit(top(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif sys.argv[1] == "folded":
        sys.exit(folded(*sys.argv[2:6]))
    elif sys.argv[1] == "summary":
        sys.exit(summary(sys.argv[2], sys.argv[3]))
    elif sys.argv[1] == "peak":
        h = list(parse(sys.argv[2]))[0]["heap"]
        print("%d %d" % (h["peakms"], h["peakbytes"]))
    else:
        sys.exit(check(*sys.argv[1:4]))
