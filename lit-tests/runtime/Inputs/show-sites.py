#!/usr/bin/env python3
"""Checks memprof-show's JSON (--format=json, every context listed) against
the truth a test program printed, with memprof-show as the reader (it
symbolizes every module, where llvm-profdata 22 reads the main binary only).

show-sites.py REPORT TRUTH...
    TRUTH lines "site NAME COUNT BYTES", summed over the files: the contexts
    whose allocation-site frame is function NAME hold exactly COUNT
    allocations of BYTES in all. Prints "ok NAME ..." or "MISMATCH NAME ..."
    for each NAME, and exits 1 on any mismatch or when nothing was checked."""
import json, sys


def main():
    report = json.load(open(sys.argv[1]))
    if report["selection"]["contexts"] != len(report["contexts"]):
        print("MISMATCH: the report lists %d of %d contexts (raise -n)"
              % (len(report["contexts"]), report["selection"]["contexts"]))
        return False
    want = {}
    for path in sys.argv[2:]:
        for line in open(path):
            p = line.split()
            if len(p) == 4 and p[0] == "site":
                c, b = want.get(p[1], (0, 0))
                want[p[1]] = (c + int(p[2]), b + int(p[3]))
    got = {}
    for ctx in report["contexts"]:
        name = ctx["frames"][0]["function"] if ctx["frames"] else None
        c, b = got.get(name, (0, 0))
        got[name] = (c + ctx["allocations"], b + ctx["size_bytes"]["total"])
    ok = bool(want)
    for name in sorted(want):
        g = got.get(name, (0, 0))
        good = g == want[name]
        ok &= good
        print("%s %s: want count=%d bytes=%d, got count=%d bytes=%d"
              % ("ok" if good else "MISMATCH", name, want[name][0],
                 want[name][1], g[0], g[1]))
    return ok


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
