// The overlap report on hand-made spans, where every number is known exactly: lane spans,
// concurrent time, hidden fraction, critical path, idle gaps and per-node spread.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"

using namespace haloflow;

namespace {

// The seed's shape: interior on the bulk lane; pack, download, exchange (host), upload, unpack,
// boundary chained on the communication lane.
enum Node : std::size_t { interior, pack, download, exchange, upload, unpack, boundary };

Trace seed_shaped_trace() {
  constexpr Lane comm = Lane::communication;
  Trace trace{.plan = "hand-made", .executor = "test", .clock = "made up", .rank = 0};
  trace.nodes = {{"interior_flux", Lane::bulk, NodeKind::kernel, {}},
                 {"pack", comm, NodeKind::kernel, {}},
                 {"download", comm, NodeKind::copy, {pack}},
                 {"exchange", comm, NodeKind::host, {download}},
                 {"upload", comm, NodeKind::copy, {exchange}},
                 {"unpack", comm, NodeKind::kernel, {upload}},
                 {"boundary_flux", comm, NodeKind::kernel, {unpack}}};
  trace.frames = {{0, 0, 100}, {1, 100, 200}};
  // Frame 1 is frame 0 shifted by 100 us, with an exchange 10 us longer (and the rest of the
  // chain 10 us later).
  const auto add = [&](std::size_t node, double start, double end) {
    trace.spans.push_back({node, 0, start, end});
    trace.spans.push_back({node, 1, 100 + start + (node >= upload ? 10 : 0),
                           100 + end + (node >= exchange ? 10 : 0)});
  };
  add(interior, 5, 45);
  add(pack, 5, 10);
  add(download, 12, 20);
  add(exchange, 20, 50);
  add(upload, 52, 60);
  add(unpack, 61, 66);
  add(boundary, 66, 80);
  return trace;
}

std::vector<std::string> names(const Trace& trace, const std::vector<std::size_t>& nodes) {
  std::vector<std::string> out;
  for (const std::size_t node : nodes) out.push_back(trace.nodes.at(node).name);
  return out;
}

}  // namespace

TEST_CASE("the overlap report of one frame: spans, concurrency, hidden fraction") {
  const Trace trace = seed_shaped_trace();
  const OverlapReport report = analyze(trace);
  REQUIRE(report.frames.size() == 2);
  const FrameOverlap& f = report.frames[0];
  CHECK(f.frame_us == 100);
  CHECK(f.work_us == 75);           // 5 to 80
  CHECK(f.interior_us == 40);       // 5 to 45
  CHECK(f.communication_us == 75);  // 5 to 80
  // The chain is busy over [5,10], [12,50], [52,60], [61,80]; within the interior's [5,45]:
  // 5 + 33 us.
  CHECK(f.concurrent_us == 38);
  CHECK(f.hidden == doctest::Approx(38.0 / 40.0));
  // The chain's span holds the interior's whole span: all of it hidden by that measure.
  CHECK(f.span_overlap_us == 40);
  CHECK(f.hidden_span == 1);
}

TEST_CASE("the critical path is the heaviest dependency chain by measured durations") {
  const Trace trace = seed_shaped_trace();
  const OverlapReport report = analyze(trace);
  const FrameOverlap& f = report.frames[0];
  CHECK(f.critical_path_us == 70);  // 5 + 8 + 30 + 8 + 5 + 14, over the interior's 40
  CHECK(names(trace, f.critical_path) == std::vector<std::string>{"pack", "download", "exchange",
                                                                  "upload", "unpack",
                                                                  "boundary_flux"});
  CHECK(report.frames[1].critical_path_us == 80);
  CHECK(f.critical_path_us <= f.work_us);

  // Make the boundary wait for the interior too, and lengthen the interior: that chain wins.
  Trace longer = trace;
  longer.nodes[boundary].after.push_back(interior);
  for (NodeSpan& span : longer.spans) {
    if (span.node == interior && span.frame == 0) span.end_us = 65;
  }
  const OverlapReport longer_report = analyze(longer);
  const FrameOverlap& g = longer_report.frames[0];
  CHECK(g.critical_path_us == 74);  // 60 + 14
  CHECK(names(longer, g.critical_path) ==
        std::vector<std::string>{"interior_flux", "boundary_flux"});
}

