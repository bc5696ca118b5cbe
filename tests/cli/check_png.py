#!/usr/bin/env python3
"""Decodes the PNGs `haloflow run --png` wrote with a decoder of its own (pypng, or Pillow) and
checks them against results.json.

usage: check_png.py RUN_DIR --steps S0,S1,... --field NX NY [--range LO HI] [--slice LAYER]

results.json's "png" entry lists one picture per step asked for (png/NAME_<step>.png); each
decodes as 8-bit RGB of the size it says, is compressed (at most a quarter of its raw pixels),
and shows: a title (dark pixels above the field), the field NX x NY cells scaled as haloflow
scales them, every field pixel a colour of the map with the minimum's and maximum's colours
present (unless the field is wider than 1024 cells and so sampled), a colour bar from the
maximum's colour at the top to the minimum's at the bottom, every one of its colours a viridis
entry (the table apps/outputs/viridis.cpp enters, its ends and middle the published #440154,
#21918c and #fde725), a black tick beside the bar at each of its round values (ascending, inside
the range, one label apart) and text beside and below it; the x axis along the field's bottom
and the y axis along its left, each with at least two tick marks and text (labels, the axis's
name) beyond them. --range: the minimum and maximum lie in [LO, HI]. --slice: the pictures show that z layer.
Exit 77 (skipped) when neither pypng nor Pillow can be imported.
"""
import json
import math
import os
import re
import sys

try:
    import png as pypng  # Debian: python3-png

    def decode(path):
        width, height, rows, info = pypng.Reader(filename=path).asRGB8()
        pixels = [bytes(row) for row in rows]
        return width, height, info["bitdepth"], info["planes"], lambda x, y: tuple(
            pixels[y][3 * x:3 * x + 3])
except ImportError:
    try:
        from PIL import Image  # Debian: python3-pil

        def decode(path):
            image = Image.open(path)
            mode = image.mode
            rgb = image.convert("RGB")
            return rgb.width, rgb.height, 8, 3 if mode == "RGB" else 0, lambda x, y: rgb.getpixel(
                (x, y))
    except ImportError:
        print("check_png: skipped: neither pypng (python3-png) nor Pillow (python3-pil) is "
              "importable")
        sys.exit(77)

BLACK = (0, 0, 0)
WHITE = (255, 255, 255)


def viridis_table():
    """The 256 entries apps/outputs/viridis.cpp holds, to 8 bits as it rounds them."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps",
                          "outputs", "viridis.cpp")
    with open(source) as stream:
        rows = re.findall(r"\{([0-9.]+), ([0-9.]+), ([0-9.]+)\}", stream.read())
    return [tuple(int(math.floor(float(v) * 255 + 0.5)) for v in row) for row in rows]


VIRIDIS = viridis_table()
PALETTE = set(VIRIDIS)
LOW = VIRIDIS[0] if VIRIDIS else None
HIGH = VIRIDIS[-1] if VIRIDIS else None


def on_map(c):
    """A viridis entry, or NaN's grey."""
    return c == (128, 128, 128) or c in PALETTE


def near(c, target):
    return all(abs(c[k] - target[k]) <= 1 for k in range(3))


def dark(c):
    """Text: black blended onto white by the glyph's coverage is a grey darker than mid-grey."""
    return c[0] == c[1] == c[2] and c[0] < 128


def runs(flags):
    """How many runs of True a sequence holds (tick marks a pixel or two wide count once)."""
    return sum(1 for k, flag in enumerate(flags) if flag and (k == 0 or not flags[k - 1]))


