#!/usr/bin/env python3
"""Checks the files `haloflow replay` wrote: the SVG is well-formed XML with one row per branch,
the Chrome trace parses and has an event for every node the report lists, every span lies
inside its frame, and the report's numbers are consistent.

usage: check_replay_outputs.py TRACE.json TIMELINE.svg REPORT.json
"""
import json
import sys
import xml.dom.minidom

SLACK = 1e-6  # microseconds, as printed and parsed back


def fail(message):
    sys.exit(f"check_replay_outputs: {message}")


def main(trace_path, svg_path, report_path):
    svg = xml.dom.minidom.parse(svg_path)
    rows = [g.getAttribute("data-lane") for g in svg.getElementsByTagName("g")
            if g.getAttribute("class") == "row"]
    if sorted(rows) != ["bulk", "communication"]:
        fail(f"{svg_path}: expected one row per branch (bulk, communication), found {rows}")

    with open(report_path) as f:
        report = json.load(f)
    with open(trace_path) as f:
        trace = json.load(f)
    frames = {}
    for event in trace["traceEvents"]:
        if event["ph"] == "X" and event.get("cat") == "frame":
            frames[event["args"]["frame"]] = (event["ts"], event["ts"] + event["dur"])
    if len(frames) != report["frames_recorded"]:
        fail(f"{trace_path}: {len(frames)} frames, the report says {report['frames_recorded']}")
    seen = set()
    for event in trace["traceEvents"]:
        if event["ph"] != "X" or event.get("cat") == "frame":
            continue
        seen.add(event["name"])
        start, end = frames[event["args"]["frame"]]
        if event["ts"] < start - SLACK or event["ts"] + event["dur"] > end + SLACK:
            fail(f"{trace_path}: '{event['name']}' at {event['ts']} lies outside its frame")
    expected = {node["name"] for node in report["nodes"]}
    if seen != expected:
        fail(f"{trace_path}: nodes {sorted(seen)}, expected {sorted(expected)}")

    for frame in report["frames"]:
        if not 0 <= frame["hidden_fraction"] <= frame["hidden_fraction_spans"] <= 1:
            fail(f"frame {frame['frame']}: hidden fractions {frame['hidden_fraction']} and "
                 f"{frame['hidden_fraction_spans']} (by spans) outside 0 <= concurrent <= spans <= 1")
        if frame["critical_path"]["us"] > frame["frame_us"] + SLACK:
            fail(f"frame {frame['frame']}: critical path longer than the frame")
    print(f"check_replay_outputs: {len(frames)} frames, {len(seen)} nodes, 2 rows: ok")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
