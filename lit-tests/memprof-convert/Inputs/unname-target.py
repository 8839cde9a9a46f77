#!/usr/bin/env python3
"""unname-target.py IN OUT VALUE: copies LLVM counters text IN to OUT with the
first indirect-call target replaced by "** External Symbol **", preceded by
the comment "# memprof: value VALUE" that memprof-convert reads (as
--round-trip writes it for a target the profile cannot name)."""
import sys

src, dst, value = sys.argv[1:]
lines = open(src).read().split("\n")
i = lines.index("# ValueKind = IPVK_IndirectCallTarget:")
for j in range(i + 1, len(lines)):
    l = lines[j]
    if not l.startswith("#") and ":" in l and not l.split(":")[0].isdigit():
        count = l.rsplit(":", 1)[1]
        lines[j:j + 1] = ["# memprof: value " + value,
                          "** External Symbol **:" + count]
        break
else:
    sys.exit("no named indirect-call target in " + src)
open(dst, "w").write("\n".join(lines))
