#!/usr/bin/env python3
"""Checks a model run's results.json: the per-step time percentiles are there, ascending, and
count the steps the run was asked for; a GPU run has the overlap measurement (three positive
times, a hidden fraction in [0, 1]); with --executor all, each compared executor has its own
percentiles and overlap.
    check_results.py RESULTS_JSON STEPS"""
import json
import sys

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


def main() -> int:
    path, steps = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as stream:
        results = json.load(stream)
    problems = percentile_problems(results.get("step_time_us"), steps, "step_time_us")
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
