#!/usr/bin/env python3
"""Checks memprof-convert's counters text against llvm-profdata-22 as the
oracle, for each indexed PROFILE holding PGO counters (and perhaps MemProf):

  1. --to-text equals `llvm-profdata-22 merge --text` byte for byte (only
     for counters-only profiles; with MemProf data the text is the combined
     form, whose counters part is checked in 3);
  2. --to-indexed of llvm-profdata's text equals `llvm-profdata-22 merge` of
     that text byte for byte;
  3. --to-text --round-trip, then --to-indexed, gives PROFILE's own bytes,
     and llvm-profdata-22 reads that text as its own (the same records:
     our "# memprof:" comments are comments to it);
  4. --to-json lists every record of llvm-profdata's text (with
     --keep-vtable-symbols) with the same hash, counters, bitmap bytes and
     value sites (targets and vtables by name).

text-identity.py [--expect-lossy] PROFILE...
--expect-lossy: the profile holds what LLVM's text cannot (binary ids, a
function-entry-coverage flag, unnamed targets): llvm-profdata's own round
trip must then differ from PROFILE, so that 3 shows something."""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proftext import parse_proftext

LLVM = "llvm-profdata-22"


def run(*cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        sys.exit("FAIL: %s: status %d\n%s" % (" ".join(cmd), r.returncode,
                                              r.stderr.decode()))
    return r.stdout


def read(p):
    with open(p, "rb") as f:
        return f.read()


def check_json(js, text, prof):
    want = parse_proftext(text)
    got = {}
    keys = {0: "indirect_call_sites", 1: "memop_size_sites", 2: "vtable_sites"}
    for f in json.loads(js)["counters"]["functions"]:
        sites = {}
        for k, key in keys.items():
            if key in f:
                sites[k] = [[(str(v["size"]) if k == 1 else
                              v.get("name", "** External Symbol **"),
                              v["count"]) for v in s] for s in f[key]]
        got[(f["name"], int(f["hash"], 16))] = (
            f["counts"], f.get("bitmap_bytes", []), sites)
    if got != want:
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                sys.exit("FAIL: %s: --to-json %s: %r, llvm-profdata's text: %r"
                         % (prof, k, got.get(k), want.get(k)))
    return len(want)


def main():
    args = sys.argv[1:]
    lossy = "--expect-lossy" in args
    args = [a for a in args if a != "--expect-lossy"]
    tmp = tempfile.mkdtemp(dir=".")
    for prof in args:
        t = lambda n: os.path.join(tmp, os.path.basename(prof) + "." + n)
        llvm_text = run(LLVM, "merge", "--text", prof, "-o", "-")
        open(t("llvm.txt"), "wb").write(llvm_text)
        ours_text = run("memprof-convert", "--to-text", prof)
        combined = b"\n---\n" in ours_text
        if not combined and ours_text != llvm_text:
            open(t("ours.txt"), "wb").write(ours_text)
            sys.exit("FAIL: %s: --to-text differs from llvm-profdata merge "
                     "--text (diff %s %s)" % (prof, t("ours.txt"), t("llvm.txt")))
        run(LLVM, "merge", t("llvm.txt"), "-o", t("llvm.idx"))
        run("memprof-convert", "--to-indexed", t("llvm.txt"), "-o", t("ours.idx"))
        if read(t("llvm.idx")) != read(t("ours.idx")):
            sys.exit("FAIL: %s: --to-indexed of llvm-profdata's text differs "
                     "from llvm-profdata merge of it" % prof)
        run("memprof-convert", "--to-text", "--round-trip", prof, "-o", t("rt.txt"))
        run("memprof-convert", "--to-indexed", t("rt.txt"), "-o", t("rt.idx"))
        if read(t("rt.idx")) != read(prof):
            sys.exit("FAIL: %s: --round-trip text does not rebuild its bytes "
                     "(%s)" % (prof, t("rt.idx")))
        if not combined:
            # The same records (their order under one name may differ: the
            # round-trip text keeps the file's).
            run(LLVM, "merge", t("rt.txt"), "-o", t("llvm-rt.idx"))
            if run(LLVM, "merge", "--text", t("llvm-rt.idx"), "-o", "-") != llvm_text:
                sys.exit("FAIL: %s: llvm-profdata reads the --round-trip text "
                         "otherwise than its own" % prof)
            if lossy and read(t("llvm.idx")) == read(prof):
                sys.exit("FAIL: %s: --expect-lossy, but llvm-profdata's own "
                         "text round trip is exact" % prof)
        # JSON names vtables by the profile's vtable names, as the text does
        # with --keep-vtable-symbols.
        named = run(LLVM, "merge", "--text", "--keep-vtable-symbols", prof,
                    "-o", "-")
        n = check_json(run("memprof-convert", "--to-json", prof).decode(),
                       named.decode(), prof)
        print("ok %s: %d records%s" % (prof, n, ", combined" if combined else ""))


main()
