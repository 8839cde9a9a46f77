#!/bin/bash
# T13 with a real full disk: full-disk.test runs this under with-tmpfs.py
# with a 64 KiB tmpfs at $1 and the inputs in the current directory. Each
# case prints its exit status and its stderr (warnings left out), whether a
# previous output was kept, and what is on the tmpfs; the test checks that.
M=$1
report() { # NAME STATUS
  echo "$1: status $2"
  grep -v ': warning: ' "$1.err" | sed "s|^|$1: |"
}
files() { echo "files: $(cd "$M" && ls -A | tr '\n' ' ')"; }
kept() { # NAME ORIGINAL FILE
  if cmp -s "$2" "$3"; then echo "$1: kept"; else echo "$1: CHANGED"; fi
}

# The disk fills while writing: the output (95 KiB) is larger than the disk.
memprof-merge -q big.raw --profiled-binary sites -o "$M/new.profdata" 2> merge-new.err
report merge-new $?
files
cp r1.profdata "$M/old.profdata"
cp r1.profdata "$M/conv.profdata"
cp r1.yaml "$M/conv.yaml"
memprof-merge -q big.raw --profiled-binary sites -o "$M/old.profdata" 2> merge-old.err
report merge-old $?
kept merge-old r1.profdata "$M/old.profdata"
memprof-convert --to-indexed big.yaml -o "$M/conv.profdata" 2> to-indexed.err
report to-indexed $?
kept to-indexed r1.profdata "$M/conv.profdata"
memprof-convert --to-text big.profdata -o "$M/conv.yaml" 2> to-text.err
report to-text $?
kept to-text r1.yaml "$M/conv.yaml"
files

# The disk is full before the tools start: even a 1.4 KiB output fails.
head -c 1M /dev/zero > "$M/filler" 2> filler.err
memprof-merge -q r1.raw --profiled-binary sites -o "$M/old.profdata" 2> merge-full.err
report merge-full $?
kept merge-full r1.profdata "$M/old.profdata"
# Standard output on the full disk (the shell's redirection creates the
# empty file, not the tool).
memprof-convert --to-text big.profdata > "$M/stdout.yaml" 2> convert-stdout.err
report convert-stdout $?
memprof-show --format=json -n 100000 big.profdata > "$M/show.json" 2> show-stdout.err
report show-stdout $?
files

# Space freed: a merge whose output (20 KiB) fits replaces the old output
# with the bytes a merge on the real disk wrote.
rm -f "$M/filler" "$M/stdout.yaml" "$M/show.json" "$M/conv.profdata" "$M/conv.yaml"
memprof-merge -q mid.raw --profiled-binary sites -o "$M/old.profdata" 2> merge-freed.err
report merge-freed $?
if cmp -s mid.profdata "$M/old.profdata"; then echo "merge-freed: same bytes"; fi
files
