#!/usr/bin/env bash
# leveldb's db_bench for the benchmarks, from Debian's leveldb source package
# (leveldb 1.23): fetches the package into WORK/leveldb/src unless it is
# there, unpacks its orig tarball (unpatched: Debian's patches are about
# the shared library, the soname and the test suite, none of which db_bench
# uses) and builds db_bench three ways with clang-22, CMake and Ninja,
# -O2 -g -fno-omit-frame-pointer -DNDEBUG, the leveldb library static and
# linked into db_bench:
#   plain            no profiling
#   fmemory-profile  clang-22's own -fmemory-profile (compile and link:
#                    clang's MemProf runtime linked in)
#   memprof          our pass and runtime, the flags `pkg-config --cflags
#                    --libs memprof` gives (docs/instrument.md) in CMake's
#                    C/C++ and executable linker flags: the pass in every
#                    file, memprof_rt.o linked whole into db_bench
# and prints one line per build, "KIND PATH-TO-db_bench", then
# "runtime PATH-TO-libmemprof_rt.a" (the runtime linked into the memprof
# build, whose functions are not the program's). Idempotent: a build
# is remade only when its stamp (tarball, flags, compiler, and for memprof
# the plugin's checksum) changes, and the memprof one relinked when the
# runtime's object changed. Installs what it needs
# from Debian (cmake, ninja, pkg-config, clang-22, googletest's headers and libraries,
# which db_bench's helper util/testutil.h includes, and through deb-src.sh a
# deb-src entry for bookworm main).
#
#   bench/leveldb-source.sh WORK
#
# Environment:
#   MEMPROF_BENCH_BUILD   the memprof build whose plugin and runtime the memprof
#                         kind uses (default ROOT/build-bench, configured and
#                         its MemProfInstrument, memprof_rt and memprof_rt_object
#                         targets built here as a Release build)
#   MEMPROF_PREFIX        instead, an installed memprof (cmake --install): its
#                         CMake package, -DCMAKE_PROJECT_INCLUDE=
#                         PREFIX/lib/cmake/MemProf/MemProfInstrumentAll.cmake
#
# leveldb's optional dependencies are off in every build, whatever the
# machine has (-DHAVE_SNAPPY=OFF -DHAVE_CRC32C=OFF -DHAVE_TCMALLOC=OFF):
# tcmalloc would replace the malloc the profilers intercept, and snappy
# would make the workload depend on what is installed.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 WORK" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$1"
WORK=$(cd "$1" && pwd)/leveldb
BUILD=${MEMPROF_BENCH_BUILD:-$ROOT/build-bench}
log() { printf 'leveldb-source: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# --- what the builds need, from Debian ----------------------------------------
need=()
for p in cmake ninja-build pkg-config clang-22 libclang-rt-22-dev libgtest-dev libgmock-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi


# --- the source ---------------------------------------------------------------
TARBALL=$(bash "$ROOT/bench/deb-src.sh" leveldb "$WORK/src")
SRC=$WORK/leveldb-src
if [ ! -s "$SRC/benchmarks/db_bench.cc" ] || [ "$(cat "$WORK/src.stamp" 2>/dev/null)" != "$(basename "$TARBALL")" ]; then
  rm -rf "$SRC" "$WORK/src.stamp"
  mkdir -p "$SRC"
  tar -xzf "$TARBALL" -C "$SRC" --strip-components=1
  basename "$TARBALL" >"$WORK/src.stamp"
fi

# --- our pass and runtime -------------------------------------------------------
# From build-bench's tree through its memprof.pc (pkg-config, libdir and
# includedir pointed at the tree), in CMAKE_C(XX)_FLAGS and
# CMAKE_EXE_LINKER_FLAGS as docs/instrument.md says for LDFLAGS-style use:
# only the plugin and the runtime need building, not the tools an install
# would need. With MEMPROF_PREFIX, an installed memprof's CMake package
# instead (MemProfInstrumentAll.cmake, as bench/jsoncpp-bench.sh does).
if [ -n "${MEMPROF_PREFIX:-}" ]; then
  INCLUDE_ALL=$MEMPROF_PREFIX/lib/cmake/MemProf/MemProfInstrumentAll.cmake
  [ -e "$INCLUDE_ALL" ] || die "no $INCLUDE_ALL"
  MEMPROF_ARGS=(-DCMAKE_PROJECT_INCLUDE="$INCLUDE_ALL")
  MEMPROF_LIB=$MEMPROF_PREFIX/lib
  MEMPROF_CFLAGS=""
else
  [ -e "$BUILD/build.ninja" ] ||
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  CCACHE_NOHASHDIR=true nice ninja -j2 -C "$BUILD" MemProfInstrument memprof_rt \
    memprof_rt_object >&2
  PC=(pkg-config --define-variable=libdir="$BUILD/lib"
      --define-variable=includedir="$ROOT/include" "$BUILD/memprof.pc")
  MEMPROF_CFLAGS=$("${PC[@]}" --cflags)
  MEMPROF_ARGS=(-DCMAKE_EXE_LINKER_FLAGS="$("${PC[@]}" --libs)")
  MEMPROF_LIB=$BUILD/lib
fi

# --- the three builds ---------------------------------------------------------
FLAGS="-O2 -g -fno-omit-frame-pointer -DNDEBUG"
COMMON=(-G Ninja -DCMAKE_BUILD_TYPE= -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
        -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=ON -DLEVELDB_INSTALL=OFF
        -DBUILD_SHARED_LIBS=OFF -DHAVE_SNAPPY=OFF -DHAVE_CRC32C=OFF -DHAVE_TCMALLOC=OFF)
CLANG_VERSION=$(clang-22 --version | head -1)
build() { # KIND STAMP CMAKE-ARGS...: WORK/build-KIND/db_bench, remade when STAMP changes
  local K=$1 S=$2 B=$WORK/build-$1
  shift 2
  if [ -x "$B/db_bench" ] && [ "$(cat "$WORK/$K.stamp" 2>/dev/null)" = "$S" ]; then
    return
  fi
  log "building db_bench ($K)"
  rm -rf "$B" "$WORK/$K.stamp"
  cmake -S "$SRC" -B "$B" "${COMMON[@]}" "$@" >"$WORK/$K-cmake.log" 2>&1 ||
    die "$K: cmake failed (see $WORK/$K-cmake.log)"
  nice ninja -j2 -C "$B" db_bench >"$WORK/$K-ninja.log" 2>&1 ||
    die "$K: build failed (see $WORK/$K-ninja.log)"
  echo "$S" >"$WORK/$K.stamp"
}
BASE_STAMP="$(basename "$TARBALL") | $CLANG_VERSION | $FLAGS | ${COMMON[*]}"
build plain "$BASE_STAMP" \
  -DCMAKE_C_FLAGS="$FLAGS" -DCMAKE_CXX_FLAGS="$FLAGS"
build fmemory-profile "$BASE_STAMP | -fmemory-profile" \
  -DCMAKE_C_FLAGS="$FLAGS -fmemory-profile" -DCMAKE_CXX_FLAGS="$FLAGS -fmemory-profile" \
  -DCMAKE_EXE_LINKER_FLAGS=-fmemory-profile
# The pass and the runtime are inputs ninja does not see: the plugin's
# checksum is part of the build's stamp (a new pass recompiles everything),
# the runtime's of a stamp of its own (a new runtime only relinks db_bench).
checksum() { sha256sum "$1" | cut -c1-16; }
build memprof "$BASE_STAMP | memprof $(checksum "$MEMPROF_LIB/MemProfInstrument.so") ${MEMPROF_ARGS[*]} $MEMPROF_CFLAGS" \
  -DCMAKE_C_FLAGS="$FLAGS $MEMPROF_CFLAGS" -DCMAKE_CXX_FLAGS="$FLAGS $MEMPROF_CFLAGS" \
  "${MEMPROF_ARGS[@]}"
RT_SUM=$(checksum "$MEMPROF_LIB/memprof_rt.o")
if [ "$(cat "$WORK/memprof-runtime.stamp" 2>/dev/null)" != "$RT_SUM" ] &&
   [ "$WORK/build-memprof/db_bench" -nt "$MEMPROF_LIB/memprof_rt.o" ]; then
  echo "$RT_SUM" >"$WORK/memprof-runtime.stamp" # just built with it
elif [ "$(cat "$WORK/memprof-runtime.stamp" 2>/dev/null)" != "$RT_SUM" ]; then
  log "linking db_bench (memprof) with the current runtime"
  rm -f "$WORK/build-memprof/db_bench" "$WORK/memprof-runtime.stamp"
  nice ninja -j2 -C "$WORK/build-memprof" db_bench >"$WORK/memprof-ninja.log" 2>&1 ||
    die "memprof: link failed (see $WORK/memprof-ninja.log)"
  echo "$RT_SUM" >"$WORK/memprof-runtime.stamp"
fi

for K in plain fmemory-profile memprof; do
  echo "$K $WORK/build-$K/db_bench"
done
echo "runtime $MEMPROF_LIB/libmemprof_rt.a"
