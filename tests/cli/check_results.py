#!/usr/bin/env python3
"""Checks a model run's results.json: its format_version; the per-step time percentiles are
there, ascending, and count the steps the run was asked for; a GPU run has the overlap
measurement (three positive times, a hidden fraction in [0, 1]); with --executor all, each
compared executor has its own percentiles and overlap. It holds what the printed report says
(model_output.txt beside it): "run" (how it ran, what it moved; a fraction of the copy bandwidth
only against a measured one, never on the host executor), and the model's own section: jacobi2d
its every norm, heat3d its errors, euler2d its density errors and conservation. Its strings are
clean (no tab or other control character), and "files" lists every file the run wrote with its
size on disk.
    check_results.py RESULTS_JSON STEPS"""
import json
import math
import os
import sys

FORMAT_VERSION = 2

ORDER = ["min", "p10", "median", "p90", "p99", "max"]


def percentile_problems(times, steps, where):
    if times is None:
        return [f"{where}: no step times"]
    missing = [name for name in ORDER if name not in times]
    if missing:
        return [f"{where}: lacks {missing}"]
    values = [times[name] for name in ORDER]
    problems = []
    if any(value <= 0 for value in values) or values != sorted(values):
        problems.append(f"{where}: percentiles not positive and ascending: {values}")
    if times.get("steps") != steps:
        problems.append(f"{where}: {times.get('steps')} steps, expected {steps}")
    return problems


def overlap_problems(overlap, where):
    if overlap is None:
        return [f"{where}: a GPU run without the overlap measurement"]
    problems = []
    for key in ["frame_us", "interior_alone_us", "communication_alone_us"]:
        if not overlap.get(key, 0) > 0:
            problems.append(f"{where}: overlap {key} is {overlap.get(key)}")
    if not 0 <= overlap.get("hidden", -1) <= 1:
        problems.append(f"{where}: hidden fraction {overlap.get('hidden')} outside [0, 1]")
    return problems


def strings(value, where="results"):
    """Every string in the document, with where it is."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, f"{where}[{index}]")


def finite(value):
    return isinstance(value, (int, float)) and math.isfinite(value)


def report_problems(results, path):
    """What the printed report says is in results.json too."""
    problems = []
    if results.get("format_version") != FORMAT_VERSION:
        problems.append(f"format_version {results.get('format_version')}, expected "
                        f"{FORMAT_VERSION}")
    for where, text in strings(results):
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text) or text != text.strip():
            problems.append(f"{where}: {text!r} is not a clean string")
    run = results.get("run", {})
    for key in ["description", "precision", "executor", "ranks", "process_grid", "steps",
                "warmup", "bytes_per_step", "achieved_Bps"]:
        if key not in run:
            problems.append(f"run.{key} is missing")
    copy = run.get("copy_bandwidth_Bps")
    fraction = run.get("fraction_of_copy_bandwidth")
    if run.get("executor") == "host" and (copy is not None or fraction is not None):
        problems.append(f"a host-executor run compared with a copy bandwidth ({copy})")
    above = run.get("above_copy_bandwidth")
    # A fraction wherever there is a copy bandwidth, but none above it (no percentage above what
    # was measured), and never above 1.
    if (copy is None) != (fraction is None and not above) or (copy is not None and not copy > 0):
        problems.append(f"copy bandwidth {copy} and fraction {fraction} disagree")
    if fraction is not None and (above or not 0 < fraction <= 1):
        problems.append(f"fraction {fraction} of the copy bandwidth with above={above}")
    model = results.get("model", {}).get("result", {}).get("model")
    section = results.get(model) or {}
    if model == "jacobi2d":
        norms, at = section.get("norms", []), section.get("norm_steps", [])
        if section.get("norm_every", 0) > 0 and (not norms or len(norms) != len(at)):
            problems.append(f"jacobi2d: norm history {len(norms)} norms at {len(at)} steps")
        if at != sorted(at) or not all(finite(n) and n >= 0 for n in norms):
            problems.append("jacobi2d: norm history not ascending in steps, or a bad norm")
        if norms and section.get("final_norm") != norms[-1]:
            problems.append("jacobi2d: final_norm is not the last norm")
    elif model == "heat3d":
        for key in ["dt", "t", "amplitude_exact", "amplitude_scheme", "error_max",
                    "predicted_error_max", "error_rms"]:
            if not finite(section.get(key)):
                problems.append(f"heat3d.{key} is {section.get(key)}")
        if finite(section.get("error_rms")) and section["error_rms"] > section["error_max"]:
            problems.append("heat3d: rms error above the max error")
    elif model == "euler2d":
        errors = section.get("density_error")
        if section.get("case") != "kh":
            if not errors or not all(finite(errors.get(k)) for k in ["l1", "l2", "linf"]):
                problems.append(f"euler2d.density_error is {errors}")
            elif section.get("case", "").startswith("sod"):
                waves = errors.get("l1_by_wave", {})
                if abs(sum(waves.values()) - errors["l1"]) > 1e-9 * max(errors["l1"], 1e-300):
                    problems.append(f"euler2d: the L1 error by wave {waves} does not sum to "
                                    f"{errors['l1']}")
        conservation = section.get("conservation", {})
        if sorted(conservation) != sorted(["mass", "x-momentum", "y-momentum", "energy"]):
            problems.append(f"euler2d.conservation holds {sorted(conservation)}")
        for name, entry in conservation.items():
            if not all(finite(entry.get(k)) for k in ["initial", "final", "change"]):
                problems.append(f"euler2d.conservation.{name}: {entry}")
    run_dir = os.path.dirname(os.path.abspath(path))
    files = results.get("files", [])
    if not files:
        problems.append("files: none listed")
    for entry in files:
        name = entry["file"]
        full = name if os.path.isabs(name) else os.path.join(run_dir, name)
        if not os.path.isabs(name) and name.startswith(".."):
            continue
        if os.path.exists(full) and os.path.getsize(full) != entry["bytes"]:
            problems.append(f"files: {name} listed with {entry['bytes']} bytes, "
                            f"{os.path.getsize(full)} on disk")
        elif not os.path.exists(full) and not os.path.exists(name):
            problems.append(f"files: {name} is listed but not there")
    return problems


def main() -> int:
    path, steps = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as stream:
        results = json.load(stream)
    problems = percentile_problems(results.get("step_time_us"), steps, "step_time_us")
    problems += report_problems(results, path)
    executor = results.get("model", {}).get("result", {}).get("executor")
    if executor is None:
        problems.append("model.result.executor is missing")
    elif executor != "host":
        problems += overlap_problems(results.get("overlap"), "overlap")
    rows = results.get("executor_comparison", {}).get("runs", [])
    for row in rows:
        where = f"executor_comparison {row.get('executor')}"
        problems += percentile_problems(row.get("step_time_us"), steps, where)
        problems += overlap_problems(row.get("overlap"), where)
    for problem in problems:
        print(f"check_results: {path}: {problem}")
    if problems:
        return 1
    times = results["step_time_us"]
    hidden = results.get("overlap", {}).get("hidden")
    print(f"check_results: {steps} steps on {executor}, median {times['median']:.1f} us, "
          f"p99 {times['p99']:.1f} us, hidden {'n/a' if hidden is None else f'{100 * hidden:.1f} %'}"
          f", {len(rows)} executors compared, 0 failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
