#!/usr/bin/env python3
"""Runs a program, waits for the line "ready" on its standard output, waits
DELAY seconds more, sends it SIGNAL, and waits for it to end (10 s at the
most, then SIGKILL and exit 1). Prints the program's output, then
"status: signal N" or "status: exit N".

signal-run.py [--ignored] SIGNAL DELAY PROGRAM [ARG...]
signal-run.py --exec PROGRAM [ARG...]
    only runs PROGRAM (exec) with those three signals at their defaults

The program starts with SIGINT, SIGTERM and SIGHUP at their default
dispositions (a test runner may ignore SIGINT in its workers), or with
--ignored, SIGNAL ignored, as nohup leaves SIGHUP: then the program must
still run half a second after the signal ("status: still running"), and is
killed with SIGKILL."""
import os, signal, subprocess, sys, time


def main():
    args = sys.argv[1:]
    if args[0] == "--exec":
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
        os.execvp(args[1], args[1:])
    ignored = args[0] == "--ignored"
    if ignored:
        args = args[1:]
    sig = getattr(signal, args[0])
    delay = float(args[1])

    def dispositions():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
        if ignored:
            signal.signal(sig, signal.SIG_IGN)

    p = subprocess.Popen(args[2:], stdout=subprocess.PIPE, text=True,
                         preexec_fn=dispositions)
    out = []
    for line in p.stdout:
        out.append(line)
        if line.strip() == "ready":
            break
    time.sleep(delay)
    p.send_signal(sig)
    if ignored:
        time.sleep(0.5)
        alive = p.poll() is None
        p.kill()
        rest, _ = p.communicate()
        sys.stdout.write("".join(out) + rest)
        print("status: still running" if alive else "status: ended")
        return 0
    try:
        rest, _ = p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        print("signal-run.py: the program did not end within 10 s of the signal")
        return 1
    sys.stdout.write("".join(out) + rest)
    rc = p.returncode
    print("status: signal %d" % -rc if rc < 0 else "status: exit %d" % rc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
