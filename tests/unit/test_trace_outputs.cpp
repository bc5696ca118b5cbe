// The replay's outputs from hand-made traces: Chrome trace-event JSON (the engine's writer, one
// process per rank, flow arrows for dependencies), the SVG timeline (a row per rank and lane),
// the report as JSON, and the options that choose them.

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "haloflow/error.hpp"
#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"
#include "haloflow/trace_writers.hpp"
#include "haloflow/xml_text.hpp"
#include "overlap_output.hpp"
#include "replay.hpp"

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

nlohmann::json chrome_json(const std::vector<Trace>& traces) {
  std::ostringstream out;
  write_chrome_trace(out, traces);
  return nlohmann::json::parse(out.str());
}

std::string timeline(const std::vector<Trace>& traces, TimelineWindow window) {
  std::ostringstream out;
  write_svg_timeline(out, traces, window);
  return out.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

}  // namespace

TEST_CASE("the Chrome trace has a process per rank, a thread per lane, an event per node run") {
  const Trace trace = small_trace();
  const auto json = chrome_json({trace});
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
  CHECK(json.at("otherData").at("ranks").at(0).at("frames") == 2);
}

TEST_CASE("the Chrome trace draws a flow arrow from each dependency's run to its dependent's") {
  const auto json = chrome_json({small_trace()});
  std::map<long long, std::pair<double, double>> flows;  // id -> (start ts, end ts)
  for (const auto& event : json.at("traceEvents")) {
    if (event.value("cat", "") != "dependency") continue;
    auto& flow = flows[event.at("id").get<long long>()];
    if (event.at("ph") == "s") flow.first = event.at("ts").get<double>();
    if (event.at("ph") == "f") {
      CHECK(event.at("bp") == "e");
      flow.second = event.at("ts").get<double>();
    }
  }
  // Two edges (pack -> send, send -> unpack) in each of two frames.
  REQUIRE(flows.size() == 4);
  for (const auto& [id, flow] : flows) CHECK(flow.first <= flow.second);
}

TEST_CASE("several ranks' traces merge into one Chrome trace, a process per rank") {
  Trace other = small_trace();
  other.rank = 5;
  const auto json = chrome_json({small_trace(), other});
  std::map<int, std::string> processes;
  for (const auto& event : json.at("traceEvents")) {
    if (event.at("ph") == "M" && event.at("name") == "process_name") {
      processes[event.at("pid").get<int>()] = event.at("args").at("name").get<std::string>();
    }
  }
  CHECK(processes == std::map<int, std::string>{{3, "rank 3: small (host executor)"},
                                                {5, "rank 5: small (host executor)"}});
  CHECK(json.at("otherData").at("ranks").size() == 2);
}

TEST_CASE("text for XML: the five reserved characters as entities, every other byte kept") {
  CHECK(haloflow::xml_escaped("") == "");
  CHECK(haloflow::xml_escaped("halo.exchange") == "halo.exchange");
  CHECK(haloflow::xml_escaped("a<b & c>\"d\" 'e'") ==
        "a&lt;b &amp; c&gt;&quot;d&quot; &apos;e&apos;");
  CHECK(haloflow::xml_escaped("&amp;") == "&amp;amp;");  // escaped once more, never decoded
  CHECK(haloflow::xml_escaped("\xc3\xa9t\xc3\xa9") == "\xc3\xa9t\xc3\xa9");  // UTF-8 as it is
}

TEST_CASE("the SVG timeline has a row per branch, every node labelled, names escaped") {
  const Trace trace = small_trace();
  const std::string svg = timeline({trace}, {0, 1});
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
  const std::string both = timeline({trace}, {0, 2});
  CHECK(count(both, "), frame 1:") == 4);
  CHECK(both.find(">frame 1</text>") != std::string::npos);
}

TEST_CASE("the SVG timeline leaves out labels that do not fit, and says so") {
  // 60 nodes of 0.1 us in a 100 us frame: far too narrow for their names, too many for the
  // lines of labels under the row.
  Trace trace{.plan = "crowded", .executor = "graph", .clock = "made up", .rank = 0};
  trace.frames = {{0, 0, 100}};
  for (int i = 0; i < 60; ++i) {
    trace.nodes.push_back(
        {fmt::format("node number {}", i), Lane::communication, NodeKind::kernel, {}});
    trace.spans.push_back({static_cast<std::size_t>(i), 0, 1.0 * i, 1.0 * i + 0.1});
  }
  const std::string svg = timeline({trace}, {0, 1});
  CHECK(count(svg, "class=\"dropped\"") == 1);
  CHECK(count(svg, "\">node number ") < 60);       // drawn labels (a tooltip follows <title>)
  CHECK(count(svg, "<title>node number ") == 60);  // every box still named by its tooltip
  CHECK(svg.find("no kernel or copy running") != std::string::npos);  // a GPU run's idle legend
  trace.executor = "host";
  const std::string host = timeline({trace}, {0, 1});
  CHECK(host.find("GPU idle") == std::string::npos);
  CHECK(host.find("no kernel or copy running") == std::string::npos);
}

