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
# Heap sections (docs/heap-data.md) written by mkheap.py into clang's raw
# profiles: an exit dump, two dumps of one process; and indexed profiles
# with a heap table (two runs, and one weighted).
python3 "$tools/mkheap.py" add s1.raw h1.raw h1.json --seed 1 --exit
python3 "$tools/mkheap.py" add s1.raw h1b.raw h1b.json --seed 3
python3 "$tools/mkheap.py" add s2.raw h2.raw h2.json --seed 2
python3 "$tools/mkheap.py" concat h11.raw h11.json h1.raw h1.json h1b.raw h1b.json
cp h1.raw "$here/corpus/raw/heap-exit.raw"
cp h11.raw "$here/corpus/raw/heap-two-dumps.raw"
mkdir -p "$here/corpus/names"
"$merge" -q s2.raw --profiled-binary sites -o "$here/corpus/names/sites.profdata"
"$merge" -q h1.raw h2.raw --profiled-binary sites -o "$here/corpus/names/heap.profdata"
"$merge" -q --weighted-input 3,h1.raw --profiled-binary sites -o "$here/corpus/names/heap-weighted.profdata"
"$merge" -q --memprof-version=4 in.raw --profiled-binary inline -o "$here/corpus/names/inline-v4.profdata"
# A profile whose names extension gives module paths (FlagModulePaths):
# memprof's runtime, preloaded, records them (clang's does not).
clang++-22 -g -fno-omit-frame-pointer -O0 \
  "$here/../lit-tests/memprof-show/Inputs/grow.cpp" -o grow
LD_PRELOAD="$(dirname "$merge")/../lib/libmemprof_rt.so" MEMPROF_PROFILE_FILE=g.raw ./grow 50 >/dev/null
"$merge" -q --no-system-dirs g.raw -o "$here/corpus/names/module-paths.profdata"
# A profile whose names extension types its contexts (FlagTypes): new T,
# new T[n] (DWARF call sites) and std::vector growth (allocator frames).
clang++-22 -g -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
  "$here/../lit-tests/memprof-show/Inputs/types.cpp" -o types
LD_PRELOAD="$(dirname "$merge")/../lib/libmemprof_rt.so" MEMPROF_PROFILE_FILE=t.raw ./types 3 >/dev/null
"$merge" -q --no-system-dirs t.raw -o "$here/corpus/names/types.profdata"
# C++ names long enough that the string table is deflated.
clang++-22 -fmemory-profile -gmlt -fdebug-info-for-profiling -fno-omit-frame-pointer -O1 \
  "$here/../examples/wordfreq/wordfreq.cpp" -o wordfreq
python3 "$tools/run-profiled.py" wf.raw ./wordfreq 1 >/dev/null
"$merge" -q wf.raw --profiled-binary wordfreq --debug-dir /usr/lib/x86_64-linux-gnu \
  -o "$here/corpus/names/wordfreq-zlib.profdata"
# Raw InstrProf (.profraw) seeds: clang-22's runtime in each kind of
# instrumentation (IR, front end, CS, block and function-entry coverage,
# temporal, entry-first, loop entries, value profiling with indirect calls,
# memcpy and vtables, MC/DC, uncompressed names, two translation units),
# clang-14's raw version 8 when installed, two profiles in one file, and
# hostile variants of the IR file (truncated; counts, sizes and offsets
# patched huge or wrong).
cat > pt.c <<'EOF'
#include <stdlib.h>
#include <string.h>
static int add1(int x) { return x + 1; }
static int dbl(int x) { return x * 2; }
typedef int (*fn_t)(int);
__attribute__((noinline)) int apply(fn_t f, int v) { return f(v); }
__attribute__((noinline)) void copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }
__attribute__((noinline)) int never(int x) { return x ? x * 3 : 7; }
int other(int);
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  fn_t fns[2] = {add1, dbl};
  char src[256], dst[256];
  memset(src, 'a', sizeof src);
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += apply(fns[i % 2], i);
    copy(dst, src, (size_t)(i * 7 % 200) + 1);
    if (sum > 1000 && n > 100) sum += never(i);
  }
  volatile long sink = sum + other(n);
  (void)sink;
  return 0;
}
EOF
echo 'int other(int n) { return n > 2 ? n - 1 : 0; }' > pt2.c
cat > pvt.cpp <<'EOF'
#include <cstdlib>
struct Shape { virtual int area(int) const = 0; virtual ~Shape() {} };
struct Sq : Shape { int area(int x) const override { return x * x; } };
struct Tri : Shape { int area(int x) const override { return x * x / 2; } };
__attribute__((noinline)) int use(const Shape *s, int i) { return s->area(i); }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  Shape *shapes[2] = {new Sq, new Tri};
  long sum = 0;
  for (int i = 0; i < n; ++i) sum += use(shapes[i % 3 == 0], i);
  delete shapes[0]; delete shapes[1];
  volatile long sink = sum;
  (void)sink;
  return 0;
}
EOF
cat > pmcdc.c <<'EOF'
#include <stdlib.h>
int check(int a, int b, int c) { return (a && b) || c; }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3, s = 0;
  for (int i = 0; i < n; ++i) s += check(i & 1, i & 2, i > 3);
  volatile int sink = s;
  (void)sink;
  return 0;
}
EOF
profraw() { # name compiler flags... : builds, runs with argument 5
  local name=$1 cc=$2; shift 2
  "$cc" -O1 "$@" -o "p-$name"
  LLVM_PROFILE_FILE="$name.profraw" "./p-$name" 5
}
profraw ir clang-22 -fprofile-generate pt.c pt2.c
profraw fe clang-22 -fprofile-instr-generate pt.c pt2.c
llvm-profdata-22 merge ir.profraw -o ir.profdata
profraw cs clang-22 -fprofile-use=ir.profdata -fcs-profile-generate pt.c pt2.c
profraw block clang-22 -fprofile-generate -mllvm -pgo-block-coverage pt.c pt2.c
profraw entry-coverage clang-22 -fprofile-generate -mllvm -pgo-function-entry-coverage pt.c pt2.c
profraw temporal clang-22 -fprofile-generate -mllvm -pgo-temporal-instrumentation pt.c pt2.c
profraw temporal-block clang-22 -fprofile-generate -mllvm -pgo-temporal-instrumentation \
  -mllvm -pgo-block-coverage pt.c pt2.c
