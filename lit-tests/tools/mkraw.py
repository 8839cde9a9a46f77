#!/usr/bin/env python3
"""Builds raw MemProf test inputs from real profiles, independently of the C++
reader: set named fields to hostile values, truncate, concatenate, re-encode.

  mkraw.py set IN OUT FIELD=VALUE...   fields: magic version total segoff miboff
      stackoff segcount seg0.buildidsize mibcount mibN.stackid mibN.<MIBField>
      (mib*.<MIBField>: every MIB)
      stackcount stack0.id stack0.numpcs stack0.pc0 (VALUE: decimal or 0x hex)
  mkraw.py many IN OUT COPIES          one v4 dump with COPIES copies of IN's first dump's
      MIBs and stacks, each copy under new stack ids (a large valid profile)
  mkraw.py truncate IN OUT LEN
  mkraw.py sparse IN OUT SIZE MODE     a sparse file of SIZE bytes (a hole, no disk
      blocks, past IN's first dump): MODE total: the dump's TotalSize is SIZE, its
      last (stack) section running on through the hole (valid: the reader never
      needs the hole); mibcount: the stack section moved to the end of the file,
      the MIB section spanning the hole and its count as many MIBs as it could hold;
      second: total, up to SIZE minus the dump, then a copy of the dump at the end
      (of the first dump of the file given as a 6th argument, if any)
  mkraw.py concat OUT IN [IN...] [--pad N] [--tail HEX]
  mkraw.py reencode IN OUT VERSION     v5 -> v4 (u64 histogram) or v3 (no histogram)
  mkraw.py anyprefixes IN DIR [STEP]   prefixes of any file: the first 128 and every STEP-th
  mkraw.py flips IN DIR COUNT SEED     COUNT copies with a random bit or 8-byte word changed
  mkraw.py headerflips IN DIR          one file per flipped bit of the first header
  mkraw.py prefixes IN DIR [STEP]      writes proper prefixes as DIR/prefix.N: every
      length up to 64 and around each section and dump boundary, and every STEP-th
      (default 1); lengths that end exactly at a dump boundary are valid, so skipped
"""
import struct, sys, os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mibfields import MIB_FIELDS


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]

def layout(b):
    """Offsets and widths of the named fields of the first dump."""
    f = {"magic": (0, 8), "version": (8, 8), "total": (16, 8), "segoff": (24, 8),
         "miboff": (32, 8), "stackoff": (40, 8)}
    ver = u64(b, 8)
    seg, mib, stk = u64(b, 24), u64(b, 32), u64(b, 40)
    f["segcount"] = (seg, 8)
    f["seg0.buildidsize"] = (seg + 8 + 24, 8)
    f["mibcount"] = (mib, 8)
    f["mib0.stackid"] = (mib + 8, 8)
    o = mib + 16
    for name, w in MIB_FIELDS[:25 if ver == 3 else 27]:
        f["mib0." + name] = (o, w)
        o += w
    # Every MIB, walked over its histogram: mibN.<field>.
    o = mib + 8
    for k in range(u64(b, mib)):
        if o + 8 > len(b):
            break
        f["mib%d.stackid" % k] = (o, 8)
        o += 8
        hsize = 0
        for name, w in MIB_FIELDS[:25 if ver == 3 else 27]:
            f["mib%d.%s" % (k, name)] = (o, w)
            if name == "AccessHistogramSize" and o + 4 <= len(b):
                hsize = struct.unpack_from("<I", b, o)[0]
            o += w
        if ver >= 4:
            o += hsize * (8 if ver == 4 else 2)
    f["stackcount"] = (stk, 8)
    f["stack0.id"] = (stk + 8, 8)
    f["stack0.numpcs"] = (stk + 16, 8)
    f["stack0.pc0"] = (stk + 24, 8)
    return f

def parse_dump(b, base):
    ver, total = u64(b, base + 8), u64(b, base + 16)
    seg, mib, stk = (base + u64(b, base + 24), base + u64(b, base + 32),
                     base + u64(b, base + 40))
    nseg = u64(b, seg)
    segs = b[seg + 8: seg + 8 + 64 * nseg]
    n = u64(b, mib)
    o = mib + 8
    mibs = []
    for _ in range(n):
        sid = u64(b, o); o += 8
        vals = []
        for name, w in MIB_FIELDS[:25 if ver == 3 else 27]:
            vals.append(struct.unpack_from("<I" if w == 4 else "<Q", b, o)[0]); o += w
        hist = []
        if ver >= 4 and vals[25]:
            for _ in range(vals[25]):
                if ver == 4:
                    hist.append(u64(b, o)); o += 8
                else:
                    e = struct.unpack_from("<H", b, o)[0]; o += 2
                    hist.append((e & 0xFFF) << (e >> 12))
        mibs.append((sid, vals, hist))
    stacks = b[stk: base + total]
    return segs, nseg, mibs, stacks