def check_axes(path, pixel, width, height, fx, fy, fw, fh, failures):
    """The x axis along the field's bottom, the y axis along its left: lines, tick marks, text."""
    bottom, left = fy + fh, fx - 1
    if not (bottom + 40 < height and left > 10):
        failures.append(f"{path}: no room for the axes below and left of the field")
        return
    if not all(pixel(x, bottom) == BLACK for x in range(left, fx + fw)) or not all(
            pixel(left, y) == BLACK for y in range(fy, bottom + 1)):
        failures.append(f"{path}: the axes' lines are not along the field's bottom and left")
    x_ticks = runs([pixel(x, bottom + 5) == BLACK for x in range(left, fx + fw)])
    y_ticks = runs([pixel(left - 5, y) == BLACK for y in range(fy, bottom + 1)])
    if x_ticks < 2 or y_ticks < 2:
        failures.append(f"{path}: {x_ticks} tick marks on the x axis and {y_ticks} on the y "
                        f"axis: expected at least two each")
    x_text = sum(1 for y in range(bottom + 6, min(height, bottom + 6 + 36))
                 for x in range(max(0, fx - 20), min(width, fx + fw + 20)) if dark(pixel(x, y)))
    y_text = sum(1 for y in range(max(0, fy - 10), min(height, bottom + 10))
                 for x in range(0, left - 6) if dark(pixel(x, y)))
    if x_text < 20 * x_ticks or y_text < 20 * y_ticks:
        failures.append(f"{path}: the axes' labels are missing ({x_text} dark pixels below the x "
                        f"axis, {y_text} left of the y axis)")


