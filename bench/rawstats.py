#!/usr/bin/env python3
"""Print "FILES BYTES CONTEXTS" for raw MemProf profiles (LLVM raw v3-v5).

    rawstats.py FILE...

CONTEXTS counts the MemInfoBlock entries (one per allocation context) of
every dump in every file; a file may hold several dumps back to back.
"""
import struct
import sys

MAGIC = 0xFF6D70726F667281


def contexts(path: str) -> tuple[int, int]:
    data = open(path, "rb").read()
    pos, n = 0, 0
    while pos + 48 <= len(data):
        magic, _ver, total, _seg, mib, _stk = struct.unpack_from("<6Q", data, pos)
        if magic != MAGIC or total < 48:
            raise SystemExit(f"rawstats.py: {path}: not a raw MemProf profile at offset {pos}")
        n += struct.unpack_from("<Q", data, pos + mib)[0]
        pos += total
    return len(data), n


def main() -> None:
    files, size, ctx = 0, 0, 0
    for p in sys.argv[1:]:
        b, c = contexts(p)
        files, size, ctx = files + 1, size + b, ctx + c
    print(files, size, ctx)


if __name__ == "__main__":
    main()
