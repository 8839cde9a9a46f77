#!/usr/bin/env bash
# Regenerates the seed corpus of the symbolizer fuzz target (fuzz/corpus/elf):
# tiny x86-64 ELF files with build ids, built by clang-22 and lld-22 from
# fuzz/elf-src in the DWARF variants the symbolizer meets: -g, -gmlt with
# -fdebug-info-for-profiling, DWARF 4, optimized code with inlining, zlib-
# compressed sections, a split-DWARF skeleton, DWARF64, a shared library,
# non-PIE, and symbol tables without DWARF. Kept small (under 100 KB in all).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$here/elf-src
out=$here/corpus/elf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
prefix=(-ffile-prefix-map="$src"=/memprof/fuzz/elf-src -fdebug-compilation-dir=/memprof/fuzz/elf-src)
link=(-fuse-ld=lld -Wl,--build-id=sha1 -Wl,-z,noseparate-code -Wl,--hash-style=gnu)
cxx() { # name flags...
  local name=$1; shift
  clang++-22 "$@" "${prefix[@]}" "${link[@]}" "$src/list.cpp" -o "$name"
  install -m 644 "$name" "$out/$name.elf"
}
tiny() { # name flags... (no C library)
  local name=$1; shift
  clang-22 -nostdlib -fno-stack-protector "$@" "${prefix[@]}" "${link[@]}" "$src/tiny.c" -o "$name"
  install -m 644 "$name" "$out/$name.elf"
}
cd "$work"
cxx cxx-g -g -O0
cxx cxx-gmlt-profiling -gmlt -fdebug-info-for-profiling -O1 -fno-omit-frame-pointer
cxx cxx-dwarf4-O2 -gdwarf-4 -O2
cxx cxx-gz -g -gz=zlib -O1
cxx cxx-split -g -gsplit-dwarf -O1
tiny tiny-g -g -O1
tiny tiny-dwarf64 -g -gdwarf64 -O0
tiny tiny-static -gmlt -O0 -static
tiny tiny-shared -g -O2 -shared -fPIC
tiny tiny-nodebug -g0 -O1
echo "$(ls "$out" | wc -l) seeds, $(du -cb "$out"/* | tail -1 | cut -f1) bytes in $out"
