#!/usr/bin/env python3
"""What `haloflow replay` prints, read as a user reads it. Runs the command given after `--` and
checks its output:
- progress while recording: rank 0's "progress: frame N/M" lines, at least one and at most 12,
  all before the results;
- the summary across the ranks first ("R ranks, medians  min avg max", a row per figure, each
  row's min <= avg <= max), each rank's node and frame tables only with --per-frame (then one
  per rank), and without it a short report (fewer than 60 lines);
- no node row of zeros (a node that never ran, or ran in no time, is left out and said so);
- the recording's cost never negative: a cost, or "within noise";
- on the host executor no GPU row or column (GPU idle, idle us).

usage: check_replay_console.py --ranks R [--per-frame] [--host] -- COMMAND...
"""
import re
import subprocess
import sys


def main(argv):
    args = argv[1:]
    if "--" not in args:
        sys.exit(__doc__)
    at = args.index("--")
    options, command = args[:at], args[at + 1:]
    ranks = int(options[options.index("--ranks") + 1])
    per_frame = "--per-frame" in options
    host = "--host" in options
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    text = run.stdout + run.stderr
    lines = text.splitlines()
    failures = []
    if run.returncode != 0:
        failures.append(f"exited {run.returncode}")

    progress = [i for i, line in enumerate(lines) if re.match(r"progress: frame \d+/\d+", line)]
    heading = next((i for i, line in enumerate(lines) if line.startswith("replay of ")), None)
    if heading is None:
        failures.append("no 'replay of' heading")
        heading = len(lines)
    if not 1 <= len(progress) <= 12:
        failures.append(f"{len(progress)} progress lines, expected 1 to 12 (not one per frame)")
    if progress and progress[-1] > heading:
        failures.append("a progress line after the results")

    plural = "s" if ranks > 1 else ""
    summary = next((i for i, line in enumerate(lines)
                    if re.match(rf"{ranks} rank{plural}, medians +min +avg +max$", line)), None)
    tables = [i for i, line in enumerate(lines) if re.match(r"\s*frame +frame us +interior", line)]
    if summary is None:
        failures.append(f"no summary across the {ranks} rank(s) (min, avg, max)")
    else:
        for line in lines[summary + 1:]:
            match = re.match(r"(.+?) +(-?[0-9.]+)%? +(-?[0-9.]+)%? +(-?[0-9.]+)%?$", line)
            if not match:
                break
            low, avg, high = (float(match.group(k)) for k in (2, 3, 4))
            if not (low <= avg + 0.05 and avg <= high + 0.05):
                failures.append(f"summary row not min <= avg <= max: {line}")
        if tables and tables[0] < summary:
            failures.append("a per-frame table before the summary")
    if per_frame and len(tables) != ranks:
        failures.append(f"--per-frame: {len(tables)} frame tables, expected one per rank ({ranks})")
    if not per_frame:
        if tables:
            failures.append("frame tables without --per-frame")
        if len(lines) >= 60:
            failures.append(f"{len(lines)} lines without --per-frame, expected fewer than 60")

    for line in lines:
        if re.search(r"\s0\s+0\.0\s+0\.0\s+0\.0\s+0\.0$", line):
            failures.append(f"a node row of zeros: {line}")
        if "recording costs" in line and re.search(r"costs -|\(-[0-9]|costs [0-9.]+ us per frame \(-", line):
            failures.append(f"a negative recording cost: {line}")
        if host and re.search(r"GPU idle|idle us", line):
            failures.append(f"a GPU row on the host executor: {line}")
    if not any("recording costs" in line for line in lines):
        failures.append("no line says what recording costs")

    for failure in failures:
        print("FAILED: " + failure)
    if failures:
        print("--- output ---\n" + text)
    print(f"check_replay_console: {len(lines)} lines, {len(progress)} progress lines, "
          f"{len(tables)} frame tables, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
