#!/usr/bin/env python3
"""Damages every entry of a symbol cache directory (DIR/symbols-v1) one way:
damage-cache.py truncate|corrupt|foreign DIR. truncate keeps the first half
of each entry; corrupt flips one byte in the middle of each; foreign gives
each entry the contents of the next one (another build id), so that every
entry is a sound entry of the wrong module. Prints how many it damaged."""
import os, sys

how, root = sys.argv[1], os.path.join(sys.argv[2], "symbols-v1")
names = sorted(n for n in os.listdir(root) if n.startswith("llvmcache-"))
data = [open(os.path.join(root, n), "rb").read() for n in names]
if how == "foreign" and len(set(d[48:56] for d in data)) < 2:
    sys.exit("damage-cache.py: foreign needs entries of two build ids")
for i, n in enumerate(names):
    d = data[i]
    if how == "truncate":
        d = d[:len(d) // 2]
    elif how == "corrupt":
        d = bytearray(d)
        d[len(d) // 2] ^= 0x5A
        d = bytes(d)
    elif how == "foreign":
        j = (i + 1) % len(names)
        while data[j][48:56] == d[48:56]:  # another module's entry
            j = (j + 1) % len(names)
        d = data[j]
    else:
        sys.exit("damage-cache.py: unknown damage " + how)
    with open(os.path.join(root, n), "wb") as f:
        f.write(d)
print("damaged %d entries" % len(names))