def pad8(x):
    return x + b"\0" * (-len(x) % 8)

def encode(ver, segs, nseg, mibs, stacks):
    segsec = pad8(struct.pack("<Q", nseg) + segs)
    m = struct.pack("<Q", len(mibs))
    for sid, vals, hist in mibs:
        m += struct.pack("<Q", sid)
        fields = MIB_FIELDS[:25 if ver == 3 else 27]
        vals = list(vals[:len(fields)]) + [0] * (len(fields) - len(vals))
        if ver >= 4:
            vals[25] = len(hist)
            vals[26] = 0
        for (name, w), v in zip(fields, vals):
            m += struct.pack("<I" if w == 4 else "<Q", v)
        if ver == 4:
            m += b"".join(struct.pack("<Q", h) for h in hist)
        elif ver == 5:
            raise SystemExit("re-encoding to v5 is not needed")
    mibsec = pad8(m)
    stacks = pad8(stacks)
    segoff = 48
    miboff = segoff + len(segsec)
    stackoff = miboff + len(mibsec)
    total = stackoff + len(stacks)
    hdr = struct.pack("<6Q", 0xFF6D70726F667281, ver, total, segoff, miboff, stackoff)
    return hdr + segsec + mibsec + stacks

def many(b, copies):
    """A v4 raw profile holding COPIES copies of every MIB and stack of the
    first dump of b, each copy under its own stack id (so the reader keeps
    them all): a large valid profile from a small one."""
    segs, nseg, mibs, stacks = parse_dump(b, 0)
    n = u64(stacks, 0)
    entries, o = [], 8
    for _ in range(n):
        sid, npcs = u64(stacks, o), u64(stacks, o + 8)
        entries.append((sid, stacks[o + 16: o + 16 + 8 * npcs], npcs))
        o += 16 + 8 * npcs
    fields = MIB_FIELDS[:27]
    m, st = [struct.pack("<Q", len(mibs) * copies)], [struct.pack("<Q", len(entries) * copies)]
    for k in range(copies):
        salt = k << 40
        for sid, vals, hist in mibs:
            vals = list(vals) + [0] * (27 - len(vals))
            vals[25] = vals[26] = 0
            m.append(struct.pack("<Q", sid ^ salt))
            m.append(b"".join(struct.pack("<I" if w == 4 else "<Q", v)
                              for (name, w), v in zip(fields, vals)))
        for sid, pcs, npcs in entries:
            st.append(struct.pack("<QQ", sid ^ salt, npcs) + pcs)
    segsec = pad8(struct.pack("<Q", nseg) + segs)
    mibsec, stacksec = pad8(b"".join(m)), pad8(b"".join(st))
    miboff = 48 + len(segsec)
    stackoff = miboff + len(mibsec)
    total = stackoff + len(stacksec)
    hdr = struct.pack("<6Q", 0xFF6D70726F667281, 4, total, 48, miboff, stackoff)
    return hdr + segsec + mibsec + stacksec

