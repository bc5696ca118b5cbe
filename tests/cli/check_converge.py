#!/usr/bin/env python3
"""haloflow converge end to end (tests/cli/converge.cmake).

study HALOFLOW OUT DESIGN TOLERANCE NORMS CASE ARGS...
    Runs `haloflow converge CASE ARGS... --out OUT --force` and checks what it wrote: results.json
    complete (in space, each point's errors equal to those the model reports itself), convergence.csv with a row per point and every observed order of the NORMS (a
    comma-separated list of L1, L2, Linf) within TOLERANCE of DESIGN (the design order
    results.json states), convergence.md's table, convergence.svg a well-formed SVG document with
    a series per norm and the dashed design slope.
refuses HALOFLOW MESSAGE ARGS...
    Runs `haloflow ARGS...` and checks that it fails (exit status 1) with MESSAGE (a regular
    expression) on standard error, and made no run directory where --out names one.
fails HALOFLOW MESSAGE ARGS...
    The same for a study that fails once it runs: the run directory --out names is made, and its
    results.json says "failed" with the error.
"""

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"


def fail(message):
    print(f"check_converge: {message}", file=sys.stderr)
    sys.exit(1)


def run(command):
    print("+", " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done


def study(haloflow, out, design, tolerance, norms, case, args):
    design = float(design)
    tolerance = float(tolerance)
    done = run([haloflow, "converge", case, *args, "--out", out, "--force"])
    if done.returncode != 0:
        fail(f"haloflow converge exited with {done.returncode}")
    with open(os.path.join(out, "results.json"), encoding="utf-8") as file:
        results = json.load(file)
    if results["status"] != "complete":
        fail(f"results.json says {results['status']!r}")
    if results["design_order"] != design:
        fail(f"design order {results['design_order']}, expected {design}")
    # In space, the errors are the model's own where it reports them: heat3d's max and rms
    # errors (converge takes them again from the gathered field), euler2d's density errors.
    if results["study"] == "space":
        for index, point in enumerate(results["points"]):
            section, errors = point["results"], point["errors"]
            if results["model"]["name"] == "heat3d":
                pairs = [(errors["Linf"], section["error_max"]), (errors["L2"], section["error_rms"])]
            else:
                density = section["density_error"]
                pairs = [(errors["L1"], density["l1"]), (errors["L2"], density["l2"]),
                         (errors["Linf"], density["linf"])]
            for ours, model in pairs:
                if not math.isclose(ours, model, rel_tol=1e-12):
                    fail(f"point {index}: error {ours} differs from the model's {model}")
    with open(os.path.join(out, "convergence.csv"), newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    header = rows[0]
    if header != ["point", "label", header[2], "L1", "order_L1", "L2", "order_L2", "Linf",
                  "order_Linf"]:
        fail(f"CSV header {header}")
    points = rows[1:]
    if len(points) != len(results["points"]) or len(points) < 2:
        fail(f"{len(points)} CSV rows for {len(results['points'])} points")
    for index, row in enumerate(points):
        if int(row[0]) != index or float(row[2]) <= 0:
            fail(f"CSV row {row}")
        for column in (3, 5, 7):
            error = float(row[column])
            if not (math.isfinite(error) and error > 0):
                fail(f"CSV row {index}: error {row[column]}")
        for column in (4, 6, 8):
            if index == 0:
                if row[column] != "":
                    fail(f"CSV row 0 has an order: {row}")
                continue
            order = float(row[column])
            checked = header[column - 1] in norms.split(",")
            print(f"point {index} {header[column]}: observed {order:.3f}, design {design:g}"
                  f"{'' if checked else ' (not checked)'}")
            if checked and abs(order - design) > tolerance:
                fail(f"point {index}: {header[column]} {order} is not within {tolerance} of "
                     f"{design}")
    with open(os.path.join(out, "convergence.md"), encoding="utf-8") as file:
        markdown = file.read()
    if "| point | label |" not in markdown or f"design order: {design:g}" not in markdown:
        fail("convergence.md lacks its table or design order")
    if markdown.count("\n| ") != len(points) + 2:  # header, rule, a row per point
        fail("convergence.md does not have a row per point")
    tree = ElementTree.parse(os.path.join(out, "convergence.svg"))
    root = tree.getroot()
    if root.tag != SVG + "svg":
        fail(f"the SVG's root is {root.tag}")
    series = root.findall(SVG + "polyline")
    if len(series) != 3:
        fail(f"{len(series)} series in the SVG, expected 3 (L1, L2, Linf)")
    dashed = [line for line in root.iter(SVG + "line") if line.get("stroke-dasharray")]
    if not dashed:
        fail("no dashed design-order line in the SVG")
    labels = {text.text for text in root.iter(SVG + "text")}
    for label in ("L1", "L2", "Linf", f"order {design:g}"):
        if label not in labels:
            fail(f"the SVG has no label {label!r}")
    print("check_converge: study ok")


def refuses(haloflow, message, args, made=False):
    out = None
    if "--out" in args:
        out = args[args.index("--out") + 1]
    if made and os.path.exists(out):
        shutil.rmtree(out)  # this test's own directory, from an earlier run of it
    existed = out is not None and os.path.exists(out)
    done = run([haloflow, *args])
    if done.returncode != 1:
        fail(f"exit status {done.returncode}, expected 1")
    if not re.search(message, done.stderr, re.DOTALL):
        fail(f"standard error does not match {message!r}")
    if made:
        with open(os.path.join(out, "results.json"), encoding="utf-8") as file:
            results = json.load(file)
        error = results.get("error", "")
        if results["status"] != "failed" or not re.search(message, error, re.DOTALL):
            fail(f"results.json says {results['status']!r}, error {results.get('error')!r}")
    elif out is not None and not existed and os.path.exists(out):
        fail(f"a refused study made {out}")
    print("check_converge: refused as expected")


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    mode, haloflow = sys.argv[1], sys.argv[2]
    if mode == "study":
        out, design, tolerance, norms, case = sys.argv[3:8]
        study(haloflow, out, design, tolerance, norms, case, sys.argv[8:])
    elif mode in ("refuses", "fails"):
        refuses(haloflow, sys.argv[3], sys.argv[4:], made=mode == "fails")
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
