#!/usr/bin/env python3
"""Runs a command that must refuse its inputs cleanly and prints its error for
FileCheck: exit status exactly 1, exactly one line on stderr, starting with
"<tool>: error: ", and nothing at the output path (the argument after -o or
--output, and no temporary file beside it; a file already there from an
earlier command is removed first). Exits 1 (saying why) otherwise, or if the
command ran longer than 10 s.

  expect-error.py TOOL ARGS...     prints the stderr line on stdout
"""
import glob, os, subprocess, sys

cmd = sys.argv[1:]
tool = os.path.basename(cmd[0])
out = None
for i, a in enumerate(cmd):
    if a in ("-o", "--output") and i + 1 < len(cmd):
        out = cmd[i + 1]
    elif a.startswith("--output="):
        out = a.split("=", 1)[1]
if out is not None and os.path.isfile(out):
    os.remove(out)
try:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
except subprocess.TimeoutExpired:
    sys.exit("expect-error: %s ran over 10 s" % " ".join(cmd))
lines = p.stderr.splitlines()
problems = []
if p.returncode != 1:
    problems.append("exit status %d, not 1" % p.returncode)
if len(lines) != 1:
    problems.append("%d lines on stderr, not 1" % len(lines))
if not lines or not lines[0].startswith(tool + ": error: "):
    problems.append("stderr does not start with '%s: error: '" % tool)
if out is not None and os.path.exists(out):
    problems.append("the output %s was written" % out)
if out is not None and glob.glob(glob.escape(out) + ".tmp-*"):
    problems.append("a temporary file was left beside %s" % out)
sys.stdout.write(p.stderr)
if problems:
    sys.exit("expect-error: %s: %s" % (" ".join(cmd), "; ".join(problems)))
