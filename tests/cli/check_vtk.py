#!/usr/bin/env python3
"""Reads back the VTK image data `haloflow run --vtk` wrote and checks it.

usage: check_vtk.py VTK_DIR NAME --steps S1,S2,... --whole "0 NX 0 NY 0 NZ" --ranks R
                    --arrays a,b,... [--range ARRAY LO HI]

For every step: NAME_<step>.pvti parses as XML (xml.dom.minidom), its WholeExtent is the given
one, it has R pieces whose extents tile the whole extent, and it lists the arrays; each piece's
.vti parses, has the same WholeExtent, the piece's extent, and each array holds one finite value
per cell (inside [LO, HI] for --range). No other steps were written.
"""
import math
import os
import sys
from xml.dom import minidom


def extent(text):
    values = [int(v) for v in text.split()]
    if len(values) != 6:
        raise ValueError(f"extent {text!r}: expected 6 integers")
    return values


def cells(e):
    return max(e[1] - e[0], 0) * max(e[3] - e[2], 0) * max(e[5] - e[4], 0)


def main(argv):
    directory, name = argv[1], argv[2]
    args = argv[3:]
    options = {}
    ranges = {}
    i = 0
    while i < len(args):
        if args[i] == "--range":
            ranges[args[i + 1]] = (float(args[i + 2]), float(args[i + 3]))
            i += 4
        else:
            options[args[i]] = args[i + 1]
            i += 2
    steps = [int(s) for s in options["--steps"].split(",")]
    whole = extent(options["--whole"])
    ranks = int(options["--ranks"])
    arrays = options["--arrays"].split(",")
    failures = []

    expected_files = set()
    for step in steps:
        stem = f"{name}_{step:06d}"
        pvti_path = os.path.join(directory, stem + ".pvti")
        expected_files.add(stem + ".pvti")
        document = minidom.parse(pvti_path)
        top = document.documentElement
        if top.tagName != "VTKFile" or top.getAttribute("type") != "PImageData":
            failures.append(f"{pvti_path}: not a PImageData VTKFile")
            continue
        image = top.getElementsByTagName("PImageData")[0]
        if extent(image.getAttribute("WholeExtent")) != whole:
            failures.append(f"{pvti_path}: WholeExtent {image.getAttribute('WholeExtent')!r}, "
                            f"expected {whole}")
        names = [a.getAttribute("Name") for a in image.getElementsByTagName("PDataArray")]
        if names != arrays:
            failures.append(f"{pvti_path}: arrays {names}, expected {arrays}")
        pieces = image.getElementsByTagName("Piece")
        if len(pieces) != ranks:
            failures.append(f"{pvti_path}: {len(pieces)} pieces, expected {ranks}")
        covered = 0
        for piece in pieces:
            e = extent(piece.getAttribute("Extent"))
            for axis in range(3):
                if e[2 * axis] < whole[2 * axis] or e[2 * axis + 1] > whole[2 * axis + 1]:
                    failures.append(f"{pvti_path}: piece extent {e} outside {whole}")
            covered += cells(e)
            source = piece.getAttribute("Source")
            expected_files.add(source)
            vti_path = os.path.join(directory, source)
            vti = minidom.parse(vti_path).documentElement
            if vti.getAttribute("type") != "ImageData":
                failures.append(f"{vti_path}: not an ImageData VTKFile")
                continue
            data = vti.getElementsByTagName("ImageData")[0]
            if extent(data.getAttribute("WholeExtent")) != whole:
                failures.append(f"{vti_path}: WholeExtent differs from the .pvti's")
            if extent(data.getElementsByTagName("Piece")[0].getAttribute("Extent")) != e:
                failures.append(f"{vti_path}: piece extent differs from the .pvti's {e}")
            for array in data.getElementsByTagName("DataArray"):
                array_name = array.getAttribute("Name")
                text = "".join(node.data for node in array.childNodes
                               if node.nodeType == node.TEXT_NODE)
                values = [float(v) for v in text.split()]
                if len(values) != cells(e):
                    failures.append(f"{vti_path}: {array_name}: {len(values)} values, expected "
                                    f"{cells(e)}")
                if not all(math.isfinite(v) for v in values):
                    failures.append(f"{vti_path}: {array_name}: a value is not finite")
                if array_name in ranges and values:
                    lo, hi = ranges[array_name]
                    if min(values) < lo or max(values) > hi:
                        failures.append(f"{vti_path}: {array_name}: values from {min(values)} to "
                                        f"{max(values)}, expected within [{lo}, {hi}]")
        if covered != cells(whole):
            failures.append(f"{pvti_path}: the pieces hold {covered} cells, the whole extent "
                            f"{cells(whole)}")
    written = set(os.listdir(directory))
    if written != expected_files:
        failures.append(f"{directory}: files {sorted(written ^ expected_files)} unexpected or "
                        f"missing")
    for failure in failures:
        print("FAILED:", failure)
    print(f"check_vtk: {len(steps)} steps, {ranks} pieces each, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