def check_picture(path, info, nx, ny, value_range, failures):
    width, height, depth, planes, pixel = decode(path)
    if (width, height) != (info["width"], info["height"]):
        failures.append(f"{path}: {width} x {height}, results.json says {info['width']} x "
                        f"{info['height']}")
        return
    if depth != 8 or planes != 3:
        failures.append(f"{path}: {depth}-bit, {planes} planes: expected 8-bit RGB")
    raw = width * height * 3
    size = os.path.getsize(path)
    if size * 4 > raw:
        failures.append(f"{path}: {size} bytes for {raw} bytes of pixels: not compressed")
    fx, fy, fw, fh = info["field_x"], info["field_y"], info["field_width"], info["field_height"]
    largest = max(nx, ny)
    if largest > 1024:
        step = (largest + 1023) // 1024
        expected = ((nx + step - 1) // step, (ny + step - 1) // step)
    else:
        scale = max(1, 256 // largest)
        expected = (nx * scale, ny * scale)
    if (fw, fh) != expected:
        failures.append(f"{path}: field drawn {fw} x {fh} pixels, expected {expected}")
    if not (fx + fw < width and fy + fh <= height and fy > 0):
        failures.append(f"{path}: the field lies outside the picture")
    title = sum(1 for y in range(fy) for x in range(width) if dark(pixel(x, y)))
    if title < 50:
        failures.append(f"{path}: no title above the field ({title} dark pixels)")
    check_axes(path, pixel, width, height, fx, fy, fw, fh, failures)
    colours = {pixel(x, y) for y in range(fy, fy + fh) for x in range(fx, fx + fw)}
    off_map = [c for c in colours if not on_map(c)]
    if off_map:
        failures.append(f"{path}: {len(off_map)} field colours are not on the colour map, e.g. "
                        f"{off_map[0]}")
    lo, hi = info["minimum"], info["maximum"]
    if largest <= 1024 and hi > lo:
        for name, colour in (("minimum", LOW), ("maximum", HIGH)):
            if not any(near(c, colour) for c in colours):
                failures.append(f"{path}: the {name}'s colour {colour} is not in the field")
    if value_range and not (value_range[0] <= lo <= hi <= value_range[1]):
        failures.append(f"{path}: values from {lo} to {hi}, expected within {value_range}")
    # The bar: the maximum's colour at the top, the minimum's at the bottom, a ramp between.
    bx, by, bw, bh = info["bar_x"], info["bar_y"], info["bar_width"], info["bar_height"]
    middle = bx + bw // 2
    if hi > lo:
        if not near(pixel(middle, by), HIGH) or not near(pixel(middle, by + bh - 1), LOW):
            failures.append(f"{path}: the colour bar does not run from the maximum's colour to "
                            f"the minimum's")
    bar = [pixel(middle, y) for y in range(by, by + bh)]
    if not all(c in PALETTE for c in bar):
        failures.append(f"{path}: the colour bar has colours that are not viridis entries")
    if bh >= 256 and len(set(bar)) < 200:
        failures.append(f"{path}: the colour bar shows {len(set(bar))} of viridis' 256 colours")
    ticks = info["ticks"]
    if ticks != sorted(ticks) or (hi > lo and len(ticks) < 2):
        failures.append(f"{path}: ticks {ticks} not ascending, or fewer than two")
    for tick in ticks:
        if hi > lo and not (lo - 1e-9 * abs(hi - lo) <= tick <= hi + 1e-9 * abs(hi - lo)):
            failures.append(f"{path}: tick {tick} outside [{lo}, {hi}]")
        row = by + (round((hi - tick) / (hi - lo) * (bh - 1)) if hi > lo else (bh - 1) // 2)
        if not any(pixel(bx + bw + dx, row + dy) == BLACK for dx in range(5) for dy in (-1, 0, 1)):
            failures.append(f"{path}: no tick mark beside the bar at {tick} (row {row})")
    labels = sum(1 for y in range(by - 10, by + bh + 10) for x in range(bx + bw + 6, width)
                 if 0 <= y < height and dark(pixel(x, y)))
    units = sum(1 for y in range(by + bh + 2, height) for x in range(bx, width)
                if dark(pixel(x, y)))
    if labels < 20 * max(len(ticks), 1) or units < 20:
        failures.append(f"{path}: the bar's labels ({labels} dark pixels) or units ({units}) are "
                        f"missing")
    return size, raw


def main(argv):
    run_dir = argv[1]
    args = argv[2:]
    options = {}
    i = 0
    while i < len(args):
        if args[i] in ("--field", "--range"):
            options[args[i]] = (args[i + 1], args[i + 2])
            i += 3
        else:
            options[args[i]] = args[i + 1]
            i += 2
    nx, ny = (int(v) for v in options["--field"])
    value_range = tuple(float(v) for v in options["--range"]) if "--range" in options else None
    steps = [int(s) for s in options["--steps"].split(",")]
    with open(os.path.join(run_dir, "results.json")) as stream:
        results = json.load(stream)
    with open(os.path.join(run_dir, "case.resolved.json")) as stream:
        name = json.load(stream)["name"]
    entry = results["png"]
    failures = []
    published = {0: (0x44, 0x01, 0x54), 128: (0x21, 0x91, 0x8c), 255: (0xfd, 0xe7, 0x25)}
    if len(VIRIDIS) != 256 or any(VIRIDIS[k] != c for k, c in published.items()):
        failures.append(f"apps/outputs/viridis.cpp: {len(VIRIDIS)} entries, not viridis")
    pictures = entry["pictures"]
    files = [p["file"] for p in pictures]
    expected = [f"png/{name}_{step:06d}.png" for step in steps]
    if files != expected or [p["step"] for p in pictures] != steps:
        failures.append(f"results.json lists {files}, expected {expected}")
    if sorted(os.listdir(os.path.join(run_dir, "png"))) != sorted(os.path.basename(f) for f in files):
        failures.append(f"png/ holds {sorted(os.listdir(os.path.join(run_dir, 'png')))}")
    if "--slice" in options and (entry.get("slice") or {}).get("layer") != int(options["--slice"]):
        failures.append(f"slice {entry.get('slice')}, expected layer {options['--slice']}")
    sizes = [0, 0]
    for picture in pictures:
        measured = check_picture(os.path.join(run_dir, picture["file"]), picture, nx, ny,
                                 value_range, failures)
        if measured:
            sizes = [sizes[0] + measured[0], sizes[1] + measured[1]]
    for failure in failures:
        print("FAILED:", failure)
    ratio = sizes[1] / sizes[0] if sizes[0] else 0
    print(f"check_png: {len(pictures)} pictures of {nx} x {ny}, {ratio:.0f}x smaller than their "
          f"raw pixels, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
