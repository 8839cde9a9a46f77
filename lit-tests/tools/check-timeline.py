#!/usr/bin/env python3
"""Checks a screenshot of memprof-convert --to-timeline's SVG (Chromium's,
at the SVG's own size) against the peak the profile recorded.

  check-timeline.py SVG PNG PEAK_MS PEAK_BYTES
  check-timeline.py SVG PNG @FILE      (FILE holds "PEAK_MS PEAK_BYTES")

PEAK_MS and PEAK_BYTES are the peak's time and total as the test knows them
independently (the raw profile's heap section, read by the runtime tests'
own parser). The SVG's root gives the plot area and its scales
(data-plot-left, -right, -top, -bottom, data-t-max-ms, data-y-max-bytes);
from them the peak lies at column left + PEAK_MS / t-max * (right - left)
and row bottom - PEAK_BYTES / y-max * (bottom - top). In the picture:
  - the red marker's column (the column with the most pixels of the peak's
    red, rgb(220,0,0), inside the plot) is there, within 2 pixels;
  - the red dot is there: at least 20 red pixels within 6 of that point;
  - the total's line (black pixels inside the plot, away from the axes)
    never rises above the peak's row (by more than 2 pixels), and reaches
    it (within 2 pixels);
  - the stacked areas are drawn (some pixels of the series' colours).
Prints what it found and "timeline: ok"; exits 1 when a check fails."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "check_png", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-png.py"))
check_png = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_png)


def fail(msg):
    print("timeline: error: " + msg)
    sys.exit(1)


def main():
    svg, png = sys.argv[1], sys.argv[2]
    if sys.argv[3].startswith("@"):
        peak_ms, peak_bytes = map(float, open(sys.argv[3][1:]).read().split()[:2])
    else:
        peak_ms, peak_bytes = float(sys.argv[3]), float(sys.argv[4])
    text = open(svg).read()
    root = re.search(r"<svg [^>]*>", text).group(0)

    def attr(name):
        m = re.search(name + r'="([-0-9.]+)"', root)
        if not m:
            fail("no %s on the SVG's root" % name)
        return float(m.group(1))

    left, right = attr("data-plot-left"), attr("data-plot-right")
    top, bottom = attr("data-plot-top"), attr("data-plot-bottom")
    tmax, ymax = attr("data-t-max-ms"), attr("data-y-max-bytes")
    want_x = left + peak_ms / tmax * (right - left)
    want_y = bottom - peak_bytes / ymax * (bottom - top)
    width, height, rows, ch = check_png.read_rows(png)

    def px(x, y):
        o = x * ch
        return tuple(rows[y][o:o + 3])

    x0, x1 = int(left) + 3, int(right) - 1
    y0, y1 = int(top), int(bottom) - 3
    red = {}
    dot = 0
    top_black = None
    series = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            r, g, b = px(x, y)
            if r >= 200 and g <= 40 and b <= 40:
                red[x] = red.get(x, 0) + 1
                if (x - want_x) ** 2 + (y - want_y) ** 2 <= 36:
                    dot += 1
            elif r <= 60 and g <= 60 and b <= 60:
                if top_black is None or y < top_black[1]:
                    top_black = (x, y)
            elif (r, g, b) != (255, 255, 255) and abs(r - g) > 30:
                series += 1
    if not red:
        fail("no red marker inside the plot")
    marker_x = max(red, key=lambda x: (red[x], -x))
    print("timeline: peak %.0f bytes at %.0f ms: want (%.1f, %.1f); marker at "
          "column %d (%d red pixels), %d red pixels at the point; the total's "
          "highest black pixel at row %s; %d coloured pixels"
          % (peak_bytes, peak_ms, want_x, want_y, marker_x, red[marker_x], dot,
             top_black and top_black[1], series))
    if abs(marker_x - want_x) > 2:
        fail("the marker is at column %d, not %.1f" % (marker_x, want_x))
    if dot < 20:
        fail("no red dot at the peak")
    if top_black is None or abs(top_black[1] - want_y) > 2:
        fail("the total's line does not top out at the peak's row")
    if series < 100:
        fail("no stacked areas drawn")
    print("timeline: ok")


if __name__ == "__main__":
    main()
