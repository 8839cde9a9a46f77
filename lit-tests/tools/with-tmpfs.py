#!/usr/bin/env python3
"""Runs a command with a small tmpfs mounted on a new directory, for the
full-disk tests (T13, R15), and unmounts it whatever happens.

    with-tmpfs.py DIR SIZE COMMAND [ARG...]

DIR must not exist yet (it is created, and removed afterwards), so nothing is
ever mounted over an existing directory. The tmpfs is unmounted when the
command ends, fails or the helper is signalled (lit's timeout); the exit
status is the command's. Needs root: lit's `tmpfs-mount` feature says whether
mounting works on this machine (lit.cfg.py probes it).
"""
import os
import signal
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: with-tmpfs.py DIR SIZE COMMAND [ARG...]")
    mnt, size, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.mkdir(mnt)  # fails if it exists: never mount over an existing directory

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, stop)
    mounted = False
    try:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0755",
                        "memprof-test", mnt], check=True)
        mounted = True
        return subprocess.call(cmd)
    finally:
        if mounted:
            if subprocess.call(["umount", mnt]) != 0:
                subprocess.call(["umount", "-l", mnt])
        try:
            os.rmdir(mnt)
        except OSError:
            pass


if __name__ == "__main__":
    sys.exit(main())
