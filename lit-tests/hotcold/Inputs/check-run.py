#!/usr/bin/env python3
"""check-run.py MODE OUT ERR - a run of flow/app against its allocator.

OUT is what the program printed (its own counts by path, and how many of its
blocks memprof_hotcold_is_cold found in the cold range); ERR holds the
allocator's statistics (MEMPROF_HOTCOLD=stats=1). MODE:
  hinted      every cold-path block checked was cold, no hot-path or scratch
              block was; the allocator counted cold requests exactly as the
              cold path allocated (number and bytes), not-cold and hot ones
              as the hot path and the scratch site did (SCRATCH_CLASS: the
              class the scratch site's hint names, notcold or hot), and as
              many live cold blocks as the program kept;
  ignored     MEMPROF_HOTCOLD=ignore_hints=1: the same request counts, no
              block cold, no cold block live.
Prints one line per check; exits 1 at the first that fails."""
import re
import sys


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def main():
    mode, out_path, err_path = sys.argv[1:4]
    scratch_class = sys.argv[4] if len(sys.argv) > 4 else "notcold"
    out = open(out_path).read()
    err = open(err_path).read()

    def prog(pattern):
        m = re.search(pattern, out)
        if not m:
            fail(f"the program's output has no '{pattern}'")
        return [int(x) for x in m.groups()]

    cold_allocs, cold_bytes, live = prog(r"cold_path allocs (\d+) bytes (\d+) live (\d+)")
    hot_allocs, hot_bytes = prog(r"hot_path allocs (\d+) bytes (\d+)")
    scr_allocs, scr_bytes = prog(r"scratch allocs (\d+) bytes (\d+)")
    checked_cold, cold_in, checked_hot, hot_in = prog(
        r"checked cold (\d+) in_range (\d+) hot (\d+) in_range (\d+)")

    stats = {}
    for cls, req, by in re.findall(r"memprof-hotcold: (\w+)\s+requests=(\d+) bytes=(\d+)", err):
        stats[cls] = (int(req), int(by))
    m = re.search(r"memprof-hotcold: cold live_blocks=(\d+) live_bytes=(\d+) fallbacks=(\d+)", err)
    if not stats or not m:
        fail("no statistics from the allocator (MEMPROF_HOTCOLD=stats=1)")
    live_blocks, fallbacks = int(m.group(1)), int(m.group(3))

    want = {"unhinted": (0, 0), "cold": (cold_allocs, cold_bytes), "notcold": (hot_allocs, hot_bytes),
            "hot": (0, 0), "ambiguous": (0, 0), "other": (0, 0)}
    s = want[scratch_class]
    want[scratch_class] = (s[0] + scr_allocs, s[1] + scr_bytes)
    for cls, (req, by) in sorted(want.items()):
        got = stats.get(cls)
        if got != (req, by):
            fail(f"{cls}: the allocator counted {got}, the program allocated {(req, by)}")
        print(f"ok {cls} requests={req} bytes={by}")
    if fallbacks:
        fail(f"{fallbacks} cold requests fell back")
    if checked_cold == 0 or checked_hot == 0:
        fail("nothing was checked")
    if mode == "hinted":
        if cold_in != checked_cold:
            fail(f"{checked_cold - cold_in} of {checked_cold} cold-path blocks outside the cold range")
        if hot_in:
            fail(f"{hot_in} of {checked_hot} hot blocks in the cold range")
        if live_blocks != live:
            fail(f"the allocator has {live_blocks} cold blocks live, the program kept {live}")
        print(f"ok placed: {checked_cold} cold-path blocks cold, {checked_hot} hot blocks not; {live} live cold")
    elif mode == "ignored":
        if cold_in or hot_in or live_blocks:
            fail(f"hints ignored, yet {cold_in + hot_in} blocks cold, {live_blocks} cold live")
        print(f"ok ignored: none of {checked_cold + checked_hot} blocks cold")
    else:
        fail("MODE is hinted or ignored")
    return 0


if __name__ == "__main__":
    sys.exit(main())
