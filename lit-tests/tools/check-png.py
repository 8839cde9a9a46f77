#!/usr/bin/env python3
"""Checks that a screenshot (PNG) shows a picture, with the standard library
only: the IDAT chunks are inflated with zlib and the scanlines unfiltered.

  check-png.py PNG [--min-foreground PCT] [--min-colours N]
               [--min-blue N] [--max-blue N] [--min-warm N]

The background is the most frequent colour; --min-foreground asks that at
least PCT% of the pixels differ from it, --min-colours that the picture
holds at least N distinct colours. Blue pixels (blue at least 180 and
leading red by 80 and green by 25: the flame graph's cold palette) and warm
ones (red at least 180 and leading blue by 100: its warm palette) are
counted for --min-blue, --max-blue and --min-warm.

Prints the counts and "png: ok"; exits 1 when a check fails.
"""
import argparse
import struct
import sys
import zlib
from collections import Counter


def fail(msg):
    print("png: error: " + msg)
    sys.exit(1)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    """(width, height, a Counter of the pixels' RGB bytes)."""
    width, height, rows, channels = read_rows(path)
    pixels = Counter()
    for line in rows:
        for x in range(0, width * channels, channels):
            pixels[line[x:x + 3]] += 1
    return width, height, pixels


def read_rows(path):
    """(width, height, the unfiltered scanlines, bytes per pixel)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG file" % path)
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            fail("%s: truncated %r chunk" % (path, kind))
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None or not idat:
        fail("%s: no IHDR or IDAT" % path)
    width, height, depth, ctype, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace != 0:
        fail("%s: only 8-bit RGB/RGBA, not interlaced, is read (depth %d, "
             "colour type %d, interlace %d)" % (path, depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) != height * (stride + 1):
        fail("%s: %d bytes of scanlines, expected %d" %
             (path, len(raw), height * (stride + 1)))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        at = y * (stride + 1)
        ftype, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        if ftype == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif ftype == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif ftype == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                upleft = prev[i - channels] if i >= channels else 0
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 0xFF
        elif ftype != 0:
            fail("%s: row %d: unknown filter %d" % (path, y, ftype))
        rows.append(bytes(line))
        prev = line
    return width, height, rows, channels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("--min-foreground", type=float, default=0)
    ap.add_argument("--min-colours", type=int, default=0)
    ap.add_argument("--min-blue", type=int)
    ap.add_argument("--max-blue", type=int)
    ap.add_argument("--min-warm", type=int)
    a = ap.parse_args()
    width, height, pixels = read_png(a.png)
    total = width * height
    background, bg_count = pixels.most_common(1)[0]
    foreground = 100.0 * (total - bg_count) / total
    blue = sum(n for (r, g, b), n in pixels.items()
               if b >= 180 and b - r >= 80 and b - g >= 25)
    warm = sum(n for (r, g, b), n in pixels.items()
               if r >= 180 and r - b >= 100)
    print("png: %dx%d, background rgb%s, %.1f%% foreground, %d colours, "
          "%d blue, %d warm" % (width, height, tuple(background), foreground,
                                len(pixels), blue, warm))
    if foreground < a.min_foreground:
        fail("only %.1f%% of the pixels differ from the background (want "
             ">= %g%%)" % (foreground, a.min_foreground))
    if len(pixels) < a.min_colours:
        fail("%d colours (want >= %d)" % (len(pixels), a.min_colours))
    if a.min_blue is not None and blue < a.min_blue:
        fail("%d blue pixels (want >= %d)" % (blue, a.min_blue))
    if a.max_blue is not None and blue > a.max_blue:
        fail("%d blue pixels (want <= %d)" % (blue, a.max_blue))
    if a.min_warm is not None and warm < a.min_warm:
        fail("%d warm pixels (want >= %d)" % (warm, a.min_warm))
    print("png: ok")


if __name__ == "__main__":
    main()
