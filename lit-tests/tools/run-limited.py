#!/usr/bin/env python3
"""Runs a command with its address space capped (as `ulimit -v` does):

  run-limited.py [--status FILE] MIB COMMAND [ARG...]

The limit is RLIMIT_AS in MiB. Exits with the command's status; a command
killed by a signal exits 128 + the signal number, as a shell reports it.
With --status, writes that status to FILE ("exit N") and exits 0, so that a
test can check the exact status."""
import os, resource, subprocess, sys

args = sys.argv[1:]
status_file = None
if args[0] == "--status":
    status_file, args = args[1], args[2:]
limit = int(args[0]) << 20
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
r = subprocess.run(args[1:], preexec_fn=cap)
status = r.returncode if r.returncode >= 0 else 128 - r.returncode
if status_file:
    with open(status_file, "w") as f:
        f.write("exit %d\n" % status)
    sys.exit(0)
sys.exit(status)
