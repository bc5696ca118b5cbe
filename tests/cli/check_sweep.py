#!/usr/bin/env python3
"""--set and haloflow sweep end to end (tests/cli/sweep.cmake).

override HALOFLOW CASE OUT
    Runs `haloflow run CASE --set ...` into OUT and checks that the overrides reached the run:
    case.resolved.json and results.json hold the values, results.json lists every override (also
    one that left the case as it was), and the resolved case run again gives the same case.
sweep HALOFLOW CASE OUT
    Runs `haloflow sweep CASE --set jacobi2d.nx=32,64,128 ...` into OUT and checks a run directory
    per point (its case holding the point's value), sweep.csv and sweep.md with a row per point
    whose figures are the points' own, an SVG plot per figure with a marker per point and
    labelled axes; then that a second sweep into OUT without --force is refused and leaves OUT
    as it was, that --force replaces it, and that an unknown figure is refused naming those
    there are.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"
QUIET = ["--set", "run.vtk=false", "--set", "run.png=false", "--set", "run.executor=host"]


def fail(message):
    print(f"check_sweep: {message}", file=sys.stderr)
    sys.exit(1)


def run(command):
    print("+", " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return done


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def override(haloflow, case, out):
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(out + ".again", ignore_errors=True)
    # jacobi2d.precision=float is the case's own value: it changes nothing, and is recorded.
    done = run([haloflow, "run", case, "--set", "jacobi2d.nx=48", "--set", "run.steps=6",
                "--set", "jacobi2d.precision=float", *QUIET, "--out", out])
    if done.returncode != 0:
        fail(f"haloflow run exited with {done.returncode}")
    resolved = load(os.path.join(out, "case.resolved.json"))
    results = load(os.path.join(out, "results.json"))
    if resolved["jacobi2d"]["nx"] != 48 or resolved["run"]["steps"] != 6:
        fail(f"case.resolved.json: nx {resolved['jacobi2d']['nx']}, steps "
             f"{resolved['run']['steps']}; expected 48 and 6")
    if results["jacobi2d"]["nx"] != 48 or results["run"]["steps"] != 6:
        fail(f"results.json: nx {results['jacobi2d']['nx']}, steps {results['run']['steps']}")
    recorded = {o["path"]: o["value"] for o in results["overrides"]}
    expected = {"jacobi2d.nx": 48, "run.steps": 6, "jacobi2d.precision": "float",
                "run.vtk": False, "run.png": False, "run.executor": "host"}
    if recorded != expected:
        fail(f"results.json overrides {recorded}, expected {expected}")
    if any(o["pointer"] != "/" + o["path"].replace(".", "/") for o in results["overrides"]):
        fail(f"results.json override pointers {results['overrides']}")
    # The resolved case reproduces the run without the flags.
    again = out + ".again"
    done = run([haloflow, "run", os.path.join(out, "case.resolved.json"), "--out", again])
    if done.returncode != 0:
        fail(f"the resolved case's run exited with {done.returncode}")
    rerun = load(os.path.join(again, "case.resolved.json"))
    for section in ("jacobi2d", "exchange"):
        if rerun[section] != resolved[section]:
            fail(f"the rerun's {section} {rerun[section]} differs from {resolved[section]}")
    if rerun["run"]["steps"] != 6 or load(os.path.join(again, "results.json"))["overrides"]:
        fail("the rerun of case.resolved.json did not take 6 steps without overrides")


def figures_of(results):
    return {"time_per_step": results["step_time_us"]["median"],
            "jacobi2d.final_norm": results["jacobi2d"]["final_norm"]}


def check_svg(path, points, x_name):
    root = ElementTree.parse(path).getroot()
    if root.tag != SVG + "svg":
        fail(f"{path}: root {root.tag}, expected svg")
    circles = root.findall(f"{SVG}circle")
    if len(circles) != points:
        fail(f"{path}: {len(circles)} markers, expected {points}")
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    # 32 to 128 spans 4x: a linear x axis, its name and numbered ticks.
    if x_name not in texts:
        fail(f"{path}: no axis named {x_name} among {texts}")
    if sum(1 for t in texts if t.replace(".", "").isdigit()) < 4:
        fail(f"{path}: too few numbered ticks in {texts}")


def sweep(haloflow, case, out):
    shutil.rmtree(out, ignore_errors=True)
    values = [32, 64, 128]
    command = [haloflow, "sweep", case, "--set", "jacobi2d.nx=32,64,128", "--set", "run.steps=4",
               *QUIET, "--figures", "time_per_step,jacobi2d.final_norm", "--out", out]
    done = run(command)
    if done.returncode != 0:
        fail(f"haloflow sweep exited with {done.returncode}")
    results = load(os.path.join(out, "results.json"))
    if results["status"] != "complete" or len(results["points"]) != 3:
        fail(f"results.json: status {results['status']}, {len(results['points'])} points")
    names = [f"{i:02}_jacobi2d.nx={v}" for i, v in enumerate(values)]
    point_figures = []
    for name, value in zip(names, values):
        point = os.path.join(out, name)
        resolved = load(os.path.join(point, "case.resolved.json"))
        point_results = load(os.path.join(point, "results.json"))
        if resolved["jacobi2d"]["nx"] != value or point_results["jacobi2d"]["nx"] != value:
            fail(f"{name}: nx {resolved['jacobi2d']['nx']}, expected {value}")
        if point_results["status"] != "complete" or point_results["run"]["steps"] != 4:
            fail(f"{name}: status {point_results['status']}, steps {point_results['run']['steps']}")
        point_figures.append(figures_of(point_results))
    dirs = sorted(e for e in os.listdir(out) if os.path.isdir(os.path.join(out, e)))
    if dirs != names:
        fail(f"run directories {dirs}, expected {names}")
    with open(os.path.join(out, "sweep.csv"), newline="", encoding="utf-8") as file:
        rows = list(csv.reader(file))
    if rows[0] != ["point", "directory", "jacobi2d.nx", "time_per_step (us)",
                   "jacobi2d.final_norm"]:
        fail(f"CSV header {rows[0]}")
    if len(rows) != 4:
        fail(f"{len(rows) - 1} CSV rows, expected 3")
    for index, row in enumerate(rows[1:]):
        figures = point_figures[index]
        if row[:3] != [str(index), names[index], str(values[index])]:
            fail(f"CSV row {row}")
        for column, name in ((3, "time_per_step"), (4, "jacobi2d.final_norm")):
            if row[column] != f"{figures[name]:.6g}":
                fail(f"CSV row {index}: {name} {row[column]}, the point's {figures[name]:.6g}")
    with open(os.path.join(out, "sweep.md"), encoding="utf-8") as file:
        table = [line for line in file.read().splitlines() if line.startswith("|")]
    if len(table) != 5 or "jacobi2d.nx" not in table[0]:
        fail(f"sweep.md: {table}")
    for index, line in enumerate(table[2:]):
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] != str(index) or cells[1] != str(values[index]) or cells[-1] != names[index]:
            fail(f"sweep.md row {line}")
    check_svg(os.path.join(out, "sweep_time_per_step.svg"), 3, "jacobi2d.nx")
    check_svg(os.path.join(out, "sweep_jacobi2d.final_norm.svg"), 3, "jacobi2d.nx")

    # Again without --force: refused, and the sweep left as it was.
    before = os.stat(os.path.join(out, "results.json")).st_mtime_ns
    done = run(command)
    if done.returncode == 0 or "exists" not in done.stderr or "--force" not in done.stderr:
        fail(f"a second sweep into {out} was not refused (exit {done.returncode})")
    if os.stat(os.path.join(out, "results.json")).st_mtime_ns != before:
        fail("the refused sweep changed the previous one")
    # With --force: replaced as a whole, points and all.
    done = run([*command[:-2], "--out", out, "--force"])
    if done.returncode != 0 or load(os.path.join(out, "results.json"))["status"] != "complete":
        fail(f"the forced sweep exited with {done.returncode}")
    # Its points were written beside the old sweep first; their resolved cases name where they
    # are now, so that rerunning one writes beside it there.
    for point in sorted(os.listdir(out)):
        resolved = os.path.join(out, point, "case.resolved.json")
        if os.path.isfile(resolved):
            named = load(resolved)["run"]["output"]
            if os.path.realpath(named) != os.path.realpath(os.path.join(out, point)):
                fail(f"after --force, {resolved} names {named} as its output")
    # An unknown figure: the figures there are are listed; the previous sweep stays.
    done = run([haloflow, "sweep", case, "--set", "jacobi2d.nx=32,64", "--set", "run.steps=2",
                *QUIET, "--figures", "speed", "--out", out, "--force"])
    if done.returncode == 0 or "--figures speed" not in done.stderr:
        fail("an unknown figure was not refused")
    for name in ("time_per_step", "bandwidth", "step_time_us.p90", "jacobi2d.final_norm"):
        if name not in done.stderr:
            fail(f"the refusal of an unknown figure does not list {name}")
    if len(load(os.path.join(out, "results.json"))["points"]) != 3:
        fail("the refused sweep replaced the previous one")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("override", "sweep"):
        fail("usage: check_sweep.py override|sweep HALOFLOW CASE OUT")
    {"override": override, "sweep": sweep}[sys.argv[1]](*sys.argv[2:])
    print("check_sweep: ok")


if __name__ == "__main__":
    main()
