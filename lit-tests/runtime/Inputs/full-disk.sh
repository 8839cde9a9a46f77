#!/bin/bash
# R15 with a real full disk: full-disk.test runs this under with-tmpfs.py
# with a 64 KiB tmpfs at $1 as the profile directory; ./prog (dump-faults
# with 32 more contexts: dumps of about 9,000 bytes), shim.so and the runtime
# ($2) are in the current directory. Prints what each run did.
M=$1 RT=$2
files() { echo "files: $(cd "$M" && ls -A | tr '\n' ' ')"; }

# A complete profile at the final path, from an earlier run.
MEMPROF_PROFILE_FILE=$M/p.memprofraw LD_PRELOAD=$RT ./prog 0 exit 5 > truth
cp "$M/p.memprofraw" complete.memprofraw
files

# 4 KiB left: the dump's first write is short (a real one, 4,096 bytes of
# about 9,000), the next fails with ENOSPC, and nothing more is written. The
# program then removes the filler; the second dump and the exit dump fit.
head -c 4096 /dev/zero > "$M/hole"
head -c 1M /dev/zero > "$M/filler" 2> filler.err
rm "$M/hole"
echo "free: $(df -B1 --output=avail "$M" | tail -1 | tr -d ' ')"
MEMPROF_TEST_SHIM=log MEMPROF_TEST_SHIM_LOG=$PWD/log1 \
MEMPROF_TEST_FREE_AFTER_DUMP1=$M/filler \
MEMPROF_PROFILE_FILE=$M/p.memprofraw LD_PRELOAD="$PWD/shim.so $RT" \
  ./prog 2 exit 5 > truth1 2> err1
echo "status $?"
sed 's/^/log1: /' log1
sed 's/^/err1: /' err1
if cmp -s complete.memprofraw "$M/p.memprofraw"; then echo "p.memprofraw: kept"; fi
cp "$M/p.2.memprofraw" "$M/p.3.memprofraw" .
files

# The disk full to the last block: the first write fails, the only one.
rm -f "$M"/p.*
MEMPROF_PROFILE_FILE=$M/p.memprofraw LD_PRELOAD=$RT ./prog 0 exit 5 > truth
cp "$M/p.memprofraw" complete.memprofraw
head -c 1M /dev/zero > "$M/filler" 2> filler.err
echo "free: $(df -B1 --output=avail "$M" | tail -1 | tr -d ' ')"
MEMPROF_TEST_SHIM=log MEMPROF_TEST_SHIM_LOG=$PWD/log2 \
MEMPROF_PROFILE_FILE=$M/p.memprofraw LD_PRELOAD="$PWD/shim.so $RT" \
  ./prog 1 exit 5 > truth2 2> err2
echo "status $?"
sed 's/^/log2: /' log2
sed 's/^/err2: /' err2
if cmp -s complete.memprofraw "$M/p.memprofraw"; then echo "p.memprofraw: kept"; fi
files