TEST_CASE("idle gaps: stretches with no kernel or copy, above the threshold, named") {
  const Trace trace = seed_shaped_trace();
  const OverlapReport report = analyze(trace);
  // Kernels and copies cover [5,45], [52,60], [61,80]: idle [45,52] (7 us) and [60,61], which
  // is 1 us and so not above the 1 us threshold.
  const FrameOverlap& f = report.frames[0];
  REQUIRE(f.gaps.size() == 1);
  CHECK(f.gaps[0].start_us == 45);
  CHECK(f.gaps[0].end_us == 52);
  CHECK(f.gaps[0].after == std::optional<std::size_t>{interior});
  CHECK(f.gaps[0].before == std::optional<std::size_t>{upload});
  CHECK(f.idle_us == 7);
  CHECK(report.frames[1].idle_us == 17);  // [145,162]

  // With a threshold under 1 us the short one is counted too.
  const OverlapReport fine = analyze(trace, 0.5);
  CHECK(fine.frames[0].gaps.size() == 2);
  CHECK(fine.frames[0].idle_us == 8);
}

TEST_CASE("per-node spread and the medians over frames") {
  const Trace trace = seed_shaped_trace();
  const OverlapReport report = analyze(trace);
  REQUIRE(report.nodes.size() == 7);
  const NodeStats& exchange_stats = report.nodes[exchange];
  CHECK(exchange_stats.runs == 2);
  CHECK(exchange_stats.median_us == 35);
  CHECK(exchange_stats.min_us == 30);
  CHECK(exchange_stats.p90_us == 40);
  CHECK(exchange_stats.max_us == 40);
  CHECK(report.nodes[pack].median_us == 5);
  CHECK(report.frame_us == 100);
  CHECK(report.critical_path_us == 75);
  CHECK(report.idle_us == 12);
  CHECK(report.hidden == doctest::Approx(0.95));
  CHECK(report.median_frame == 0);  // equal frame times: the lower of the two
}

TEST_CASE("a lane that did not run hides nothing; an empty trace has an empty report") {
  Trace trace = seed_shaped_trace();
  std::erase_if(trace.spans, [](const NodeSpan& span) { return span.node == interior; });
  const OverlapReport report = analyze(trace);
  CHECK(report.frames[0].interior_us == 0);
  CHECK(report.frames[0].concurrent_us == 0);
  CHECK(report.frames[0].hidden == 0);
  CHECK(report.nodes[interior].runs == 0);

  const OverlapReport none = analyze(Trace{});
  CHECK(none.frames.empty());
  CHECK(none.nodes.empty());
}

TEST_CASE("a span that names a missing node or frame is refused, by name") {
  Trace trace = seed_shaped_trace();
  trace.spans.push_back({pack, 5, 1, 2});
  CHECK_THROWS_WITH_AS((void)analyze(trace),
                       "overlap report of 'hand-made': node 'pack' has a span in frame 5, but 2 "
                       "frames were recorded",
                       Error);
  trace.spans.back() = {42, 0, 1, 2};
  CHECK_THROWS_WITH_AS((void)analyze(trace),
                       "overlap report of 'hand-made': a span names node 42, but the plan has 7",
                       Error);
}

TEST_CASE("overlapping spans of one lane go to separate tracks, the fewest needed") {
  Trace trace;
  trace.nodes = {{"a", Lane::communication, NodeKind::kernel, {}},
                 {"b", Lane::communication, NodeKind::kernel, {}},
                 {"c", Lane::communication, NodeKind::kernel, {}},
                 {"bulk", Lane::bulk, NodeKind::kernel, {}}};
  trace.frames = {{0, 0, 10}};
  trace.spans = {{0, 0, 0, 4}, {1, 0, 2, 6}, {2, 0, 5, 8}, {3, 0, 0, 10}};
  CHECK(lane_tracks(trace) == std::vector<int>{0, 1, 0, 0});
}
