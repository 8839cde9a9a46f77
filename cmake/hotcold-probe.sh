#!/bin/sh
# hotcold-probe.sh - does this compiler, with these flags and this link, keep
# clang-22's hot/cold hints and place cold blocks apart? (docs/hot-cold.md)
#
#   sh hotcold-probe.sh WORKDIR CXX [COMPILE_FLAG...] -- [LINK_FLAG...]
#
# Compiles hotcold-probe.ll (beside this script: an allocation site reached
# by a cold and a not-cold context, as clang-22 -fmemory-profile-use leaves it
# in a ThinLTO object) with CXX -O2 and the compile flags, links it with the
# link flags (which must link libmemprof_hotcold), runs it, and says whether
# the cold context's block landed in the cold range and the other's did not.
# A link that drops the hints (no -supports-hot-cold-new, no ThinLTO, a linker
# that is not lld) builds a program that runs and places nothing: this is the
# check that catches it. memprof_use_profile(... HOT_COLD) runs it at
# configure time; with pkg-config:
#
#   sh "$(pkg-config --variable=probe memprof-hotcold)" /tmp/probe clang++-22 \
#     $(pkg-config --cflags memprof-hotcold) -- $(pkg-config --libs memprof-hotcold)
#
# Exit 0 and one line on stdout when the flow works; exit 1 and the reason on
# stderr when it does not. MEMPROF_PROBE_NO_RUN=1 (cross builds) stops after
# the link.
me=hotcold-probe
if [ $# -lt 2 ]; then
  echo "usage: sh hotcold-probe.sh WORKDIR CXX [COMPILE_FLAG...] -- [LINK_FLAG...]" >&2
  exit 2
fi
work=$1 cxx=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
ll=$here/hotcold-probe.ll
[ -f "$ll" ] || { echo "$me: error: $ll: missing (reinstall memprof)" >&2; exit 1; }
mkdir -p "$work" || { echo "$me: error: $work: cannot create the work directory" >&2; exit 1; }
# Split the arguments at "--": compile flags stay in "$@", link flags go to a
# file (one per line; flags hold no newlines).
: > "$work/link-flags"
cflags_done=0
n=$#
i=0
while [ $i -lt $n ]; do
  a=$1
  shift
  i=$((i + 1))
  if [ $cflags_done = 0 ] && [ "$a" = "--" ]; then
    cflags_done=1
  elif [ $cflags_done = 0 ]; then
    set -- "$@" "$a"
  else
    printf '%s\n' "$a" >> "$work/link-flags"
  fi
done
if ! "$cxx" -O2 "$@" -Wno-override-module -c "$ll" -o "$work/probe.o" > "$work/compile.log" 2>&1; then
  echo "$me: error: $cxx cannot compile the probe with these flags:" >&2
  sed 's/^/  /' "$work/compile.log" >&2
  exit 1
fi
# The link flags back into "$@".
set --
while IFS= read -r a; do set -- "$@" "$a"; done < "$work/link-flags"
if ! "$cxx" "$work/probe.o" -o "$work/probe" "$@" > "$work/link.log" 2>&1; then
  echo "$me: error: the link with these flags fails (the flow links with lld-22 and ThinLTO; is lld-22 installed, and the hot/cold allocator, libmemprof_hotcold?):" >&2
  sed 's/^/  /' "$work/link.log" >&2
  exit 1
fi
if [ "${MEMPROF_PROBE_NO_RUN:-}" = 1 ]; then
  echo "$me: linked (not run: MEMPROF_PROBE_NO_RUN=1)"
  exit 0
fi
MEMPROF_HOTCOLD= "$work/probe" > "$work/run.log" 2>&1
status=$?
case $status in
  0) echo "$me: the link keeps the hints: the cold context's block is cold, the other's is not"; exit 0 ;;
  1|3) echo "$me: error: the link drops the hot/cold hints silently: the cold context's block is not in the cold range (the link needs ThinLTO with lld and -Wl,-mllvm,-enable-memprof-context-disambiguation -Wl,-mllvm,-optimize-hot-cold-new -Wl,-mllvm,-supports-hot-cold-new, and libmemprof_hotcold linked)" >&2 ;;
  2) echo "$me: error: the not-cold context's block is in the cold range: the hints reach the wrong calls" >&2 ;;
  *) echo "$me: error: the probe program failed (exit $status):" >&2; sed 's/^/  /' "$work/run.log" >&2 ;;
esac
exit 1
