#!/usr/bin/env python3
"""Prints a raw MemProf profile field by field, independently of the C++
code: an oracle for what memprof-convert --to-raw compiles.

  dump-raw.py FILE

For each dump: the header, each segment, each MIB's stack id, AllocCount,
TotalSize, Min/MaxSize, AccessHistogramSize and histogram (v4 as stored;
v5 decoded, with the stored words), and each stack's PCs."""
import struct, sys

FIELDS = [4, 8, 8, 8, 8, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 4, 4, 8,
          4, 4, 4, 8]


def u(b, o, w):
    return struct.unpack_from({2: "<H", 4: "<I", 8: "<Q"}[w], b, o)[0]


b = open(sys.argv[1], "rb").read()
print("file %d bytes" % len(b))
base = 0
while base + 48 <= len(b):
    magic, ver, total, seg, mib, stk = struct.unpack_from("<6Q", b, base)
    print("dump at %d: magic %#x version %d total %d segments@%d mibs@%d stacks@%d"
          % (base, magic, ver, total, seg, mib, stk))
    n = u(b, base + seg, 8)
    for i in range(n):
        o = base + seg + 8 + 64 * i
        s, e, off, idsz = struct.unpack_from("<4Q", b, o)
        print("  segment %#x-%#x offset %#x build id %s (size %d)"
              % (s, e, off, b[o + 32:o + 32 + min(idsz, 32)].hex(), idsz))
    n = u(b, base + mib, 8)
    o = base + mib + 8
    for i in range(n):
        sid = u(b, o, 8)
        o += 8
        vals = []
        for w in FIELDS[:25 if ver == 3 else 27]:
            vals.append(u(b, o, w))
            o += w
        hist = []
        words = []
        if ver >= 4 and vals[25]:
            for _ in range(vals[25]):
                w = u(b, o, 8 if ver == 4 else 2)
                o += 8 if ver == 4 else 2
                words.append(w)
                hist.append(w if ver == 4 else (w & 0xFFF) << (w >> 12))
        print("  mib stack %d: AllocCount %d TotalSize %d MinSize %d MaxSize %d"
              " HistogramSize %s histogram %s words %s"
              % (sid, vals[0], vals[4], vals[5], vals[6],
                 vals[25] if ver >= 4 else "-", hist,
                 ["%#x" % w for w in words]))
    n = u(b, base + stk, 8)
    o = base + stk + 8
    for i in range(n):
        sid, npc = struct.unpack_from("<2Q", b, o)
        o += 16
        pcs = struct.unpack_from("<%dQ" % npc, b, o)
        o += 8 * npc
        print("  stack %d: %s" % (sid, " ".join("%#x" % p for p in pcs)))
    if total == 0:
        break
    base += total
if base < len(b):
    print("tail %d bytes: %s" % (len(b) - base, b[base:].hex()))
