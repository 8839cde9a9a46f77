#!/usr/bin/env python3
"""Seeds for the CfiDecoder fuzz target (fuzz/CfiDecoderFuzzer.cpp): small
images of an .eh_frame_hdr with a CIE and FDEs after it, as GCC and clang
write them, and hostile variants. make-cfi-corpus.py OUT_DIR"""
import os, struct, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def cie(aug=b"zR", extra=b"\x1b", prog=b"\x0c\x07\x08\x90\x01"):
    body = b"\0\0\0\0\x01" + aug + b"\0" + b"\x01\x78\x10" + bytes([len(extra)]) + extra + prog
    body += b"\0" * (-(len(body) + 4) % 8)
    return struct.pack("<I", len(body)) + body


def image(programs, aug=b"zR", extra=b"\x1b", code=0x400, size=0x40):
    """Header with one entry per FDE, then the CIE, then the FDEs."""
    n = len(programs)
    hdr_size = 12 + 8 * n
    c = cie(aug, extra)
    at = hdr_size + len(c)
    fdes, entries = b"", []
    for i, p in enumerate(programs):
        start = code + i * size
        body_len = 4 + 4 + 4 + 1 + len(p)
        pad = -(body_len + 4) % 8
        fde_at = at + len(fdes)
        cie_ptr = fde_at + 4 - hdr_size
        pc_begin = start - (fde_at + 8)
        fde = struct.pack("<IIiI", body_len + pad, cie_ptr, pc_begin, size) + b"\0" + p + b"\0" * pad
        fdes += fde
        entries.append((start, fde_at))
    eh = c + fdes + b"\0\0\0\0"
    hdr = bytes([1, 0x1b, 0x03, 0x3b]) + struct.pack("<iI", hdr_size - 4, n)
    for start, fde_at in entries:
        hdr += struct.pack("<ii", start, fde_at)
    return hdr_size, hdr + eh + b"\xcc" * 0x200


def write(name, hdr_size, img, target):
    with open(os.path.join(out, name + ".bin"), "wb") as f:
        f.write(struct.pack("<HQ", hdr_size, target) + img)


frame = b"\x41\x0e\x10\x86\x02\x43\x0d\x06\x4a\x0a\x0c\x07\x08\xc6\x41\x0b"
leaf = b"\x44\x0e\x60\x02\x40\x0e\x08"
h, img = image([frame, leaf, b"\x07\x10", b"\x0f\x02\x77\x08"])
write("gcc-like", h, img, 0x405)
write("leaf", h, img, 0x441)
write("end-of-stack", h, img, 0x481)
write("expression", h, img, 0x4c1)
h, img = image([frame], aug=b"zPLR", extra=b"\x9b\0\0\0\0\x1b\x1b")
write("zPLR", h, img, 0x408)
h, img = image([b""], aug=b"zRS")
write("signal", h, img, 0x400)
h, img = image([b"\x0a" * 9])
write("hostile-deep-state", h, img, 0x410)
h, img = image([b"\x0e" + b"\xff" * 40])
write("hostile-uleb", h, img, 0x410)
h, img = image([frame])
bad = bytearray(img)
struct.pack_into("<I", bad, 8, 0xFFFFFFFF)
write("hostile-count", h, bytes(bad), 0x410)
bad = bytearray(img)
struct.pack_into("<i", bad, 16, 0x7FFFFFF0)
write("hostile-fde-far", h, bytes(bad), 0x410)
bad = bytearray(img)
struct.pack_into("<I", bad, h + 24 + 4, 4)
write("hostile-cie-self", h, bytes(bad), 0x410)
write("hostile-truncated", h, img[: h + 30], 0x410)