profraw entry-first clang-22 -fprofile-generate -mllvm -pgo-instrument-entry pt.c pt2.c
profraw loop-entries clang-22 -fprofile-generate -mllvm -pgo-instrument-loop-entries pt.c pt2.c
profraw plain-names clang-22 -fprofile-generate -mllvm -enable-name-compression=false pt.c pt2.c
profraw vtable clang++-22 -fprofile-generate -mllvm -enable-vtable-value-profiling pvt.cpp
profraw mcdc clang-22 -fprofile-instr-generate -fcoverage-mapping -fcoverage-mcdc pmcdc.c
if command -v clang-14 >/dev/null; then
  profraw v8-clang14 clang-14 -fprofile-generate pt.c pt2.c
fi
mkdir -p "$here/corpus/profraw"
cp ./*.profraw "$here/corpus/profraw/"
python3 - "$here/corpus/profraw" <<'EOF'
import hashlib, struct, sys
out = sys.argv[1]
ir = open('ir.profraw', 'rb').read()
h = struct.unpack_from('<16Q', ir)
ids, ndata, ncnt, names = h[2], h[3], h[5], h[9]
data = 128 + ids
cnts = data + 64 * ndata + h[4]
namesat = cnts + 8 * ncnt + h[6] + h[7] + h[8]
values = namesat + names + (-names % 8) + 24 * h[13] + h[14] + (-h[14] % 8)
def write(name, b, prefix='hostile-'):
    open(f'{out}/{prefix}{name}.profraw', 'wb').write(bytes(b))
def patched(fmt, off, value):
    b = bytearray(ir)
    struct.pack_into(fmt, b, off, value)
    return b
write('truncated-header', ir[:100])
write('truncated-values', ir[:-8])
write('truncated-names', ir[:namesat + 3])
write('numdata-huge', patched('<Q', 0x18, 1 << 58))
write('numcounters-huge', patched('<Q', 0x28, 1 << 61))
write('namessize-huge', patched('<Q', 0x48, (1 << 64) - 8))
write('padding-huge', patched('<Q', 0x30, (1 << 64) - 16))
write('counter-huge', patched('<Q', cnts, 1 << 60))
write('record-numcounters-huge', patched('<I', data + 48, 0xffffffff))
write('record-numcounters-zero', patched('<I', data + 48, 0))
write('counterptr-negative', patched('<q', data + 16, -(1 << 40)))
write('nameref-unknown', patched('<Q', data, 0x1234))
write('binid-len-huge', patched('<Q', 128, (1 << 64) - 1))
write('binid-len-zero', patched('<Q', 128, 0))
write('names-len-huge', patched('<B', namesat, 0xff))
# A names length of 11 ULEB bytes (LLVM's decoder then shifts by 70).
write('names-uleb-overlong', ir[:namesat] + b'\x80' * 11 + ir[namesat + 11:])
write('value-totalsize-huge', patched('<I', values, 0x7ffffff8))
write('value-totalsize-zero', patched('<I', values, 0))
write('value-kinds-huge', patched('<I', values + 4, 0xffffffff))
write('value-sites-huge', patched('<I', values + 12, 0xffff))
write('two-profiles-misaligned', ir + b'\0\0\0' + ir)
write('two-profiles', ir + b'\0' * 16 + ir, prefix='')
# NumData * 64 wraps around to the real data size.
write('numdata-wrap', patched('<Q', 0x18, (1 << 58) + ndata))
# A byte-coverage temporal record too short for its 8-byte timestamp.
tb = bytearray(open('temporal-block.profraw', 'rb').read())
th = struct.unpack_from('<16Q', tb)
struct.pack_into('<I', tb, 128 + th[2] + 64 * (th[3] - 1) + 48, 2)
write('temporal-block-short', tb)
# A vtable whose address range wraps past 2^64.
vt = bytearray(open('vtable.profraw', 'rb').read())
vh = struct.unpack_from('<16Q', vt)
vcnt = 128 + vh[2] + 64 * vh[3] + vh[4]
vnames = vcnt + 8 * vh[5] + vh[6] + vh[7] + vh[8]
vtab = vnames + vh[9] + (-vh[9] % 8)
struct.pack_into('<QI', vt, vtab + 8, (1 << 64) - 8, 64)
write('vtable-wrap', vt)
# One record whose plain names blob claims 32 MiB.
md5lo = lambda s: struct.unpack('<Q', hashlib.md5(s).digest()[:8])[0]
names = b'\xff\xff\xff\x0f\x00f'
write('names-len-32mb',
      struct.pack('<16Q', 0xFF6C70726F667281, 10 | 1 << 56, 0, 1, 0, 1, 0, 0, 0,
                  len(names), (1 << 64) - 0x1000, 0, 0, 0, 0, 2) +
      struct.pack('<QQqqQQIHHHHI', md5lo(b'f'), 0, -0x1000, 0, 0, 0, 1, 0, 0,
                  0, 0, 0) +
      struct.pack('<Q', 1) + names + b'\0' * (-len(names) % 8))
EOF
# Indexed profiles with counters, written by llvm-profdata-22 from those raw
# files: IR with value data and binary ids, CS (a second summary), front end,
# temporal traces, MC/DC bitmaps, vtable names, and counters with MemProf.
llvm-profdata-22 merge cs.profraw ir.profdata -o cs.profdata
llvm-profdata-22 merge fe.profraw -o fe.profdata
llvm-profdata-22 merge temporal.profraw temporal.profraw -o temporal.profdata
llvm-profdata-22 merge mcdc.profraw -o mcdc.profdata
llvm-profdata-22 merge --keep-vtable-symbols vtable.profraw -o vtable.profdata
clang++-22 -fprofile-generate -fmemory-profile -gmlt -fdebug-info-for-profiling \
  -fno-omit-frame-pointer -O0 "$here/../lit-tests/memprof-merge/Inputs/sites.cpp" -o both
LLVM_PROFILE_FILE=both.profraw python3 "$tools/run-profiled.py" both.raw ./both 1 >/dev/null
llvm-profdata-22 merge both.profraw both.raw --profiled-binary both -o both.profdata
for f in ir cs fe temporal mcdc vtable both; do
  cp $f.profdata "$here/corpus/indexed/counters-$f.profdata"
done
# LLVM's counters text of those profiles (vtables named), and hostile texts.
mkdir -p "$here/corpus/proftext"
for f in ir cs fe temporal mcdc vtable both; do
  llvm-profdata-22 merge --text --keep-vtable-symbols $f.profdata \
    -o "$here/corpus/proftext/$f.proftext"
done
python3 - "$here/corpus/proftext" <<'EOF'
import sys
out = sys.argv[1]
ir = open(f'{out}/ir.proftext').read()
def write(name, text):
    open(f'{out}/hostile-{name}.proftext', 'w', newline='').write(text)
write('counters-huge', ':ir\nf\n1\n18446744073709551615\n1\n')
write('counters-overflow', ':ir\nf\n1\n99999999999999999999999\n')
write('bitmap-huge', ':ir\nf\n1\n1\n1\n$18446744073709551615\n0x1\n')
write('bitmap-300', ':ir\nf\n1\n1\n1\n$300\n' + '0x1\n' * 300)
write('kinds-huge', ':ir\nf\n1\n1\n1\n3\n0\n4294967295\n')
write('values-huge', ':ir\nf\n1\n1\n1\n1\n1\n1\n4294967295\n9:1\n')
write('kind-twice', ':ir\nf\n1\n1\n1\n2\n1\n1\n1\n8:1\n1\n1\n1\n9:1\n')
write('traces-huge', ':temporal_prof_traces\n4294967295\n5\n1\nf,g\n')
write('bad-header', ':irr\n' + ir)
write('crlf', ir.replace('\n', '\r\n'))
write('nul', ir[:len(ir) // 2] + '\0' + ir[len(ir) // 2:])
write('truncated', ir[:len(ir) * 2 // 3])
write('comments', '# memprof: variant 0xzz\n# memprof: binary id 0g\n' + ir)
write('value-comment', ':ir\nf\n1\n1\n1\n1\n0\n1\n1\n# memprof: value x\ng:1\n')
EOF
# The symbolizer's seeds are tiny ELF files rather than profiles.
"$here/make-elf-corpus.sh"
# The .eh_frame rule decoder's seeds: small images built by a script.
python3 "$here/make-cfi-corpus.py" "$here/corpus/cfi"
echo "corpora written to $here/corpus"
