#!/usr/bin/env python3
"""Compares memprof-convert with llvm-profdata-22 on random MemProf YAML.

  yaml-matrix.py WORKDIR FIRST_SEED LAST_SEED [--unique]

For every seed, gen-yaml.py writes a profile (odd seeds: hot/cold fields
only; even seeds: any of the 27) and, for MemProf V2, V3 and V4 with the
hot/cold and the full schema, checks:
  merge     llvm-profdata merge YAML == memprof-convert --to-indexed YAML
  show      memprof-convert --to-text == llvm-profdata show --memory
  roundtrip (with --unique) indexed -> --to-text --round-trip -> --to-indexed
            gives the same bytes, and so does llvm-profdata merge of that text
            (V2: the YAML is reproduced; its frame and call-stack tables
            follow the order of the text, as llvm-profdata's own show/merge)
Prints one line per failure and a summary per check.
"""
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
LLVM = "llvm-profdata-22"
CONV = "memprof-convert"


def run(args, out=None):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit("command failed: %s\n%s" % (" ".join(args), r.stderr.decode()))
    if out:
        with open(out, "wb") as f:
            f.write(r.stdout)
    return r.stdout


def same(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        return f.read() == g.read()


def main():
    work, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    unique = "--unique" in sys.argv
    os.makedirs(work, exist_ok=True)
    p = lambda n: os.path.join(work, n)
    counts = {}

    def record(check, ok, what):
        c = counts.setdefault(check, [0, 0])
        c[0 if ok else 1] += 1
        if not ok:
            print("FAIL %s: %s" % (check, what))

    for seed in range(first, last + 1):
        args = [sys.executable, os.path.join(HERE, "gen-yaml.py"), str(seed),
                p("in.yaml"), "--records", str(5 + 7 * seed)]
        if seed % 2 == 0:
            args.append("--full")
        if unique:
            args.append("--unique")
        run(args)
        for v in ("2", "3", "4"):
            for schema in ("hot-cold", "full"):
                what = "seed %d v%s %s" % (seed, v, schema)
                full = ["--memprof-full-schema"] if schema == "full" else []
                run([LLVM, "merge", "--memprof-version=" + v] + full +
                    [p("in.yaml"), "-o", p("llvm.profdata")])
                run([CONV, "--to-indexed", "--memprof-version=" + v,
                     "--memprof-schema=" + schema, p("in.yaml"), "-o",
                     p("ours.profdata")])
                record("merge", same(p("llvm.profdata"), p("ours.profdata")), what)
                run([LLVM, "show", "--memory", p("llvm.profdata")], p("llvm.yaml"))
                run([CONV, "--to-text", p("llvm.profdata")], p("ours.yaml"))
                record("show", same(p("llvm.yaml"), p("ours.yaml")), what)
                if not unique:
                    continue
                run([CONV, "--to-text", "--round-trip", p("ours.profdata")],
                    p("rt.yaml"))
                run([CONV, "--to-indexed", "--memprof-version=" + v,
                     "--memprof-schema=" + schema, p("rt.yaml"), "-o",
                     p("rt.profdata")])
                run([LLVM, "merge", "--memprof-version=" + v] + full +
                    [p("rt.yaml"), "-o", p("rt-llvm.profdata")])
                run([CONV, "--to-text", "--round-trip", p("rt.profdata")],
                    p("rt2.yaml"))
                record("yaml-roundtrip", same(p("rt.yaml"), p("rt2.yaml")), what)
                record("llvm-reads-ours",
                       same(p("rt.profdata"), p("rt-llvm.profdata")), what)
                if v != "2":
                    record("bytes-roundtrip",
                           same(p("rt.profdata"), p("ours.profdata")), what)
    for check in sorted(counts):
        ok, bad = counts[check]
        print("%s: %d identical, %d differ" % (check, ok, bad))


main()
