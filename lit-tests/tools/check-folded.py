#!/usr/bin/env python3
"""Reads memprof-convert --to-folded output back and checks it.

  check-folded.py FOLDED [--weight count|bytes [--truth FILE] [--show-json FILE]]

The format first: every line is "FRAME;FRAME;... WEIGHT" with a positive
integer weight and no empty frame, the lines are sorted and no stack repeats
(identical stacks are summed into one line), and nothing else is in the file.

--truth: the ground truth a test program prints, lines "site FUNCTION COUNT
BYTES" (lit-tests/memprof-show/Inputs/grow.cpp). For each, the weights of the
lines whose stack holds main directly calling FUNCTION are summed (each line
once) and compared with COUNT (--weight count) or BYTES (--weight bytes).

--show-json: memprof-show --format=json of the same profile; the sum of all
lines must equal its summary's allocations (count) or bytes.

Prints one line per check and "folded: ok" at the end; exits 1 on the first
mismatch.
"""
import argparse
import json
import re
import sys

LINE = re.compile(r"^(\S(?:.*\S)?) ([1-9][0-9]*)$")


def fail(msg):
    print("folded: error: " + msg)
    sys.exit(1)


def read_folded(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8: %s" % (path, e))
    if not text:
        fail("%s: empty" % path)
    if not text.endswith("\n"):
        fail("%s: the last line has no newline" % path)
    stacks = []
    for n, line in enumerate(text[:-1].split("\n"), 1):
        m = LINE.match(line)
        if not m:
            fail("%s:%d: not 'STACK WEIGHT': %r" % (path, n, line))
        frames = m.group(1).split(";")
        if any(not fr or fr != fr.strip() for fr in frames):
            fail("%s:%d: an empty or space-padded frame: %r" % (path, n, line))
        stacks.append((m.group(1), frames, int(m.group(2))))
    keys = [s[0].encode("utf-8") for s in stacks]
    if keys != sorted(keys):
        fail("%s: the lines are not sorted" % path)
    if len(set(keys)) != len(keys):
        fail("%s: a stack is on several lines (not summed)" % path)
    return stacks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folded")
    ap.add_argument("--weight", choices=["count", "bytes"])
    ap.add_argument("--truth")
    ap.add_argument("--show-json")
    a = ap.parse_args()
    if (a.truth or a.show_json) and not a.weight:
        ap.error("--truth and --show-json need --weight")
    stacks = read_folded(a.folded)
    print("folded: %d lines" % len(stacks))

    if a.truth:
        column = 2 if a.weight == "count" else 3
        sites = 0
        with open(a.truth) as f:
            for line in f:
                parts = line.split()
                if not parts or parts[0] != "site":
                    continue
                fn, want = parts[1], int(parts[column])
                got = sum(w for _, frames, w in stacks
                          if any(frames[i] == "main" and frames[i + 1] == fn
                                 for i in range(len(frames) - 1)))
                if got != want:
                    fail("main;%s: %d %s in the folded stacks, the program "
                         "says %d" % (fn, got, a.weight, want))
                print("folded: main;%s %d %s as the program says" %
                      (fn, got, a.weight))
                sites += 1
        if sites == 0:
            fail("%s: no 'site' lines" % a.truth)

    if a.show_json:
        with open(a.show_json) as f:
            summary = json.load(f)["summary"]
        want = summary["allocations" if a.weight == "count" else "bytes"]
        got = sum(w for _, _, w in stacks)
        if got != want:
            fail("the lines sum to %d %s, memprof-show's summary says %d" %
                 (got, a.weight, want))
        print("folded: total %d %s as memprof-show says" % (got, a.weight))
    print("folded: ok")


if __name__ == "__main__":
    main()
