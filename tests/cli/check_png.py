#!/usr/bin/env python3
"""Reads back the PNG `haloflow run --png` wrote and checks it against results.json.

usage: check_png.py RUN_DIR --field NX NY [--range LO HI]

The file is decoded by hand: the signature, each chunk's CRC-32, IHDR (width and height as
results.json's "png" entry says, 8-bit RGB, no interlace), the IDAT zlib stream inflated by
python's zlib (and its stored blocks walked by hand too), filter 0 on every row. Then the
pixels: the field covers NX x NY cells scaled as haloflow scales them, every field pixel is a
colour of the map, the colours of the minimum and the maximum both appear in it (unless the field
is wider than 1024 cells and so sampled), the colour bar
runs from the maximum's colour at the top to the minimum's at the bottom, and the labels are
drawn in black beside it. With --range, the minimum and maximum lie in [LO, HI].
"""
import json
import math
import os
import struct
import sys
import zlib

LOW = (68, 1, 84)      # the colour map's ends (apps/haloflow/png_output.cpp)
HIGH = (253, 231, 37)


def colour_of(t):
    """The colour map of apps/haloflow/png_output.cpp (round half away from zero, as lround)."""
    points = [LOW, (59, 82, 139), (33, 145, 140), (94, 201, 98), HIGH]
    t = min(max(t, 0.0), 1.0)
    at = t * (len(points) - 1)
    low = min(int(at), len(points) - 2)
    f = at - low
    return tuple(int(math.floor(points[low][c] + f * (points[low + 1][c] - points[low][c]) + 0.5))
                 for c in range(3))


def inflate_stored(stream):
    """Inflates a zlib stream made of stored deflate blocks only (what haloflow writes)."""
    assert stream[0] == 0x78 and (stream[0] * 256 + stream[1]) % 31 == 0, "zlib header"
    at = 2
    out = bytearray()
    while True:
        header = stream[at]
        assert (header >> 1) & 3 == 0, "not a stored block"
        length, complement = struct.unpack("<HH", stream[at + 1:at + 5])
        assert length ^ complement == 0xFFFF, "LEN and NLEN disagree"
        out += stream[at + 5:at + 5 + length]
        at += 5 + length
        if header & 1:
            break
    adler = struct.unpack(">I", stream[at:at + 4])[0]
    assert adler == zlib.adler32(bytes(out)), "Adler-32"
    return bytes(out)


def main(argv):
    run_dir = argv[1]
    args = argv[2:]
    nx = ny = None
    value_range = None
    if "--field" in args:
        at = args.index("--field")
        nx, ny = int(args[at + 1]), int(args[at + 2])
    if "--range" in args:
        at = args.index("--range")
        value_range = (float(args[at + 1]), float(args[at + 2]))
    with open(os.path.join(run_dir, "results.json")) as f:
        info = json.load(f)["png"]
    path = os.path.join(run_dir, info["file"])
    with open(path, "rb") as f:
        data = f.read()
    failures = []
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        print(f"FAILED: {path}: not a PNG signature")
        return 1
    at = 8
    chunks = []
    while at < len(data):
        length = struct.unpack(">I", data[at:at + 4])[0]
        kind = data[at + 4:at + 8]
        body = data[at + 8:at + 8 + length]
        crc = struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0]
        if crc != zlib.crc32(kind + body):
            failures.append(f"chunk {kind!r}: CRC-32 mismatch")
        chunks.append((kind, body))
        at += 12 + length
    kinds = [k for k, _ in chunks]
    if kinds[0] != b"IHDR" or kinds[-1] != b"IEND" or b"IDAT" not in kinds:
        failures.append(f"chunks {kinds}: expected IHDR, IDAT..., IEND")
    width, height, depth, colour, compression, filtering, interlace = struct.unpack(
        ">IIBBBBB", chunks[0][1])
    if (width, height) != (info["width"], info["height"]):
        failures.append(f"IHDR {width} x {height}, results.json {info['width']} x "
                        f"{info['height']}")
    if (depth, colour, compression, filtering, interlace) != (8, 2, 0, 0, 0):
        failures.append(f"IHDR depth {depth} colour type {colour}: expected 8-bit RGB")
    stream = b"".join(body for kind, body in chunks if kind == b"IDAT")
    raw = zlib.decompress(stream)
    if inflate_stored(stream) != raw:
        failures.append("the stored blocks walked by hand differ from zlib's inflate")
    row = 1 + 3 * width
    if len(raw) != row * height:
        failures.append(f"{len(raw)} bytes of pixels, expected {row * height}")
        print("\n".join("FAILED: " + f for f in failures))
        return 1
    if any(raw[y * row] != 0 for y in range(height)):
        failures.append("a row's filter is not 0")

    def pixel(x, y):
        at = y * row + 1 + 3 * x
        return tuple(raw[at:at + 3])

    fx, fy, fw, fh = info["field_x"], info["field_y"], info["field_width"], info["field_height"]
    if nx is not None:
        largest = max(nx, ny)
        if largest > 1024:
            step = (largest + 1023) // 1024
            expected = ((nx + step - 1) // step, (ny + step - 1) // step)
        else:
            scale = max(1, 256 // largest)
            expected = (nx * scale, ny * scale)
        if (fw, fh) != expected:
            failures.append(f"field drawn {fw} x {fh} pixels, expected {expected}")
    if not (fx + fw < width and fy + fh <= height):
        failures.append("the field lies outside the picture")
    colours = {pixel(x, y) for y in range(fy, fy + fh) for x in range(fx, fx + fw)}
    if (255, 255, 255) in colours or (0, 0, 0) in colours:
        failures.append("white or black pixels inside the field")
    palette = {colour_of(k / 200000) for k in range(200001)}

    def on_map(c):  # within 1 per channel of the map (t rounds differently in C++ and here)
        return c == (128, 128, 128) or any(
            (c[0] + a, c[1] + b, c[2] + d) in palette
            for a in (-1, 0, 1) for b in (-1, 0, 1) for d in (-1, 0, 1))

    off_map = [c for c in colours if not on_map(c)]
    if off_map:
        failures.append(f"{len(off_map)} field colours are not on the colour map, e.g. "
                        f"{off_map[0]}")
    # A field wider than 1024 cells is sampled, so its extremes may fall between the samples.
    sampled = nx is not None and max(nx, ny) > 1024
    if info["maximum"] > info["minimum"] and not sampled:
        for name, end in (("minimum", LOW), ("maximum", HIGH)):
            if end not in colours:
                failures.append(f"the {name}'s colour {end} is not in the field")
    bar_x = fx + fw + 15 + 10
    if pixel(bar_x, fy) != HIGH or pixel(bar_x, fy + fh - 1) != LOW:
        failures.append(f"colour bar: top {pixel(bar_x, fy)}, bottom {pixel(bar_x, fy + fh - 1)}")
    label_black = sum(1 for y in range(height) for x in range(bar_x + 20, width)
                      if pixel(x, y) == (0, 0, 0))
    if label_black == 0:
        failures.append("no label pixels beside the colour bar")
    if value_range is not None:
        lo, hi = value_range
        if not (lo <= info["minimum"] <= info["maximum"] <= hi):
            failures.append(f"values {info['minimum']} to {info['maximum']} outside [{lo}, {hi}]")
    for failure in failures:
        print(f"FAILED: {path}: {failure}")
    print(f"check_png: {width} x {height}, {len(colours)} field colours, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
