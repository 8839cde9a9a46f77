#!/usr/bin/env python3
"""The vDSO for the tests, read without memprof's code.

vdso.py dump FILE          writes this process's vDSO image (the [vdso] mapping
    of /proc/self/maps, read from /proc/self/mem) to FILE, for llvm-readelf-22
    to read its build id: every process of this kernel maps the same image.
vdso.py rewrite IN OUT NOTES MODE   rewrites raw text (memprof-convert
    --to-text) whose segment with the build id NOTES gives (llvm-readelf-22 -n
    of the dump) is the vDSO:
      other-kernel   that segment's build id becomes another (a profile made
                     under another kernel: no longer this machine's vDSO)
      other-layout   the same, and its load bias one page below its start
                     (no longer the vDSO's layout)
      pc-inside      the first PC of the first stack is moved into it
"""
import re, sys

OTHER = "0123456789abcdef0123456789abcdef01234567"

def dump(out):
    for line in open("/proc/self/maps"):
        if line.rstrip().endswith("[vdso]"):
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            with open("/proc/self/mem", "rb") as m:
                m.seek(lo)
                open(out, "wb").write(m.read(hi - lo))
            return
    sys.exit("vdso.py: no [vdso] mapping")

def rewrite(src, dst, notes, mode):
    m = re.search(r"Build ID: ([0-9a-f]+)", open(notes).read())
    if not m:
        sys.exit("vdso.py: no build id in " + notes)
    build_id = m.group(1)
    text = open(src).read()
    seg = re.search(r"segment start=0x([0-9a-f]+) end=0x([0-9a-f]+) "
                    r"offset=0x([0-9a-f]+) build-id=" + build_id + r"\b", text)
    if not seg:
        sys.exit("vdso.py: no segment with build id " + build_id)
    start = int(seg.group(1), 16)
    line = seg.group(0)
    if mode in ("other-kernel", "other-layout"):
        new = line.replace(build_id, OTHER)
        if mode == "other-layout":
            new = new.replace("offset=0x%x" % start, "offset=0x%x" % (start - 0x1000))
        text = text.replace(line, new)
    elif mode == "pc-inside":
        text = re.sub(r"pcs 0x[0-9a-f]+", "pcs 0x%x" % (start + 0x9a0), text, count=1)
    else:
        sys.exit("vdso.py: unknown mode " + mode)
    open(dst, "w").write(text)

if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        rewrite(*sys.argv[2:6])
