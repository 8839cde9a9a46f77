#!/usr/bin/env python3
"""Edits the raw text form of a profile (memprof-convert --to-text) for
symbolization-hygiene.test: the stack of every MIB with AllocCount COUNT.

edit-stacks.py cut IN OUT COUNT
    its second address becomes 0x10 (outside every segment: where a stack
    walk through code without frame pointers leaves the code)
edit-stacks.py runtime IN OUT COUNT LIB SYMBOL
    an address inside SYMBOL of LIB (its load address from IN's segment
    with LIB's build id) is inserted after its first address, as if the
    walk had passed through the runtime's own code"""
import re, subprocess, sys


def tool(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def runtime_pc(text, lib, symbol):
    build_id = re.search(r"Build ID: ([0-9a-f]+)", tool("llvm-readelf-22", "-n", lib)).group(1)
    seg = re.search(r"segment start=(0x[0-9a-f]+) end=\S+ offset=\S+ build-id=" + build_id, text)
    if not seg:
        sys.exit("edit-stacks.py: no segment of %s in the profile" % lib)
    vaddr = None
    for line in tool("llvm-readelf-22", "-lW", lib).splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            vaddr = int(f[2], 16)
            break
    addr = None
    for line in tool("llvm-nm-22", "--defined-only", lib).splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == symbol:
            addr = int(f[0], 16)
    if vaddr is None or addr is None:
        sys.exit("edit-stacks.py: %s or its code segment not found in %s" % (symbol, lib))
    # A return address a few bytes into the function (PCs are return
    # addresses; the reader takes one off).
    return int(seg.group(1), 16) - vaddr + addr + 5


def main():
    mode, src, dst, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    text = open(src).read()
    ids = set()
    for m in re.finditer(r"mib stack-id=(\d+)\n((?:      .*\n)+)", text):
        if re.search(r"^      AllocCount %d$" % count, m.group(2), re.M):
            ids.add(m.group(1))
    if not ids:
        sys.exit("edit-stacks.py: no MIB with AllocCount %d" % count)
    extra = runtime_pc(text, sys.argv[5], sys.argv[6]) if mode == "runtime" else None
    edited = 0

    def edit(m):
        nonlocal edited
        if m.group(1) not in ids:
            return m.group(0)
        pcs = m.group(2).split()
        if mode == "cut":
            pcs[1] = "0x10"
        else:
            pcs.insert(1, hex(extra))
        edited += 1
        return "    stack id=%s\n      pcs %s\n" % (m.group(1), " ".join(pcs))

    text = re.sub(r"    stack id=(\d+)\n      pcs ([^\n]*)\n", edit, text)
    if not edited:
        sys.exit("edit-stacks.py: no stack edited")
    open(dst, "w").write(text)


if __name__ == "__main__":
    main()
