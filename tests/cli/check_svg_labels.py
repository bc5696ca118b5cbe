#!/usr/bin/env python3
"""No two labels of an SVG timeline overlap, and none leaves the picture.

Every <text> element's box is measured with the real advances of DejaVu Sans (read from its
TrueType file: the widest of the usual sans-serif fonts a viewer falls back on), or, where that
font is not installed, at 1 em a character (more than any of its glyphs but a few); the boxes are
its baseline-anchored extents (text-anchor start, middle or end; ascent 0.8 em, descent 0.2 em).
Tooltips (<title>) are not drawn and are not measured.

usage: check_svg_labels.py TIMELINE.svg [--min-texts N]
"""
import itertools
import os
import struct
import sys
import xml.dom.minidom

FONT_DIR = "/usr/share/fonts/truetype/dejavu"


class Font:
    """Advance widths of a TrueType font, in ems, by Unicode code point (cmap format 4)."""

    def __init__(self, path):
        data = open(path, "rb").read()
        tables = {}
        (count,) = struct.unpack(">H", data[4:6])
        for i in range(count):
            tag, _, offset, length = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
            tables[tag.decode()] = (offset, length)
        head = tables["head"][0]
        (self.units,) = struct.unpack(">H", data[head + 18:head + 20])
        hhea = tables["hhea"][0]
        (metrics,) = struct.unpack(">H", data[hhea + 34:hhea + 36])
        hmtx = tables["hmtx"][0]
        self.advances = [struct.unpack(">H", data[hmtx + 4 * i:hmtx + 4 * i + 2])[0]
                         for i in range(metrics)]
        self.glyphs = self._cmap(data, tables["cmap"][0])

    @staticmethod
    def _cmap(data, cmap):
        (count,) = struct.unpack(">H", data[cmap + 2:cmap + 4])
        for i in range(count):
            platform, encoding, offset = struct.unpack(">HHI", data[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
            at = cmap + offset
            if (platform, encoding) != (3, 1) or struct.unpack(">H", data[at:at + 2])[0] != 4:
                continue
            (segments2,) = struct.unpack(">H", data[at + 6:at + 8])
            n = segments2 // 2
            ends = struct.unpack(f">{n}H", data[at + 14:at + 14 + segments2])
            starts_at = at + 16 + segments2
            starts = struct.unpack(f">{n}H", data[starts_at:starts_at + segments2])
            deltas = struct.unpack(f">{n}h", data[starts_at + segments2:starts_at + 2 * segments2])
            ranges_at = starts_at + 2 * segments2
            ranges = struct.unpack(f">{n}H", data[ranges_at:ranges_at + segments2])
            glyphs = {}
            for s in range(n):
                for code in range(starts[s], min(ends[s], 0x2FFF) + 1):
                    if ranges[s] == 0:
                        glyph = (code + deltas[s]) & 0xFFFF
                    else:
                        where = ranges_at + 2 * s + ranges[s] + 2 * (code - starts[s])
                        (glyph,) = struct.unpack(">H", data[where:where + 2])
                        if glyph:
                            glyph = (glyph + deltas[s]) & 0xFFFF
                    glyphs[code] = glyph
            return glyphs
        raise ValueError("no Unicode BMP cmap")

    def width(self, text):
        total = 0
        for ch in text:
            glyph = self.glyphs.get(ord(ch), 0)
            total += self.advances[min(glyph, len(self.advances) - 1)]
        return total / self.units


def load_fonts():
    fonts = {}
    for bold, name in ((False, "DejaVuSans.ttf"), (True, "DejaVuSans-Bold.ttf")):
        path = os.path.join(FONT_DIR, name)
        if os.path.exists(path):
            fonts[bold] = Font(path)
    return fonts


def attribute(node, name, inherited):
    while node is not None and node.nodeType == node.ELEMENT_NODE:
        if node.hasAttribute(name):
            return node.getAttribute(name)
        node = node.parentNode
    return inherited


def main(argv):
    args = argv[1:]
    minimum = 1
    if "--min-texts" in args:
        at = args.index("--min-texts")
        minimum = int(args[at + 1])
        del args[at:at + 2]
    (path,) = args
    svg = xml.dom.minidom.parse(path)
    root = svg.documentElement
    width = float(root.getAttribute("width"))
    fonts = load_fonts()
    boxes = []
    for text in svg.getElementsByTagName("text"):
        content = "".join(c.data for c in text.childNodes if c.nodeType == c.TEXT_NODE)
        if not content.strip():
            continue
        size = float(attribute(text, "font-size", "16"))
        bold = attribute(text, "font-weight", "normal") == "bold"
        font = fonts.get(bold)
        ems = font.width(content) if font else float(len(content))
        extent = ems * size
        x = float(text.getAttribute("x"))
        y = float(text.getAttribute("y"))
        anchor = attribute(text, "text-anchor", "start")
        left = x - extent / 2 if anchor == "middle" else x - extent if anchor == "end" else x
        boxes.append((left, left + extent, y - 0.8 * size, y + 0.2 * size, content))
    failures = []
    if len(boxes) < minimum:
        failures.append(f"{len(boxes)} labels, expected at least {minimum}")
    for left, right, _, _, content in boxes:
        if left < -0.5 or right > width + 0.5:
            failures.append(f"'{content}' ({left:.1f} to {right:.1f}) leaves the picture (0 to {width})")
    for a, b in itertools.combinations(boxes, 2):
        if a[0] < b[1] - 0.5 and b[0] < a[1] - 0.5 and a[2] < b[3] - 0.5 and b[2] < a[3] - 0.5:
            failures.append(f"'{a[4]}' ({a[0]:.1f}..{a[1]:.1f}, {a[2]:.1f}..{a[3]:.1f}) overlaps "
                            f"'{b[4]}' ({b[0]:.1f}..{b[1]:.1f}, {b[2]:.1f}..{b[3]:.1f})")
    for failure in failures[:20]:
        print("FAILED: " + failure)
    measure = "DejaVu Sans's advances" if fonts else "1 em a character"
    print(f"check_svg_labels: {path}: {len(boxes)} labels measured by {measure}, "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
