#!/usr/bin/env python3
"""How many allocation contexts of a raw MemProf profile reach the program.

    context-reach.py [--binary FILE]... [--runtime FILE]... [--json] PROFILE...
    context-reach.py --compare REF [--binary FILE]... [--runtime FILE]...
                     [--module FILE]... [-n N] PROFILE...

A context "reaches the program" when at least one frame of its call stack
lies in the program's own code: an executable segment of one of the
--binary files (matched by GNU build id against the profile's segment
table), and not in a function of the profiler's runtime (--runtime: an
archive, object or shared library whose defined functions are runtime code
wherever they appear; needed when the runtime is linked into the program,
as clang's -fmemory-profile and our memprof_rt.o are). A context whose
frames all lie in libstdc++, libc, ld.so (or whose walk gave no frame
at all) does not.

The raw profile (LLVM raw MemProf v3-v5, ours or clang's runtime's) is
parsed here directly, not through memprof-show: its JSON lists only the top
contexts and names a context's module by its allocation site alone, where
this needs every frame's module. Several files, and several dumps in one
file, are summed (MIBs of one stack id in one file merged, as LLVM's reader
does). Prints

    allocations R of T (P%), contexts r of t (p%), runtime frames dropped D

or with --json {"allocations": T, "allocations_reached": R, "contexts": t,
"contexts_reached": r, "runtime_frames": D, "allocations_per_file": [...]}
(contexts are counted per file: the same context in two files counts twice).

--compare REF lists the allocations whose context reaches the program in
REF (a profile of the same binary and workload, e.g. clang's runtime with
its slow unwinder) but not in PROFILE. Frames are compared as (module build
id, address in its module), the runtime's frames left out, so that two
runs of one binary under different preloaded runtimes (and load addresses)
compare. Contexts are grouped by their first frame (the allocation
function's caller); at a first frame F, PROFILE's allocations that do not
reach the program, times the share of REF's allocations at F that do, are
the allocations lost at F (two runs of a threaded program do not allocate
exactly alike, so contexts are not matched count for count). For the N
frames (default 5) with the most lost, prints REF's largest reaching
context from F up to its first frame in the program, and PROFILE's largest
contexts at F, which show where its walk ended, symbolized
(llvm-symbolizer-22; modules found by build id among --binary, --runtime,
--module files and the libraries `ldd` lists for the binaries).
"""
import argparse
import bisect
import json
import os
import struct
import subprocess
import sys
from collections import defaultdict

MAGIC = 0xFF6D70726F667281
MIB_SIZE = {3: 132, 4: 144, 5: 144}
HIST_ENTRY = {3: 0, 4: 8, 5: 2}


