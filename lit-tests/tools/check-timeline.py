#!/usr/bin/env python3
"""Checks a screenshot of memprof-convert --to-timeline's SVG (Chromium's,
at the SVG's own size) against the peak the profile recorded.

  check-timeline.py SVG PNG PEAK_MS

PEAK_MS is the peak's time as the test knows it independently (the raw
profile's heap section, read by the runtime tests' own parser). The SVG's
root gives the plot area and its time scale (data-plot-left, -right, -top,
-bottom, data-t-max-ms); from them the peak must be drawn at column
left + PEAK_MS / t-max * (right - left). In the picture:
  - the red marker's column (the column with the most pixels of the peak's
    red, rgb(220,0,0), inside the plot) is there, within 2 pixels;
  - the total's line (black pixels inside the plot, away from the axes)
    reaches its highest row there, within 6 pixels (the peak's dot, 5
    pixels wide, covers the line's tip);
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
    svg, png, peak_ms = sys.argv[1], sys.argv[2], float(sys.argv[3])
    text = open(svg).read()
    root = re.search(r"<svg [^>]*>", text).group(0)

    def attr(name):
        m = re.search(name + r'="([-0-9.]+)"', root)
        if not m:
            fail("no %s on the SVG's root" % name)
        return float(m.group(1))

    left, right = attr("data-plot-left"), attr("data-plot-right")
    top, bottom = attr("data-plot-top"), attr("data-plot-bottom")
    tmax = attr("data-t-max-ms")
    want_x = left + peak_ms / tmax * (right - left)
    width, height, rows, ch = check_png.read_rows(png)

    def px(x, y):
        o = x * ch
        return tuple(rows[y][o:o + 3])

    x0, x1 = int(left) + 3, int(right) - 1
    y0, y1 = int(top), int(bottom) - 3
    red = {}
    top_black = None
    series = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            r, g, b = px(x, y)
            if r >= 200 and g <= 40 and b <= 40:
                red[x] = red.get(x, 0) + 1
            elif r <= 60 and g <= 60 and b <= 60:
                if top_black is None:
                    top_black = (x, y)
            elif (r, g, b) != (255, 255, 255) and abs(r - g) > 30:
                series += 1
    if not red:
        fail("no red marker inside the plot")
    marker_x = max(red, key=lambda x: (red[x], -x))
    print("timeline: peak %.0f ms: want column %.1f; marker at column %d (%d red "
          "pixels); the total's highest black pixel at column %s row %s; %d "
          "coloured pixels" % (peak_ms, want_x, marker_x, red[marker_x],
                               top_black and top_black[0], top_black and top_black[1],
                               series))
    if abs(marker_x - want_x) > 2:
        fail("the marker is at column %d, not %.1f" % (marker_x, want_x))
    if top_black is None or abs(top_black[0] - want_x) > 6:
        fail("the total's highest point is not at the peak")
    if series < 100:
        fail("no stacked areas drawn")
    print("timeline: ok")


if __name__ == "__main__":
    main()
