#!/usr/bin/env python3
"""Checks the files `haloflow replay` wrote, for every rank: the SVG is well-formed XML with one row
per rank and branch; the Chrome trace parses, has a process per rank with an event for every node
that ran, every span inside its frame, and flow arrows that go forward in time; the report has each
rank's numbers, consistent; the ranks' frames lie on one clock (no rank's frame more than a few
frames away from rank 0's).

usage: check_replay_outputs.py TRACE.json TIMELINE.svg REPORT.json [--ranks N]
"""
import json
import sys
import xml.dom.minidom

SLACK = 1e-6  # microseconds, as printed and parsed back


def fail(message):
    sys.exit(f"check_replay_outputs: {message}")


def check_svg(svg_path, ranks):
    svg = xml.dom.minidom.parse(svg_path)
    rows = sorted((g.getAttribute("data-rank"), g.getAttribute("data-lane"))
                  for g in svg.getElementsByTagName("g") if g.getAttribute("class") == "row")
    expected = sorted((str(r), lane) for r in ranks for lane in ("bulk", "communication"))
    if rows != expected:
        fail(f"{svg_path}: expected a row per rank and branch {expected}, found {rows}")


def check_trace(trace_path, report):
    with open(trace_path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    processes = {e["pid"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    ranks = [r["rank"] for r in report["ranks"]]
    if sorted(processes) != sorted(ranks):
        fail(f"{trace_path}: processes {sorted(processes)}, expected one per rank {ranks}")
    frames = {}
    for e in events:
        if e["ph"] == "X" and e.get("cat") == "frame":
            frames[(e["pid"], e["args"]["frame"])] = (e["ts"], e["ts"] + e["dur"])
    seen = {r: set() for r in ranks}
    for e in events:
        if e["ph"] != "X" or e.get("cat") == "frame":
            continue
        seen[e["pid"]].add(e["name"])
        start, end = frames[(e["pid"], e["args"]["frame"])]
        if e["ts"] < start - SLACK or e["ts"] + e["dur"] > end + SLACK:
            fail(f"{trace_path}: rank {e['pid']}: '{e['name']}' at {e['ts']} lies outside its frame")
    for rank_report in report["ranks"]:
        rank = rank_report["rank"]
        count = sum(1 for (pid, _) in frames if pid == rank)
        if count != rank_report["frames_recorded"]:
            fail(f"{trace_path}: rank {rank}: {count} frames, the report says "
                 f"{rank_report['frames_recorded']}")
        ran = {node["name"] for node in rank_report["nodes"] if node["runs"] > 0}
        if seen[rank] != ran:
            fail(f"{trace_path}: rank {rank}: nodes {sorted(seen[rank])}, expected {sorted(ran)}")
    flows = {}
    for e in events:
        if e.get("cat") == "dependency":
            flows.setdefault(e["id"], {})[e["ph"]] = e["ts"]
    for flow_id, ends in flows.items():
        if set(ends) != {"s", "f"} or ends["s"] > ends["f"] + SLACK:
            fail(f"{trace_path}: flow {flow_id} is not a start before its end: {ends}")
    return frames, len(flows)


def check_clocks(frames, ranks, count):
    """Every rank's frame k starts within a few frames of rank 0's (one clock, not one per rank)."""
    longest = max(end - start for start, end in frames.values())
    for k in range(count):
        start0 = frames[(ranks[0], k)][0]
        for rank in ranks[1:]:
            start = frames[(rank, k)][0]
            if abs(start - start0) > 3 * longest + 1000:
                fail(f"rank {rank}'s frame {k} starts at {start} us, rank {ranks[0]}'s at "
                     f"{start0} us: the traces are not on one clock")


def main(argv):
    args = argv[1:]
    expected_ranks = None
    if "--ranks" in args:
        at = args.index("--ranks")
        expected_ranks = int(args[at + 1])
        del args[at:at + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    trace_path, svg_path, report_path = args
    with open(report_path) as f:
        report = json.load(f)
    ranks = [r["rank"] for r in report["ranks"]]
    if expected_ranks is not None and ranks != list(range(expected_ranks)):
        fail(f"{report_path}: ranks {ranks}, expected 0 to {expected_ranks - 1}")
    for rank_report in report["ranks"]:
        for frame in rank_report["frames"]:
            if not 0 <= frame["hidden_fraction"] <= frame["hidden_fraction_spans"] <= 1:
                fail(f"rank {rank_report['rank']} frame {frame['frame']}: hidden fractions "
                     f"{frame['hidden_fraction']} and {frame['hidden_fraction_spans']} (by spans) "
                     "outside 0 <= concurrent <= spans <= 1")
            if frame["critical_path"]["us"] > frame["frame_us"] + SLACK:
                fail(f"rank {rank_report['rank']} frame {frame['frame']}: critical path longer "
                     "than the frame")
    check_svg(svg_path, ranks)
    frames, flows = check_trace(trace_path, report)
    check_clocks(frames, ranks, report["frames_recorded"])
    print(f"check_replay_outputs: {len(ranks)} rank(s), {report['frames_recorded']} frames each, "
          f"{flows} dependency arrows, {2 * len(ranks)} rows: ok")


if __name__ == "__main__":
    main(sys.argv)
