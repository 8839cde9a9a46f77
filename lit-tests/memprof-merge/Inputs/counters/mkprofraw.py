#!/usr/bin/env python3
"""Builds hostile raw InstrProf (.profraw, raw version 10, 64-bit little-endian)
inputs from a real file written at test time, independently of the C++ reader
(layout: /work/shared/docs/llvm-instrprof-formats.md, section 1).

  mkprofraw.py layout IN                 prints each section's offset and size
  mkprofraw.py truncate IN OUT LEN       the first LEN bytes; LEN is a number, or
      SECTION+N / SECTION-N (N bytes after / before where SECTION starts, a
      section name `layout` prints), or end-N
  mkprofraw.py prefixes IN DIR [STEP]    DIR/prefix.N for N from 1 to size-1: every
      length up to 16, every 8th up to the header's end, each section boundary
      and one byte either side, and every STEP-th (default 64); the full file
      is never written
  mkprofraw.py set IN OUT FIELD=VALUE... header fields: magic version binaryidssize
      numdata padbeforecounters numcounters padaftercounters numbitmapbytes
      padafterbitmap namessize countersdelta bitmapdelta namesdelta numvtables
      vnamessize valuekindlast; record fields REC.FIELD where REC is dataN
      (N-th record) or data[NAME] (the record whose NameRef is MD5 of the PGO
      name NAME) and FIELD is nameref funchash counterptr bitmapptr
      functionpointer values numcounters numvaluesites0..2 numbitmapbytes;
      counterN (u64 counter N of the counters section).
      VALUE: decimal, 0x hex or -decimal (stored two's complement).
      FIELD+=VALUE adds VALUE to the field (wrapping at its width).
"""
import hashlib, os, struct, sys

HEADER = ["magic", "version", "binaryidssize", "numdata", "padbeforecounters",
          "numcounters", "padaftercounters", "numbitmapbytes", "padafterbitmap",
          "namessize", "countersdelta", "bitmapdelta", "namesdelta", "numvtables",
          "vnamessize", "valuekindlast"]
RECORD = {"nameref": (0, 8), "funchash": (8, 8), "counterptr": (16, 8),
          "bitmapptr": (24, 8), "functionpointer": (32, 8), "values": (40, 8),
          "numcounters": (48, 4), "numvaluesites0": (52, 2),
          "numvaluesites1": (54, 2), "numvaluesites2": (56, 2),
          "numbitmapbytes": (60, 4)}
MAGIC = 0xFF6C70726F667281


def pad8(n):
    return 7 & (8 - n % 8)


def header(b):
    if len(b) < 128 or struct.unpack_from("<Q", b, 0)[0] != MAGIC:
        sys.exit("mkprofraw: not a 64-bit little-endian raw profile")
    return dict(zip(HEADER, struct.unpack_from("<16Q", b, 0)))


def sections(b):
    """(name, offset, size) of each section of the first profile."""
    h = header(b)
    cbytes = h["numcounters"] * (1 if h["version"] >> 60 & 1 else 8)
    out, off = [], 0
    for name, size in [("header", 128), ("binaryids", h["binaryidssize"]),
                       ("data", 64 * h["numdata"]), ("padbeforecounters", h["padbeforecounters"]),
                       ("counters", cbytes), ("padaftercounters", h["padaftercounters"]),
                       ("bitmap", h["numbitmapbytes"]), ("padafterbitmap", h["padafterbitmap"]),
                       ("names", h["namessize"] + pad8(h["namessize"])),
                       ("vtables", 24 * h["numvtables"] + pad8(24 * h["numvtables"])),
                       ("vnames", h["vnamessize"] + pad8(h["vnamessize"]))]:
        out.append((name, off, size))
        off += size
    out.append(("values", off, len(b) - off))
    return out


def offset_of(b, name):
    return {n: o for n, o, _ in sections(b)}[name]


def parse_value(text):
    v = int(text, 0)
    return v & 0xFFFFFFFFFFFFFFFF


def record_offset(b, rec):
    data = offset_of(b, "data")
    n = header(b)["numdata"]
    if rec.startswith("data[") and rec.endswith("]"):
        ref = int.from_bytes(hashlib.md5(rec[5:-1].encode()).digest()[:8], "little")
        for i in range(n):
            if struct.unpack_from("<Q", b, data + 64 * i)[0] == ref:
                return data + 64 * i
        sys.exit("mkprofraw: no record named %s" % rec[5:-1])
    i = int(rec[4:])
    if i >= n:
        sys.exit("mkprofraw: no record %d" % i)
    return data + 64 * i


def set_fields(b, assignments):
    b = bytearray(b)
    for a in assignments:
        field, value = a.split("=", 1)
        add = field.endswith("+")
        field = field.rstrip("+")
        v = parse_value(value)
        if field in HEADER:
            off, width = 8 * HEADER.index(field), 8
        elif field.startswith("counter") and field[7:].isdigit():
            off, width = offset_of(b, "counters") + 8 * int(field[7:]), 8
        elif "." in field:
            rec, name = field.rsplit(".", 1)
            if name not in RECORD:
                sys.exit("mkprofraw: unknown field %s" % field)
            off, width = RECORD[name]
            off += record_offset(b, rec)
        else:
            sys.exit("mkprofraw: unknown field %s" % field)
        fmt = {8: "<Q", 4: "<I", 2: "<H"}[width]
        if add:
            v += struct.unpack_from(fmt, b, off)[0]
        struct.pack_into(fmt, b, off, v & ((1 << 8 * width) - 1))
    return bytes(b)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    data = open(args[0], "rb").read()
    if cmd == "layout":
        for name, off, size in sections(data):
            print("%-18s offset %6d size %6d" % (name, off, size))
    elif cmd == "truncate":
        spec = args[2]
        for sign in "+-":
            if sign in spec and not spec[0].isdigit():
                name, delta = spec.split(sign, 1)
                base = len(data) if name == "end" else offset_of(data, name)
                n = base + int(delta) if sign == "+" else base - int(delta)
                break
        else:
            n = int(spec)
        if not 0 <= n < len(data):
            sys.exit("mkprofraw: length %d is not a proper prefix of %d bytes" % (n, len(data)))
        open(args[1], "wb").write(data[:n])
    elif cmd == "prefixes":
        step = int(args[2]) if len(args) > 2 else 64
        os.makedirs(args[1], exist_ok=True)
        lengths = set(range(1, 17)) | set(range(8, 137, 8)) | set(range(step, len(data), step))
        for _, off, size in sections(data):
            for n in (off - 1, off, off + 1, off + size - 1, off + size, off + size + 1):
                lengths.add(n)
        for n in sorted(lengths):
            if 0 < n < len(data):
                open(os.path.join(args[1], "prefix.%d" % n), "wb").write(data[:n])
    elif cmd == "set":
        open(args[1], "wb").write(set_fields(data, args[2:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
