#!/usr/bin/env python3
"""max-rss.py MB COMMAND [ARG...]: runs COMMAND, prints "status N" and
whether its peak resident set stayed below MB megabytes; exits 0."""
import resource, subprocess, sys

limit_mb = int(sys.argv[1])
status = subprocess.call(sys.argv[2:])
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("status %d" % status)
print("peak RSS %s %d MB" % ("below" if peak_kb < limit_mb * 1024 else "NOT below", limit_mb))
sys.stderr.write("peak RSS %d kB\n" % peak_kb)
