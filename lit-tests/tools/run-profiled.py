#!/usr/bin/env python3
"""Runs a program built with clang's -fmemory-profile and moves its raw profile
to a chosen path: run-profiled.py OUT PROGRAM [ARGS...]."""
import glob, os, subprocess, sys

out = os.path.abspath(sys.argv[1])
stem = out + ".part"
for old in glob.glob(stem + ".*"):
    os.remove(old)
env = dict(os.environ, MEMPROF_OPTIONS="log_path=" + stem)
rc = subprocess.call(sys.argv[2:], env=env)
if rc != 0:
    sys.exit("run-profiled: program exited with %d" % rc)
files = glob.glob(stem + ".*")
if len(files) != 1:
    sys.exit("run-profiled: expected one profile, found %r" % files)
os.replace(files[0], out)
