// The replay's outputs from a hand-made trace: Chrome trace-event JSON, the SVG timeline, the
// report as JSON, and the options that choose them.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>

#include "haloflow/error.hpp"
#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"
#include "overlap_output.hpp"
#include "replay.hpp"
#include "trace_chrome.hpp"
#include "trace_svg.hpp"

using namespace haloflow;

namespace {

// Two frames of a bulk kernel beside a three-node chain, one of whose names needs escaping.
Trace small_trace() {
  constexpr Lane comm = Lane::communication;
  Trace trace{.plan = "small", .executor = "host", .clock = "made up", .rank = 3};
  trace.nodes = {{"interior", Lane::bulk, NodeKind::kernel, {}},
                 {"pack", comm, NodeKind::kernel, {}},
                 {"send & <receive>", comm, NodeKind::host, {1}},
                 {"unpack", comm, NodeKind::kernel, {2}}};
  trace.frames = {{0, 0, 50}, {1, 50, 100}};
  for (int f = 0; f < 2; ++f) {
    const double at = 50.0 * f;
    trace.spans.push_back({0, f, at + 1, at + 40});
    trace.spans.push_back({1, f, at + 1, at + 3});
    trace.spans.push_back({2, f, at + 3, at + 30});
    trace.spans.push_back({3, f, at + 31, at + 45});
  }
  return trace;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

}  // namespace

TEST_CASE("the Chrome trace has a process per rank, a thread per lane, an event per node run") {
  const Trace trace = small_trace();
  const auto json = nlohmann::json::parse(app::chrome_trace(trace).dump());
  std::set<std::string> names;
  std::map<int, std::string> threads;
  int node_events = 0;
  for (const auto& event : json.at("traceEvents")) {
    CHECK(event.at("pid") == 3);
    if (event.at("ph") == "M" && event.at("name") == "thread_name") {
      threads[event.at("tid").get<int>()] = event.at("args").at("name").get<std::string>();
    }
    if (event.at("ph") != "X" || event.at("cat") == "frame") continue;
    ++node_events;
    names.insert(event.at("name").get<std::string>());
    CHECK(event.at("dur").get<double>() > 0);
    CHECK(event.at("args").contains("frame"));
    CHECK(event.at("args").contains("kind"));
  }
  CHECK(node_events == 8);
  CHECK(names == std::set<std::string>{"interior", "pack", "send & <receive>", "unpack"});
  CHECK(threads == std::map<int, std::string>{
                       {0, "frames"}, {1, "interior (bulk lane)"}, {2, "communication chain"}});
  CHECK(json.at("otherData").at("frames") == 2);
}

TEST_CASE("the SVG timeline has a row per branch, every node labelled, names escaped") {
  const Trace trace = small_trace();
  const OverlapReport report = analyze(trace);
  const std::string svg = app::timeline_svg(trace, report, {0, 1});
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(count(svg, "<g class=\"row\"") == 2);
  CHECK(count(svg, "data-lane=\"bulk\"") == 1);
  CHECK(count(svg, "data-lane=\"communication\"") == 1);
  CHECK(svg.find("send &amp; &lt;receive&gt;") != std::string::npos);
  CHECK(svg.find("send & <") == std::string::npos);
  CHECK(count(svg, "<svg") == 1);
  CHECK(count(svg, "</svg>") == 1);
  // One frame: four boxes (and their tooltips) out of eight spans.
  CHECK(count(svg, "), frame 0:") == 4);
  CHECK(count(svg, "), frame 1:") == 0);
  const std::string both = app::timeline_svg(trace, report, {0, 2});
  CHECK(count(both, "), frame 1:") == 4);
  CHECK(both.find(">frame 1</text>") != std::string::npos);
}

TEST_CASE("--window is first:count inside the recorded frames") {
  CHECK(app::parse_window("2:3", 5).first == 2);
  CHECK(app::parse_window("2:3", 5).count == 3);
  CHECK_THROWS_WITH_AS((void)app::parse_window("2-3", 5),
                       "--window 2-3: expected first:count, e.g. 0:3 (frames 0, 1 and 2)", Error);
  CHECK_THROWS_WITH_AS((void)app::parse_window("4:2", 5),
                       "--window 4:2: the replay records frames 0 to 4; expected a first frame "
                       "and a count of at least 1 inside them",
                       Error);
  CHECK_THROWS_AS((void)app::parse_window("0:0", 5), Error);
  CHECK_THROWS_AS((void)app::parse_window(":1", 5), Error);
}

TEST_CASE("the report as JSON names nodes, and keeps every frame's path and gaps") {
  const Trace trace = small_trace();
  const auto json = app::overlap_to_json(trace, analyze(trace));
  CHECK(json.at("nodes").size() == 4);
  REQUIRE(json.at("frames").size() == 2);
  const auto& frame = json.at("frames")[1];
  CHECK(frame.at("critical_path").at("nodes") ==
        nlohmann::json::array({"pack", "send & <receive>", "unpack"}));
  CHECK(frame.at("critical_path").at("us") == 2 + 27 + 14);
  // The interior keeps the GPU busy while the host node runs: no idle gap.
  CHECK(frame.at("gpu_idle_gaps").empty());
  CHECK(json.at("summary").at("hidden_fraction").get<double>() >= 0);
  const std::string text = app::format_overlap(trace, analyze(trace));
  CHECK(text.find("critical path, 43.0 us: pack -> send & <receive> -> unpack") !=
        std::string::npos);
}

TEST_CASE("the CUDA graph's DOT goes next to the plan's") {
  CHECK(app::cuda_dot_path("out/frame.dot") == "out/frame.cuda.dot");
  CHECK(app::cuda_dot_path("frame") == "frame.cuda.dot");
}
