#!/usr/bin/env python3
"""Checks a model run's results.json: the per-step time percentiles are there, in order, and
count the steps the run was asked for.
    check_results.py RESULTS_JSON STEPS"""
import json
import sys


def main() -> int:
    path, steps = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as stream:
        results = json.load(stream)
    times = results.get("step_time_us")
    if times is None:
        print(f"check_results: {path}: no step_time_us")
        return 1
    order = ["min", "p10", "median", "p90", "p99", "max"]
    missing = [name for name in order if name not in times]
    if missing:
        print(f"check_results: {path}: step_time_us lacks {missing}")
        return 1
    values = [times[name] for name in order]
    if any(value <= 0 for value in values) or values != sorted(values):
        print(f"check_results: {path}: percentiles not positive and ascending: {values}")
        return 1
    if times.get("steps") != steps:
        print(f"check_results: {path}: {times.get('steps')} steps, expected {steps}")
        return 1
    print(f"check_results: {steps} steps, median {times['median']:.1f} us, p99 {times['p99']:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
