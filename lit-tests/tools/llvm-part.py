#!/usr/bin/env python3
"""Splits an indexed profile written by memprof-merge into its LLVM part and
memprof's names extension (docs/names-extension.md), independently of the
C++ reader: the footer's last 8 bytes are the magic, the 8 before them the
extension's size; the extension's header repeats the LLVM part's size.

llvm-part.py IN OUT [--none-ok] [--report]
Writes the LLVM part of IN to OUT. Fails if IN has no extension, unless
--none-ok (OUT is then a copy of IN). --report prints the two sizes."""
import struct, sys

HEADER_MAGIC = 0x81656D616E706DFF
FOOTER_MAGIC = 0x81646E656E706DFF

args = [a for a in sys.argv[1:] if not a.startswith("--")]
flags = [a for a in sys.argv[1:] if a.startswith("--")]
data = open(args[0], "rb").read()
llvm = data
ext = 0
if len(data) >= 16 and struct.unpack_from("<Q", data, len(data) - 8)[0] == FOOTER_MAGIC:
    ext = struct.unpack_from("<Q", data, len(data) - 16)[0]
    start = len(data) - ext
    if ext < 64 or start < 0 or start % 8:
        sys.exit("llvm-part: bad extension size %d" % ext)
    magic, version, flags_field, llvm_size = struct.unpack_from("<QIIQ", data, start)
    if magic != HEADER_MAGIC or llvm_size != start or version != 1:
        sys.exit("llvm-part: bad extension header at %d" % start)
    llvm = data[:start]
elif "--none-ok" not in flags:
    sys.exit("llvm-part: %s has no names extension" % args[0])
open(args[1], "wb").write(llvm)
if "--report" in flags:
    print("llvm part %d bytes, names extension %d bytes (%.1f%%)"
          % (len(llvm), ext, 100.0 * ext / len(llvm)))