def main(a):
    cmd = a[0]
    if cmd == "set":
        b = bytearray(open(a[1], "rb").read())
        f = layout(b)
        for kv in a[3:]:
            k, v = kv.split("=", 1)
            # mib*.<field> sets the field of every MIB of the first dump.
            keys = [x for x in f if x.startswith("mib") and x.split(".", 1)[0][3:].isdigit()
                    and x.split(".", 1)[1] == k.split(".", 1)[1]] if k.startswith("mib*.") else [k]
            for key in keys:
                off, w = f[key]
                struct.pack_into("<I" if w == 4 else "<Q", b, off, int(v, 0) & ((1 << (8 * w)) - 1))
        open(a[2], "wb").write(b)
    elif cmd == "many":
        open(a[2], "wb").write(many(open(a[1], "rb").read(), int(a[3])))
    elif cmd == "sparse":
        b = open(a[1], "rb").read()
        b = b[:u64(b, 16)]
        size, mode = int(a[3]), a[4]
        h = bytearray(b)
        with open(a[2], "wb") as f:
            if mode == "total":
                struct.pack_into("<Q", h, 16, size)
                f.write(h)
            elif mode == "second":
                tail = b
                if len(a) > 5:
                    tail = open(a[5], "rb").read()
                    tail = tail[:u64(tail, 16)]
                first = size - len(tail)
                assert first % 8 == 0 and len(tail) % 8 == 0
                struct.pack_into("<Q", h, 16, first)
                f.write(h)
                f.seek(first)
                f.write(tail)
            elif mode == "mibcount":
                stk = u64(b, 40)
                stacks = b[stk:]
                end = (size - len(stacks)) & ~7
                struct.pack_into("<Q", h, 16, end + len(stacks))
                struct.pack_into("<Q", h, 40, end)
                mib = u64(b, 32)
                entry = 8 + (132 if u64(b, 8) == 3 else 144)
                struct.pack_into("<Q", h, mib, (end - mib - 8) // entry)
                f.write(h[:stk])
                f.seek(end)
                f.write(stacks)
                size = end + len(stacks)
            f.truncate(size)
    elif cmd == "truncate":
        open(a[2], "wb").write(open(a[1], "rb").read()[:int(a[3])])
    elif cmd == "concat":
        out, rest, pad, tail = a[1], a[2:], 0, b""
        if "--pad" in rest:
            i = rest.index("--pad"); pad = int(rest[i + 1]); rest = rest[:i] + rest[i + 2:]
        if "--tail" in rest:
            i = rest.index("--tail"); tail = bytes.fromhex(rest[i + 1]); rest = rest[:i] + rest[i + 2:]
        data = (b"\0" * pad).join(open(p, "rb").read() for p in rest) + tail
        open(out, "wb").write(data)
    elif cmd == "reencode":
        b = open(a[1], "rb").read()
        ver = int(a[3])
        out, base = b"", 0
        while base < len(b):
            segs, nseg, mibs, stacks = parse_dump(b, base)
            out += encode(ver, segs, nseg, mibs, stacks)
            base += u64(b, base + 16)
        open(a[2], "wb").write(out)
    elif cmd == "prefixes":
        b = open(a[1], "rb").read()
        step = int(a[3]) if len(a) > 3 else 1
        os.makedirs(a[2], exist_ok=True)
        keep, valid, base = set(range(0, min(64, len(b)))), set(), 0
        while base + 48 <= len(b):
            for k in (24, 32, 40, 16):
                edge = base + u64(b, base + k) if k != 16 else base + u64(b, base + 16)
                keep.update(range(max(0, edge - 9), min(len(b), edge + 17)))
            base += u64(b, base + 16)
            valid.add(base)
        keep.update(range(0, len(b), step))
        for n in sorted(keep - valid):
            if n < len(b):
                open(os.path.join(a[2], "prefix.%d" % n), "wb").write(b[:n])
    elif cmd == "headerflips":
        b = open(a[1], "rb").read()
        os.makedirs(a[2], exist_ok=True)
        for bit in range(48 * 8):
            c = bytearray(b)
            c[bit // 8] ^= 1 << (bit % 8)
            open(os.path.join(a[2], "flip.%d" % bit), "wb").write(c)
    elif cmd == "anyprefixes":
        b = open(a[1], "rb").read()
        step = int(a[3]) if len(a) > 3 else 1
        os.makedirs(a[2], exist_ok=True)
        for n in sorted(set(range(0, len(b), step)) | set(range(0, min(len(b), 128)))):
            open(os.path.join(a[2], "prefix.%d" % n), "wb").write(b[:n])
    elif cmd == "flips":
        import random
        b = open(a[1], "rb").read()
        count, rng = int(a[3]), random.Random(int(a[4]))
        os.makedirs(a[2], exist_ok=True)
        for i in range(count):
            c = bytearray(b)
            pos = rng.randrange(len(c))
            if i % 2:
                c[pos] ^= 1 << rng.randrange(8)
            else:
                for j in range(pos & ~7, min(len(c), (pos & ~7) + 8)):
                    c[j] = rng.randrange(256)
            open(os.path.join(a[2], "flip.%d" % i), "wb").write(c)
    else:
        raise SystemExit(__doc__)

if __name__ == "__main__":
    main(sys.argv[1:])