TEST_CASE("the SVG timeline of several ranks has a row per rank and lane") {
  Trace other = small_trace();
  other.rank = 4;
  const std::string svg = timeline({small_trace(), other}, {0, 1});
  CHECK(count(svg, "<g class=\"row\"") == 4);
  CHECK(count(svg, "data-lane=\"bulk\" data-rank=\"3\"") == 1);
  CHECK(count(svg, "data-lane=\"communication\" data-rank=\"4\"") == 1);
  CHECK(svg.find("rank 4 interior") != std::string::npos);
  CHECK(svg.find("host executor, 2 ranks: small") != std::string::npos);
  CHECK_THROWS_WITH_AS((void)timeline({small_trace()}, {1, 2}),
                       "timeline: frames 1 to 2 asked for; rank 3 recorded 2 frames", Error);
}

TEST_CASE("--window is first:count inside the recorded frames") {
  CHECK(cases::parse_window("2:3", 5).first == 2);
  CHECK(cases::parse_window("2:3", 5).count == 3);
  CHECK_THROWS_WITH_AS((void)cases::parse_window("2-3", 5),
                       "--window 2-3: expected first:count, e.g. 0:3 (frames 0, 1 and 2)", Error);
  CHECK_THROWS_WITH_AS((void)cases::parse_window("4:2", 5),
                       "--window 4:2: the replay records frames 0 to 4; expected a first frame "
                       "and a count of at least 1 inside them",
                       Error);
  CHECK_THROWS_AS((void)cases::parse_window("0:0", 5), Error);
  CHECK_THROWS_AS((void)cases::parse_window(":1", 5), Error);
}

TEST_CASE("the report as JSON names nodes, and keeps every frame's path and gaps") {
  Trace trace = small_trace();
  trace.executor = "graph";  // the host executor has no GPU idle time to report
  const auto json = cases::overlap_to_json(trace, analyze(trace));
  CHECK(json.at("nodes").size() == 4);
  REQUIRE(json.at("frames").size() == 2);
  const auto& frame = json.at("frames")[1];
  CHECK(frame.at("critical_path").at("nodes") ==
        nlohmann::json::array({"pack", "send & <receive>", "unpack"}));
  CHECK(frame.at("critical_path").at("us") == 2 + 27 + 14);
  // The interior keeps the GPU busy while the host node runs: no idle gap.
  CHECK(frame.at("gpu_idle_gaps").empty());
  CHECK(json.at("summary").at("hidden_fraction").get<double>() >= 0);
  const std::string text = cases::format_overlap(trace, analyze(trace));
  CHECK(text.find("critical path, 43.0 us: pack -> send & <receive> -> unpack") !=
        std::string::npos);
}

TEST_CASE("on the host executor neither the report nor its JSON has GPU idle figures") {
  const Trace trace = small_trace();
  const auto json = cases::overlap_to_json(trace, analyze(trace));
  CHECK(json.at("summary").at("gpu_idle_us").is_null());
  CHECK(json.at("frames")[0].at("gpu_idle_gaps").is_null());
  CHECK(json.at("frames")[0].at("gpu_idle_us").is_null());
  const std::string text = cases::format_overlap(trace, analyze(trace));
  CHECK(text.find("idle") == std::string::npos);
  Trace graph = small_trace();
  graph.executor = "graph";
  CHECK(cases::format_overlap(graph, analyze(graph)).find("GPU idle") != std::string::npos);
}

TEST_CASE("the node table leaves out nodes that never ran or took no time, and says so") {
  Trace trace = small_trace();
  trace.nodes.push_back({"join", Lane::communication, NodeKind::empty, {3}});
  trace.nodes.push_back({"never", Lane::bulk, NodeKind::kernel, {}});
  for (int f = 0; f < 2; ++f) trace.spans.push_back({4, f, 50.0 * f + 45, 50.0 * f + 45});
  const std::string text = cases::format_overlap(trace, analyze(trace));
  CHECK(text.find("\njoin ") == std::string::npos);
  CHECK(text.find("\nnever ") == std::string::npos);
  CHECK(text.find("(2 nodes that never ran or took no time left out: join, never)") !=
        std::string::npos);
  CHECK(text.find("\ninterior ") != std::string::npos);
  // A second plan none of whose nodes ran (a frame of another step) is named once, by its plan.
  for (TraceNode& node : trace.nodes) node.plan = "step";
  trace.nodes.push_back({"norm.a", Lane::bulk, NodeKind::kernel, {}, "norm"});
  trace.nodes.push_back({"norm.b", Lane::bulk, NodeKind::kernel, {}, "norm"});
  const std::string plans = cases::format_overlap(trace, analyze(trace));
  CHECK(plans.find("(not run in the recorded frames, left out: norm)") != std::string::npos);
  CHECK(plans.find("(2 nodes that never ran or took no time left out: step: join, step: never)") !=
        std::string::npos);
  CHECK(plans.find("norm.a") == std::string::npos);
}
