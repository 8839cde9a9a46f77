#!/usr/bin/env bash
# Regenerates the seed corpora from real profiles: raw profiles written by
# clang-22's -fmemory-profile runtime (v5, plus v4/v3 re-encodings and a
# two-dump file) and indexed profiles written by llvm-profdata-22 (V2-V4).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tools=$here/../lit-tests/tools
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
clang++-22 -fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O0 \
  "$here/../lit-tests/memprof-merge/Inputs/sites.cpp" -o sites
python3 "$tools/run-profiled.py" s1.raw ./sites 1 >/dev/null
python3 "$tools/run-profiled.py" s2.raw ./sites 2 >/dev/null
python3 "$tools/mkraw.py" reencode s1.raw s1-v4.raw 4
python3 "$tools/mkraw.py" reencode s1.raw s1-v3.raw 3
python3 "$tools/mkraw.py" concat two.raw s1.raw s1.raw
mkdir -p "$here/corpus/raw" "$here/corpus/indexed"
cp s1.raw s2.raw s1-v4.raw s1-v3.raw two.raw "$here/corpus/raw/"
for v in 2 3 4; do
  llvm-profdata-22 merge --memprof-version=$v s2.raw --profiled-binary sites -o v$v.profdata
  llvm-profdata-22 merge --memprof-version=$v --memprof-full-schema s2.raw --profiled-binary sites -o v$v-full.profdata
done
cp v*.profdata "$here/corpus/indexed/"
# Indexed profiles with memprof's names extension (docs/names-extension.md),
# written by memprof-merge from $MEMPROF_BIN (default: build/bin).
merge=${MEMPROF_BIN:-$here/../build/bin}/memprof-merge
clang++-22 -fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O0 \
  "$here/../lit-tests/memprof-merge/Inputs/inline.cpp" -o inline
python3 "$tools/run-profiled.py" in.raw ./inline 3 >/dev/null
mkdir -p "$here/corpus/names"
"$merge" -q s2.raw --profiled-binary sites -o "$here/corpus/names/sites.profdata"
"$merge" -q --memprof-version=4 in.raw --profiled-binary inline -o "$here/corpus/names/inline-v4.profdata"
# C++ names long enough that the string table is deflated.
clang++-22 -fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O1 \
  "$here/../examples/wordfreq/wordfreq.cpp" -o wordfreq
python3 "$tools/run-profiled.py" wf.raw ./wordfreq 1 >/dev/null
"$merge" -q wf.raw --profiled-binary wordfreq --debug-dir /usr/lib/x86_64-linux-gnu \
  -o "$here/corpus/names/wordfreq-zlib.profdata"
# The symbolizer's seeds are tiny ELF files rather than profiles.
"$here/make-elf-corpus.sh"
echo "corpora written to $here/corpus"
