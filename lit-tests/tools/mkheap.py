#!/usr/bin/env python3
"""Adds memprof's heap section (docs/heap-data.md) to every dump of a raw
MemProf profile, written here from the spec's layout independently of the
C++ reader, with values chosen from a seed and written down as the truth.

  mkheap.py add IN OUT TRUTH.json --seed S [--exit] [--peak BYTES]
      Each dump of IN gets a section after its last section (inside its
      TotalSize, 8-aligned) whose values agree with the dump's MIBs: for each
      MIB (in stack id order) some live blocks at the dump and at the peak,
      at most its AllocCount, of its average size; the peak's totals are the
      sums of the contexts' peak values (one thread: exact), scaled so that
      the first dump's total is --peak when given (each context's peak bytes
      a multiple of its average size still); five samples, the last three
      naming up to three contexts. --exit marks the dumps as exit dumps.
      TRUTH.json: {"dumps": [{"exit", "dump_time_ms", "peak_time_ms",
      "peak_bytes", "peak_blocks", "contexts": [{"stack_id", "alloc_count",
      "total_size", "live_bytes", "live_blocks", "peak_bytes",
      "peak_blocks"}], "samples": [{"time_ms", "total_bytes", "top":
      [[stack_id, bytes], ...]}]}]}
  mkheap.py concat OUT OUT.json IN IN.json [IN IN.json...]
      The dumps of each IN one after the other (several runs in one file),
      and their truths.
  mkheap.py corrupt IN OUT FIELD VALUE
      Sets a field of the first dump's heap section: flags, peak_time,
      peak_blocks, ctx0.live_blocks, ctx0.stack_id, sample0.top_count.
"""
import json, os, random, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkraw import parse_dump, u64

MAGIC = b"MPHEAPV1"


def dumps_of(b):
    """Each dump of b (zero padding between dumps dropped)."""
    out, off = [], 0
    while off < len(b):
        total = u64(b, off + 16)
        out.append(bytes(b[off:off + total]))
        off += total
        while off < len(b) and b[off] == 0:
            off += 1
    return out


def section(exit_dump, dump_ms, peak_ms, peak_bytes, peak_blocks, ctxs, samples):
    s = MAGIC + struct.pack("<7Q", 1 if exit_dump else 0, dump_ms, peak_ms,
                            peak_bytes, peak_blocks, len(ctxs), len(samples))
    for c in ctxs:
        s += struct.pack("<5Q", c["stack_id"], c["live_bytes"], c["live_blocks"],
                         c["peak_bytes"], c["peak_blocks"])
    for sm in samples:
        s += struct.pack("<3Q", sm["time_ms"], sm["total_bytes"], len(sm["top"]))
        for sid, nbytes in sm["top"]:
            s += struct.pack("<2Q", sid, nbytes)
    return s


def add(src, dst, truth_path, seed, exit_dump, want_peak):
    rng = random.Random(seed)
    b = open(src, "rb").read()
    out, truth = b"", {"dumps": []}
    for k, d in enumerate(dumps_of(b)):
        segs, nseg, mibs, _ = parse_dump(d, 0)
        total = u64(d, 16)
        ctxs = []
        for sid, vals, _ in sorted(mibs, key=lambda m: m[0]):
            count, size = vals[0], vals[4]
            avg = size // count
            live = rng.randint(0, count)
            peak = rng.randint(0, count)
            if not live and not peak:
                peak = 1
            ctxs.append({"stack_id": sid, "alloc_count": count, "total_size": size,
                         "live_blocks": live, "live_bytes": live * avg,
                         "peak_blocks": peak, "peak_bytes": peak * avg})
        if want_peak and k == 0:
            # Grow the largest context's peak to reach the wanted total (its
            # block count stays, its blocks get larger: still one block per
            # allocation of the MIB at most).
            big = max(ctxs, key=lambda c: (c["peak_blocks"], c["stack_id"]))
            rest = sum(c["peak_bytes"] for c in ctxs) - big["peak_bytes"]
            if big["peak_blocks"] == 0 or want_peak < rest:
                sys.exit("mkheap: cannot make the peak %d" % want_peak)
            big["peak_bytes"] = want_peak - rest
        peak_bytes = sum(c["peak_bytes"] for c in ctxs)
        peak_blocks = sum(c["peak_blocks"] for c in ctxs)
        dump_ms = 1000 + rng.randint(0, 9000)
        peak_ms = rng.randint(1, dump_ms)
        samples, t = [], 0
        by_peak = sorted(ctxs, key=lambda c: (-c["peak_bytes"], c["stack_id"]))
        for i in range(5):
            t = min(dump_ms, t + rng.randint(0, dump_ms // 5))
            top = []
            if i >= 2:
                for c in by_peak[:3]:
                    top.append([c["stack_id"], c["peak_bytes"] // (i - 1)])
                top.sort(key=lambda e: -e[1])
            total_bytes = min(peak_bytes, sum(e[1] for e in top) + rng.randint(0, 64))
            samples.append({"time_ms": t, "total_bytes": total_bytes, "top": top})
        sec = section(exit_dump, dump_ms, peak_ms, peak_bytes, peak_blocks, ctxs, samples)
        body = d[:total]
        body += b"\0" * (-len(body) % 8)
        body += sec
        body = body[:16] + struct.pack("<Q", len(body)) + body[24:]
        out += body
        truth["dumps"].append({"exit": exit_dump, "dump_time_ms": dump_ms,
                               "peak_time_ms": peak_ms, "peak_bytes": peak_bytes,
                               "peak_blocks": peak_blocks, "contexts": ctxs,
                               "samples": samples})
    open(dst, "wb").write(out)
    json.dump(truth, open(truth_path, "w"), indent=1)


def corrupt(src, dst, field, value):
    b = bytearray(open(src, "rb").read())
    h = b.find(MAGIC)
    if h < 0:
        sys.exit("mkheap: no heap section")
    ctx0 = h + 64
    nctx = u64(b, h + 48)
    offs = {"flags": h + 8, "peak_time": h + 24, "peak_blocks": h + 40,
            "ctx0.stack_id": ctx0, "ctx0.live_blocks": ctx0 + 16,
            "sample0.top_count": ctx0 + 40 * nctx + 16}
    struct.pack_into("<Q", b, offs[field], value)
    open(dst, "wb").write(bytes(b))
    print(offs[field])


def main(a):
    if a[0] == "add":
        seed, exit_dump, peak = 1, False, None
        rest = a[4:]
        i = 0
        while i < len(rest):
            if rest[i] == "--seed":
                seed = int(rest[i + 1]); i += 2
            elif rest[i] == "--exit":
                exit_dump = True; i += 1
            elif rest[i] == "--peak":
                peak = int(rest[i + 1]); i += 2
            else:
                sys.exit("mkheap: unknown option " + rest[i])
        add(a[1], a[2], a[3], seed, exit_dump, peak)
    elif a[0] == "concat":
        raw, truth = b"", {"dumps": []}
        for i in range(3, len(a), 2):
            raw += open(a[i], "rb").read()
            truth["dumps"] += json.load(open(a[i + 1]))["dumps"]
        open(a[1], "wb").write(raw)
        json.dump(truth, open(a[2], "w"), indent=1)
    elif a[0] == "corrupt":
        corrupt(a[1], a[2], a[3], int(a[4], 0))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
