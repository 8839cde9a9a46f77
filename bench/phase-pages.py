#!/usr/bin/env python3
"""phase-pages.py START END OUT -- CMD... - pages a phase of a running program
references, for programs whose phases print a line when they end (db_bench).

START and END are PATTERN:N, a regular expression and which of its matching
output lines, counted from the program's first line (1 for the first), ends
the phase before the measured one, and ends the measured one. At START the program is stopped (SIGSTOP), its
referenced bits cleared (`1` into /proc/PID/clear_refs) and continued; at END
it is stopped, `Referenced:` summed over its anonymous mappings of
/proc/PID/smaps (no path, or [heap]; not the stack), and continued. Appends
one line to OUT:
    ref_pages PAGES ref_kib KIB phase_ms MS
The program's output passes through to stdout. Exits with the program's
status, or 1 if a pattern never matched. The stop comes just after the
program flushed its line: a few microseconds of its next phase may be counted.
"""
import os
import re
import signal
import subprocess
import sys
import time


def parse(spec):
    pattern, _, n = spec.rpartition(":")
    return re.compile(pattern), int(n)


def referenced_kib(pid):
    total = 0
    anon = False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line)
            if head:
                path = head.group(1).strip()
                anon = path == "" or path == "[heap]"
                continue
            if anon and line.startswith("Referenced:"):
                total += int(line.split()[1])
    return total


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    (start_re, start_n), (end_re, end_n) = parse(sys.argv[1]), parse(sys.argv[2])
    out_path, cmd = sys.argv[3], sys.argv[5:]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    seen_start = seen_end = 0
    t0 = None
    result = None
    for line in proc.stdout:
        sys.stdout.write(line)
        seen_start += bool(start_re.search(line))
        seen_end += bool(end_re.search(line))
        if t0 is None and seen_start == start_n:
            os.kill(proc.pid, signal.SIGSTOP)
            with open(f"/proc/{proc.pid}/clear_refs", "w") as f:
                f.write("1")
            t0 = time.monotonic()
            os.kill(proc.pid, signal.SIGCONT)
        elif t0 is not None and result is None and seen_end == end_n:
            os.kill(proc.pid, signal.SIGSTOP)
            ms = (time.monotonic() - t0) * 1e3
            kib = referenced_kib(proc.pid)
            os.kill(proc.pid, signal.SIGCONT)
            pages = kib * 1024 // os.sysconf("SC_PAGE_SIZE")
            result = f"ref_pages {pages} ref_kib {kib} phase_ms {ms:.1f}"
    status = proc.wait()
    if result is None:
        print("phase-pages: a pattern never matched", file=sys.stderr)
        return 1
    with open(out_path, "a") as f:
        f.write(result + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
