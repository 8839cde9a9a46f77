#!/usr/bin/env bash
# Regenerates fuzz/corpus/symcache: symbol cache entries written by
# memprof-merge from $MEMPROF_BIN (default: build/bin) for a program with a
# shared library (DWARF entries, with inline chains and allocated types) and
# for libc where the system has it (a symbol-table entry), plus hostile
# variants: a truncated entry, and counts and a string index that lie
# behind a valid checksum.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tools=$here/../lit-tests/tools
inputs=$here/../lit-tests/memprof-merge/Inputs
merge=${MEMPROF_BIN:-$here/../build/bin}/memprof-merge
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
flags=(-fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O0)
clang++-22 "${flags[@]}" -shared -fPIC "$inputs/libsite.cpp" -o libsite.so
clang++-22 "${flags[@]}" "$inputs/uselib.cpp" -L. -lsite -Wl,-rpath,"$work" -o uselib
python3 "$tools/run-profiled.py" lib.raw ./uselib 2 >/dev/null
clang++-22 "${flags[@]}" -O2 "$inputs/inline.cpp" -o inline
python3 "$tools/run-profiled.py" in.raw ./inline 3 >/dev/null
"$merge" -q --symbol-cache-dir cache lib.raw --profiled-binary uselib --profiled-binary libsite.so -o /dev/null
"$merge" -q --symbol-cache-dir cache in.raw --profiled-binary inline -o /dev/null
out=$here/corpus/symcache
rm -rf "$out" && mkdir -p "$out"
i=0
for f in cache/symbols-v1/llvmcache-*; do
  i=$((i + 1))
  kind=${f##*-}
  cp "$f" "$out/entry-$i-$kind.bin"
done
python3 - "$out" <<'EOPY'
import glob, os, struct, sys
out = sys.argv[1]
first = sorted(glob.glob(os.path.join(out, "entry-*")))[0]
d = open(first, "rb").read()
open(os.path.join(out, "hostile-truncated.bin"), "wb").write(d[:len(d) // 2])
idlen = struct.unpack_from("<I", d, 24)[0]
p = 48 + idlen
# The string count made huge (the harness fixes the checksum).
b = bytearray(d); struct.pack_into("<I", b, p, 0xFFFFFFFF)
open(os.path.join(out, "hostile-string-count.bin"), "wb").write(bytes(b))
# The payload size lying.
b = bytearray(d); struct.pack_into("<Q", b, 32, 1 << 62)
open(os.path.join(out, "hostile-payload-size.bin"), "wb").write(bytes(b))
EOPY
ls "$out"
