#!/usr/bin/env python3
"""Reads raw profiles written by the runtime with llvm-profdata-22 (the
independent reader) and checks them against the truth a test program prints.

check-raw.py truth BIN RAW TRUTH...
    TRUTH lines, summed over the files:
      site NAME COUNT BYTES        contexts whose leaf frame is function NAME
                                   hold exactly COUNT allocations of BYTES
      expect NAME FIELD OP VALUE   every such context's MemInfoBlock FIELD
                                   satisfies OP (==, >=, <=, >, <) VALUE
      hist NAME [V...]             the one such context's access histogram
                                   is exactly V... (none if no V)
check-raw.py reader-hist CONVERT RAW TRUTH
    memprof-convert --to-text RAW (our own reader) must show every histogram
    of the TRUTH's hist lines.
check-raw.py series BIN NAME[,NAME...] RAW...
    per-site AllocCount and TotalSize in each dump (in the natural order of
    the file names, so d.2 before d.10), which must never decrease from one
    dump to the next.
check-raw.py sites BIN RAW
    prints "NAME COUNT BYTES" for every leaf function, sorted.
check-raw.py stacks BIN RAW
    prints every context's symbolized frames, "leaf<-caller<-...", sorted.
check-raw.py stack-totals BIN RAW
    the same, each followed by the context's AllocCount and TotalSize."""
import operator, re, subprocess, sys, yaml

OPS = {"==": operator.eq, ">=": operator.ge, "<=": operator.le,
       ">": operator.gt, "<": operator.lt}


def contexts(binary, raw, frames=False):
    """Yields (leaf symbol name, MemInfoBlock) for every allocation context,
    or with frames, (the list of frame names, MemInfoBlock)."""
    out = subprocess.run(["llvm-profdata-22", "show", "--memory", raw,
                          "--profiled-binary", binary],
                         check=True, capture_output=True, text=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    prof = docs[0]["MemprofProfile"] if docs else {}
    for rec in prof.get("Records", []) or []:
        for site in rec.get("AllocSites", []) or []:
            leaf = site["Callstack"][0]
            # An inlined site is listed under each enclosing function too.
            if leaf["Function"] != rec["FunctionGUID"]:
                continue
            names = [f.get("SymbolName", str(f["Function"])) for f in site["Callstack"]]
            yield (names if frames else names[0]), site["MemInfoBlock"]


def totals(binary, raw):
    t = {}
    for name, mib in contexts(binary, raw):
        c, b = t.get(name, (0, 0))
        t[name] = (c + mib["AllocCount"], b + mib["TotalSize"])
    return t


def truth(binary, raw, files):
    want, expects, hists = {}, [], {}
    for path in files:
        for line in open(path):
            p = line.split()
            if len(p) == 4 and p[0] == "site":
                c, b = want.get(p[1], (0, 0))
                want[p[1]] = (c + int(p[2]), b + int(p[3]))
            elif len(p) == 5 and p[0] == "expect":
                expects.append((p[1], p[2], p[3], int(p[4])))
            elif len(p) >= 2 and p[0] == "hist":
                hists[p[1]] = [int(v) for v in p[2:]]
    ctxs = list(contexts(binary, raw))
    ok = True
    for name in sorted(want):
        got = [0, 0]
        for n, mib in ctxs:
            if n == name:
                got[0] += mib["AllocCount"]
                got[1] += mib["TotalSize"]
        good = tuple(got) == want[name]
        ok &= good
        print("%s %s: want count=%d bytes=%d, got count=%d bytes=%d"
              % ("ok" if good else "MISMATCH", name, want[name][0], want[name][1],
                 got[0], got[1]))
    for name, field, op, value in expects:
        vals = [mib[field] for n, mib in ctxs if n == name]
        good = bool(vals) and all(OPS[op](v, value) for v in vals)
        ok &= good
        print("%s %s %s %s %d: got %s" % ("ok" if good else "MISMATCH", name,
                                          field, op, value, vals))
    for name, values in sorted(hists.items()):
        mibs = [mib for n, mib in ctxs if n == name]
        got = None
        if len(mibs) == 1:
            m = mibs[0]
            got = [int(v) for v in str(m.get("AccessHistogramValues", "")).split()]
            if m.get("AccessHistogramSize", 0) != len(got):
                got = None
        good = got == values
        ok &= good
        print("%s histogram %s: want %s, got %s" % ("ok" if good else "MISMATCH",
                                                   name, values, got))
    return ok


def reader_hist(convert, raw, files):
    """Histograms as our reader decodes them (memprof-convert --to-text)."""
    out = subprocess.run([convert, "--to-text", raw], check=True,
                         capture_output=True, text=True).stdout
    got, cur = [], None
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == "mib":
            cur = []
            got.append(cur)
        elif p and p[0] == "histogram" and cur is not None:
            cur.extend(int(v) for v in p[1:])
    ok = True
    for path in files:
        for line in open(path):
            p = line.split()
            if len(p) > 2 and p[0] == "hist":
                values = [int(v) for v in p[2:]]
                good = values in got
                ok &= good
                print("%s reader histogram %s %s" % ("ok" if good else "MISMATCH",
                                                     p[1], values))
    return ok


def natural(path):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path)]


def series(binary, names, raws):
    ok, prev = True, None
    for raw in sorted(raws, key=natural):
        t = totals(binary, raw)
        cur = [t.get(n, (0, 0)) for n in names]
        line = " ".join("%s=%d/%d" % (n, c, b) for n, (c, b) in zip(names, cur))
        if prev and any(c < pc or b < pb for (c, b), (pc, pb) in zip(cur, prev)):
            ok = False
            line += " DECREASED"
        print(line)
        prev = cur
    return ok


def main():
    mode = sys.argv[1]
    if mode == "truth":
        return truth(sys.argv[2], sys.argv[3], sys.argv[4:])
    if mode == "reader-hist":
        return reader_hist(sys.argv[2], sys.argv[3], sys.argv[4:])
    if mode == "series":
        return series(sys.argv[2], sys.argv[3].split(","), sys.argv[4:])
    if mode == "stacks":
        for names in sorted("<-".join(n) for n, _ in contexts(sys.argv[2], sys.argv[3], True)):
            print(names)
        return True
    if mode == "stack-totals":
        for line in sorted("%s %d %d" % ("<-".join(n), m["AllocCount"], m["TotalSize"])
                           for n, m in contexts(sys.argv[2], sys.argv[3], True)):
            print(line)
        return True
    if mode == "sites":
        for name, (c, b) in sorted(totals(sys.argv[2], sys.argv[3]).items()):
            print(name, c, b)
        return True
    sys.exit("check-raw.py: unknown mode %r" % mode)


sys.exit(0 if main() else 1)