def die(msg):
    print(f"context-reach.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


# --- ELF: build id and function symbols ---------------------------------------

def build_id(path):
    """The GNU build id of an ELF file (hex), from its PT_NOTE segments, or
    None."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _flags, p_offset, _va, _pa, p_filesz = struct.unpack_from(
            "<IIQQQQ", data, phoff + i * phentsize)
        if p_type != 4:  # PT_NOTE
            continue
        pos, end = p_offset, p_offset + p_filesz
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
            name_at = pos + 12
            desc_at = name_at + ((namesz + 3) & ~3)
            if ntype == 3 and data[name_at:name_at + namesz] == b"GNU\0":
                return data[desc_at:desc_at + descsz].hex()
            pos = desc_at + ((descsz + 3) & ~3)
    return None


def defined_functions(path):
    """Names of the functions an archive, object or shared library defines."""
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWwi":
            names.add(parts[2])
    if not names:  # a stripped shared library: its dynamic symbols
        out = subprocess.run(["nm", "-D", "--defined-only", path],
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TtWwi":
                names.add(parts[2].split("@")[0])
    return names


def ranges_of(path, names):
    """Sorted (start, end) file addresses of the functions of PATH (its
    symbol table) whose names are in NAMES."""
    out = subprocess.run(["nm", "--defined-only", "-S", path],
                         capture_output=True, text=True).stdout
    rs = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "TtWwi" and parts[3] in names:
            start, size = int(parts[0], 16), int(parts[1], 16)
            rs.append((start, start + max(size, 1)))
    rs.sort()
    return rs


def in_ranges(rs, starts, addr):
    i = bisect.bisect_right(starts, addr) - 1
    return i >= 0 and addr < rs[i][1]


# --- the raw profile -----------------------------------------------------------

class Profile:
    """One raw MemProf file: segments, MIBs summed by stack id, stacks."""

    def __init__(self, path):
        self.path = path
        self.segments = []          # (start, end, bias, build id hex)
        self.mibs = defaultdict(int)  # stack id -> AllocCount
        self.stacks = {}            # stack id -> tuple of PCs, leaf first
        data = open(path, "rb").read()
        pos = 0
        while pos < len(data):
            if pos + 48 > len(data):
                die(f"{path}: truncated header at offset {pos}")
            magic, ver, total, seg, mib, stk = struct.unpack_from("<6Q", data, pos)
            if magic != MAGIC or ver not in MIB_SIZE or total < 48:
                die(f"{path}: not a raw MemProf profile (v3-v5) at offset {pos}")
            self._segments(data, pos + seg)
            self._mibs(data, pos + mib, ver)
            self._stacks(data, pos + stk)
            pos += total

    def _segments(self, data, at):
        n, = struct.unpack_from("<Q", data, at)
        segs = []
        for i in range(n):
            start, end, bias, idsize = struct.unpack_from("<4Q", data, at + 8 + 64 * i)
            bid = data[at + 8 + 64 * i + 32:at + 8 + 64 * i + 32 + idsize].hex()
            segs.append((start, end, bias, bid))
        if not self.segments:
            self.segments = segs
        else:  # a later dump may list more modules: keep every one
            self.segments = sorted(set(self.segments) | set(segs))

    def _mibs(self, data, at, ver):
        n, = struct.unpack_from("<Q", data, at)
        p = at + 8
        for _ in range(n):
            sid, count = struct.unpack_from("<QI", data, p)
            hist = 0
            if ver >= 4:
                hist, = struct.unpack_from("<I", data, p + 8 + 132)
            self.mibs[sid] += count
            p += 8 + MIB_SIZE[ver] + hist * HIST_ENTRY[ver]

    def _stacks(self, data, at):
        n, = struct.unpack_from("<Q", data, at)
        p = at + 8
        for _ in range(n):
            sid, npcs = struct.unpack_from("<QQ", data, p)
            pcs = struct.unpack_from(f"<{npcs}Q", data, p + 16)
            if 0 in pcs:  # LLVM's reader cuts a stack at its first zero PC
                pcs = pcs[:pcs.index(0)]
            self.stacks[sid] = tuple(pcs)
            p += 16 + 8 * npcs


class Classifier:
    """Maps a profile's PCs to (build id, module address) and tells the
    program's own code from the runtime's and the libraries'."""

    def __init__(self, binaries, runtimes):
        self.own = {}  # build id -> path of a --binary
        for b in binaries:
            bid = build_id(b)
            if bid is None:
                die(f"{b}: no GNU build id")
            self.own[bid] = b
        names = set()
        for r in runtimes:
            names |= defined_functions(r)
        self.runtime_ids = {build_id(r) for r in runtimes} - {None}
        # The runtime's functions inside each program binary (static runtime).
        self.rt_ranges = {}
        for bid, path in self.own.items():
            rs = ranges_of(path, names) if names else []
            self.rt_ranges[bid] = (rs, [s for s, _ in rs])

    def frames(self, prof, pcs):
        """The stack's frames as (build id or None, module address, kind),
        kind one of own/runtime/other."""
        segs = prof.segments
        out = []
        for pc in pcs:
            for start, end, bias, bid in segs:
                if start <= pc <= end:
                    addr = pc - bias
                    if bid in self.runtime_ids:
                        kind = "runtime"
                    elif bid in self.own:
                        rs, starts = self.rt_ranges[bid]
                        kind = "runtime" if in_ranges(rs, starts, addr) else "own"
                    else:
                        kind = "other"
                    out.append((bid, addr, kind))
                    break
            else:
                out.append((None, pc, "other"))
        return out


def reach(cls, profs):
    """Totals over PROFS: allocations, reached, contexts, reached, runtime
    frames."""
    t = dict(allocations=0, allocations_reached=0, contexts=0,
             contexts_reached=0, runtime_frames=0, allocations_per_file=[])
    for prof in profs:
        t["allocations_per_file"].append(sum(prof.mibs.values()))
        for sid, count in prof.mibs.items():
            fr = cls.frames(prof, prof.stacks.get(sid, ()))
            t["runtime_frames"] += sum(1 for f in fr if f[2] == "runtime")
            hit = any(f[2] == "own" for f in fr)
            t["allocations"] += count
            t["contexts"] += 1
            if hit:
                t["allocations_reached"] += count
                t["contexts_reached"] += 1
    return t


def pct(a, b):
    return 100.0 * a / b if b else 0.0


# --- --compare -----------------------------------------------------------------

def by_first_frame(cls, profs):
    """first frame -> (reached allocations, [(frames, allocations)] reached,
    [(frames, allocations)] not reached), the runtime's frames left out; a
    frame is (build id, module address, kind)."""
    ctx = defaultdict(int)  # the same frames in several files are one context
    for prof in profs:
        for sid, count in prof.mibs.items():
            fr = tuple(f for f in cls.frames(prof, prof.stacks.get(sid, ()))
                       if f[2] != "runtime")
            if fr:
                ctx[fr] += count
    out = defaultdict(lambda: [0, [], []])
    for fr, count in ctx.items():
        e = out[fr[0][:2]]
        if any(f[2] == "own" for f in fr):
            e[0] += count
            e[1].append((fr, count))
        else:
            e[2].append((fr, count))
    return out


class Symbolizer:
    """Names (build id, module address) frames with llvm-symbolizer-22."""

    def __init__(self, files):
        self.paths = {}
        for f in files:
            try:
                bid = build_id(f)
            except OSError:
                continue
            if bid and bid not in self.paths:
                self.paths[bid] = f
        self.cache = {}

    def name(self, frame):
        bid, addr = frame[:2]
        if (bid, addr) in self.cache:
            return self.cache[(bid, addr)]
        path = self.paths.get(bid)
        if path is None:
            s = f"0x{addr:x} in <module {bid[:12] if bid else 'unknown'}>"
        else:
            out = subprocess.run(
                ["llvm-symbolizer-22", "--obj=" + path, "--demangle",
                 "--inlining", f"0x{addr:x}"], capture_output=True, text=True).stdout.split("\n")
            lines = [l for l in out if l.strip()]
            parts = []
            for i in range(0, len(lines) - 1, 2):
                fn, loc = lines[i], lines[i + 1]
                loc = loc if not loc.startswith("??") else ""
                parts.append(fn + (f" {os.path.basename(loc)}" if loc else ""))
            s = " <- ".join(parts) if parts else "??"
            s += f"  [{os.path.basename(path)}+0x{addr:x}]"
        self.cache[(bid, addr)] = s
        return s


def ldd_libraries(binaries):
    libs = []
    for b in binaries:
        out = subprocess.run(["ldd", b], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if "=>" in parts:
                i = parts.index("=>")
                if i + 1 < len(parts) and parts[i + 1].startswith("/"):
                    libs.append(parts[i + 1])
            elif parts and parts[0].startswith("/"):
                libs.append(parts[0])
    return libs


def compare(cls, ref_profs, profs, sym, top):
    """Allocations that PROFS's walk did not take to the program, at first
    frames (the allocation function's caller) from which REF's walk did.
    Two runs of a program with threads do not allocate exactly alike, so
    contexts are not matched count for count: for a first frame F, the
    estimate of the allocations lost is PROFS's unreached allocations at F
    times the share of REF's allocations at F that reach the program."""
    ref = by_first_frame(cls, ref_profs)
    got = by_first_frame(cls, profs)
    lost = []
    for f, (reached, _r, unreached) in got.items():
        n_un = sum(c for _, c in unreached)
        if f not in ref or not n_un:
            continue
        r_reached, r_ctx, r_un = ref[f]
        r_total = r_reached + sum(c for _, c in r_un)
        if r_reached:
            lost.append((n_un * r_reached / r_total, n_un, f))
    lost.sort(key=lambda m: (-m[0], m[2]))
    total = sum(sum(c for _, c in e[2]) + e[0] for e in got.values())
    est = sum(m[0] for m in lost)
    unmatched = sum(sum(c for _, c in e[2]) for f, e in got.items() if f not in ref)
    print(f"of {total} allocations here, about {est:.0f} ({pct(est, total):.2f}%) "
          f"do not reach the program at first frames (allocation callers) from "
          f"which the reference's do; {unmatched} more do not reach it at "
          f"first frames the reference never saw")
    for rank, (est_f, n_un, f) in enumerate(lost[:top], 1):
        r_reached, r_ctx, r_un = ref[f]
        print()
        print(f"#{rank}  about {est_f:.0f} allocations lost: {n_un} here do not "
              f"reach the program; in the reference {r_reached} of "
              f"{r_reached + sum(c for _, c in r_un)} at this frame do.")
        fr, count = max(r_ctx, key=lambda c: c[1])
        own = next(i for i, x in enumerate(fr) if x[2] == "own")
        print(f"    the reference's largest such context ({count} allocations), "
              f"up to its first frame in the program:")
        for x in fr[:own + 1]:
            print(f"      {sym.name(x)}")
        for fr, count in sorted(got[f][2], key=lambda c: -c[1])[:2]:
            print(f"    here, {count} allocations in a context of {len(fr)} frame(s):")
            for x in fr[:own + 3]:
                print(f"      {sym.name(x)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profiles", nargs="+")
    ap.add_argument("--binary", action="append", default=[],
                    help="the program's own code (repeatable)")
    ap.add_argument("--runtime", action="append", default=[],
                    help="the profiler's runtime: its functions are not the program's")
    ap.add_argument("--module", action="append", default=[],
                    help="another module to symbolize frames of (--compare)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare", metavar="REF", action="append", default=[],
                    help="a reference profile (repeatable: several runs pooled)")
    ap.add_argument("-n", type=int, default=5)
    a = ap.parse_args()
    if not a.binary:
        die("no --binary")
    cls = Classifier(a.binary, a.runtime)
    profs = [Profile(p) for p in a.profiles]
    if a.compare:
        sym = Symbolizer(a.binary + a.runtime + a.module + ldd_libraries(a.binary))
        compare(cls, [Profile(p) for p in a.compare], profs, sym, a.n)
        return
    t = reach(cls, profs)
    if a.json:
        print(json.dumps(t))
    else:
        print(f"allocations {t['allocations_reached']} of {t['allocations']} "
              f"({pct(t['allocations_reached'], t['allocations']):.1f}%), "
              f"contexts {t['contexts_reached']} of {t['contexts']} "
              f"({pct(t['contexts_reached'], t['contexts']):.1f}%), "
              f"runtime frames dropped {t['runtime_frames']}")


if __name__ == "__main__":
    main()
