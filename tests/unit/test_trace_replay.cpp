// Recording on the host executor: the FrameRecorder on a small plan and on several frames at
// once, and `haloflow replay` of the seed case and of jacobi2d (two frames) at test size with
// their files read back. Files go to the build tree.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/recorder.hpp"
#include "replay.hpp"
#include "test_mpi.hpp"

using namespace haloflow;
namespace fs = std::filesystem;

namespace {

void busy_for(double microseconds) {
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(microseconds);
  while (std::chrono::steady_clock::now() < end) {
  }
}

fs::path fresh_directory(const std::string& name) {
  const fs::path directory = fs::path(HALOFLOW_TEST_OUTPUT_DIR) / "trace_replay" / name;
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

constexpr double kSlack = 1e-6;  // microseconds printed and parsed back

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t found = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

}  // namespace

TEST_CASE("the host recorder times every node of every recorded frame, inside its frame") {
  FramePlan plan("timed");
  plan.add_host({.name = "first"}, [] { busy_for(50); });
  plan.add_host({.name = "second", .lane = Lane::communication, .after = {"first"}},
                [] { busy_for(30); });
  plan.add_empty({.name = "join", .after = {"second"}});
  FrameRecorder recorder(ExecutorKind::host, 2);
  Frame frame(std::move(plan), ExecutorKind::host);
  recorder.attach(frame);
  frame.run();  // before start(): not recorded
  recorder.start();
  for (int f = 0; f < 3; ++f) {
    recorder.frame_begins();
    frame.run();
    recorder.frame_ends();
  }
  const Trace trace = recorder.stop();
  frame.run();  // after stop(): not recorded, and nothing points at the recorder any more

  CHECK(trace.plan == "timed");
  CHECK(trace.executor == "host");
  CHECK(trace.rank == 2);
  REQUIRE(trace.nodes.size() == 3);
  CHECK(trace.nodes[1].after == std::vector<std::size_t>{0});
  REQUIRE(trace.frames.size() == 3);
  CHECK(trace.frames[0].start_us == 0);
  REQUIRE(trace.spans.size() == 9);
  std::map<std::pair<int, std::size_t>, NodeSpan> by_frame_node;
  for (const NodeSpan& span : trace.spans) {
    const FrameSpan& frame_span = trace.frames.at(static_cast<std::size_t>(span.frame));
    CHECK(span.start_us >= frame_span.start_us);
    CHECK(span.end_us <= frame_span.end_us);
    CHECK(span.end_us >= span.start_us);
    by_frame_node[{span.frame, span.node}] = span;
  }
  CHECK(by_frame_node.size() == 9);
  for (int f = 0; f < 3; ++f) {
    CHECK(by_frame_node[{f, 0}].duration_us() >= 50);
    CHECK(by_frame_node[{f, 1}].duration_us() >= 30);
    CHECK(by_frame_node[{f, 1}].start_us >= by_frame_node[{f, 0}].end_us);
  }
}

TEST_CASE("one recorder records several frames: their nodes one plan after another") {
  FramePlan step("step");
  step.add_host({.name = "work"}, [] { busy_for(20); });
  step.add_host({.name = "send", .lane = Lane::communication, .after = {"work"}},
                [] { busy_for(10); });
  FramePlan norm("norm");
  norm.add_host({.name = "work"}, [] { busy_for(15); });
  FrameRecorder recorder(ExecutorKind::host, 0);
  Frame first(std::move(step), ExecutorKind::host);
  Frame second(std::move(norm), ExecutorKind::host);
  recorder.attach({&first, &second});
  recorder.start();
  recorder.frame_begins();  // a step that runs both frames
  first.run();
  second.run();
  recorder.frame_ends();
  recorder.frame_begins();  // a step that runs the first alone
  first.run();
  recorder.frame_ends();
  const Trace trace = recorder.stop();
  CHECK(trace.plan == "step, norm");
  REQUIRE(trace.nodes.size() == 3);
  CHECK(trace.nodes[0].plan == "step");
  CHECK(trace.nodes[1].after == std::vector<std::size_t>{0});
  CHECK(trace.nodes[2].plan == "norm");
  CHECK(trace.nodes[2].name == "work");
  CHECK(trace.nodes[2].after.empty());
  REQUIRE(trace.spans.size() == 5);
  std::map<int, std::set<std::size_t>> nodes_by_frame;
  for (const NodeSpan& span : trace.spans) nodes_by_frame[span.frame].insert(span.node);
  CHECK(nodes_by_frame[0] == std::set<std::size_t>{0, 1, 2});
  CHECK(nodes_by_frame[1] == std::set<std::size_t>{0, 1});
  CHECK(trace.origin_ns > 0);
  const OverlapReport report = analyze(trace);
  CHECK(report.nodes[2].runs == 1);

  FrameRecorder other(ExecutorKind::host, 0);
  CHECK_THROWS_WITH_AS(other.attach(std::vector<Frame*>{}),
                       "a frame recorder needs a frame to attach to", Error);
}

TEST_CASE("recorders refuse what they cannot record, and calls out of order") {
  CHECK_THROWS_WITH_AS(FrameRecorder(ExecutorKind::streams, 0),
                       "the streams executor cannot be recorded; haloflow records the graph and "
                       "host executors",
                       Error);
  if (!gpu_available()) {
    CHECK_THROWS_WITH_AS(FrameRecorder(ExecutorKind::graph, 0),
                         "recording the graph executor needs a CUDA device, and none was found "
                         "(the host executor can be recorded without one)",
                         Error);
  }
  FrameRecorder recorder(ExecutorKind::host, 0);
  CHECK_THROWS_WITH_AS(recorder.start(), "frame recorder started before attach()", Error);
  FramePlan plan("one");
  plan.add_empty({.name = "nothing"});
  Frame frame(std::move(plan), ExecutorKind::host);
  recorder.attach(frame);
  CHECK_THROWS_WITH_AS(recorder.attach(frame), "a frame recorder attaches to its frames once",
                       Error);
  CHECK_THROWS_AS(recorder.frame_begins(), Error);  // not recording yet
  recorder.start();
  CHECK_THROWS_WITH_AS(recorder.frame_ends(), "frame_ends() without frame_begins()", Error);
  recorder.frame_begins();
  CHECK_THROWS_WITH_AS(recorder.frame_begins(), "frame_begins() twice without frame_ends()", Error);
  frame.run();
  recorder.frame_ends();
  CHECK(recorder.stop().spans.size() == 1);
}

TEST_CASE("haloflow replay of the small seed case on the host executor, files read back") {
  const fs::path directory = fresh_directory("seed_small");
  cases::ReplayOptions options;
  options.case_path = HALOFLOW_SOURCE_DIR "/tests/cases/seed_small.json";
  options.executor = "host";
  options.frames = 4;
  options.trace_path = (directory / "trace.json").string();
  options.timeline_path = (directory / "timeline.svg").string();
  options.dot_dir = (directory / "dot").string();
  options.report_path = (directory / "report.json").string();
  const cases::ReplayResult result = cases::replay_case(options, testing::test_mpi());
  CHECK(result.frames == 4);
  REQUIRE(result.ranks.size() == 1);
  CHECK(result.ranks.front().trace.frames.size() == 4);
  CHECK(result.written.size() == 4);  // no CUDA graph DOT for the host executor
  CHECK(result.text.find("replay of 'seed_small' on the host executor") != std::string::npos);
  CHECK(result.text.find("recording costs") != std::string::npos);

  SUBCASE("the Chrome trace parses back and has every plan node, each inside its frame") {
    const auto trace = read_json(options.trace_path);
    std::map<int, std::pair<double, double>> frames;
    for (const auto& event : trace.at("traceEvents")) {
      if (event.at("ph") == "X" && event.at("cat") == "frame") {
        frames[event.at("args").at("frame").get<int>()] = {
            event.at("ts").get<double>(),
            event.at("ts").get<double>() + event.at("dur").get<double>()};
      }
    }
    CHECK(frames.size() == 4);
    std::set<std::string> names;
    for (const auto& event : trace.at("traceEvents")) {
      if (event.at("ph") != "X" || event.at("cat") == "frame") continue;
      names.insert(event.at("name").get<std::string>());
      const auto [start, end] = frames.at(event.at("args").at("frame").get<int>());
      CHECK(event.at("ts").get<double>() >= start - kSlack);
      CHECK(event.at("ts").get<double>() + event.at("dur").get<double>() <= end + kSlack);
    }
    CHECK(names == std::set<std::string>{"interior_flux", "pack", "download", "exchange", "upload",
                                         "unpack", "boundary_flux"});
  }

  SUBCASE("the report's numbers are consistent") {
    const auto whole = read_json(options.report_path);
    CHECK(whole.at("executor") == "host");
    REQUIRE(whole.at("ranks").size() == 1);
    const auto& report = whole.at("ranks")[0];
    CHECK(report.at("nodes").size() == 7);
    REQUIRE(report.at("frames").size() == 4);
    for (const auto& frame : report.at("frames")) {
      const double hidden = frame.at("hidden_fraction").get<double>();
      CHECK(hidden >= 0);
      CHECK(hidden <= 1);
      const double hidden_spans = frame.at("hidden_fraction_spans").get<double>();
      CHECK(hidden_spans >= hidden);
      CHECK(hidden_spans <= 1);
      CHECK(frame.at("critical_path").at("us").get<double>() <=
            frame.at("frame_us").get<double>() + kSlack);
      CHECK(frame.at("work_us").get<double>() <= frame.at("frame_us").get<double>() + kSlack);
      CHECK(frame.at("critical_path").at("nodes").size() >= 1);
      // The host node runs alone on the host executor: the GPU (here the CPU's kernels and
      // copies) is idle at least that long.
      // A host run has no GPU: its idle time is null, as the console leaves it out.
      CHECK(frame.at("gpu_idle_us").is_null());
    }
    CHECK(whole.at("format_version") == 1);
    CHECK(whole.at("summary").at("ranks") == 1);
    CHECK(whole.at("summary").at("gpu_idle_us").is_null());
    const auto& tracing = report.at("tracing");
    // The cost is a number only beyond the noise, and never negative there.
    CHECK(tracing.at("within_noise").get<bool>() == tracing.at("overhead_us").is_null());
    if (!tracing.at("overhead_us").is_null()) CHECK(tracing.at("overhead_us").get<double>() > 0);
  }

  SUBCASE("the timeline has a row per branch; the DOT is the plan's") {
    const std::string svg = read_text(options.timeline_path);
    std::size_t rows = 0;
    for (auto at = svg.find("<g class=\"row\""); at != std::string::npos;
         at = svg.find("<g class=\"row\"", at + 1)) {
      ++rows;
    }
    CHECK(rows == 2);
    const std::string dot = read_text(directory / "dot" / "seed_small.dot");
    CHECK(dot.find("\"pack\" -> \"download\"") != std::string::npos);
    CHECK(count_of(dot, "digraph") == 1);
  }

  SUBCASE("existing files are kept unless forced") {
    CHECK_THROWS_WITH_AS((void)cases::replay_case(options, testing::test_mpi()),
                         (options.trace_path + " exists; pass --force to overwrite it").c_str(),
                         Error);
    options.force = true;
    options.window = "1:2";
    CHECK(cases::replay_case(options, testing::test_mpi()).written.size() == 4);
  }
}

TEST_CASE("replay refuses executors it does not record and windows outside the frames") {
  cases::ReplayOptions options;
  options.case_path = HALOFLOW_SOURCE_DIR "/tests/cases/seed_small.json";
  options.executor = "streams";
  CHECK_THROWS_WITH_AS((void)cases::replay_case(options, testing::test_mpi()),
                       "--executor streams: replay records the graph and host executors; "
                       "expected graph, host or auto",
                       Error);
  options.executor = "host";
  options.frames = 3;
  options.window = "3:1";
  CHECK_THROWS_WITH_AS((void)cases::replay_case(options, testing::test_mpi()),
                       "--window 3:1: the replay records frames 0 to 2; expected a first frame "
                       "and a count of at least 1 inside them",
                       Error);
}

TEST_CASE("haloflow replay of jacobi2d records the frames it launches, two steps each") {
  const fs::path directory = fresh_directory("jacobi2d");
  cases::ReplayOptions options;
  options.case_path = HALOFLOW_SOURCE_DIR "/json/cases/jacobi2d.json";
  options.executor = "host";
  options.frames = 3;
  options.trace_path = (directory / "trace.json").string();
  options.report_path = (directory / "report.json").string();
  options.timeline_path = (directory / "timeline.svg").string();
  const cases::ReplayResult result = cases::replay_case(options, testing::test_mpi());
  REQUIRE(result.ranks.size() == 1);
  const Trace& trace = result.ranks.front().trace;
  // One frame per field set (nothing patched in the steady state): one step, one step with the
  // norm's nodes, two steps.
  const std::string all =
      "jacobi2d even, jacobi2d odd, jacobi2d with norm even, jacobi2d with "
      "norm odd, jacobi2d two steps even, jacobi2d two steps odd";
  CHECK(trace.plan == all);
  CHECK(trace.frames.size() == 3);
  std::set<std::string> plans;
  for (const TraceNode& node : trace.nodes) plans.insert(node.plan);
  CHECK(plans == std::set<std::string>{"jacobi2d even", "jacobi2d odd", "jacobi2d with norm even",
                                       "jacobi2d with norm odd", "jacobi2d two steps even",
                                       "jacobi2d two steps odd"});
  // norm_every 20: frame 0 is step 0's norm (untraced, set 0), then two-step frames, each moving
  // the field to the other set: after 3 settling frames and 1 untraced, frames 4, 5 and 6 (steps
  // 7-8, 9-10, 11-12) are recorded, and 2 untraced frames follow.
  std::map<int, std::set<std::string>> plans_by_frame;
  for (const NodeSpan& span : trace.spans) {
    plans_by_frame[span.frame].insert(trace.nodes[span.node].plan);
  }
  CHECK(plans_by_frame[0] == std::set<std::string>{"jacobi2d two steps even"});
  CHECK(plans_by_frame[1] == std::set<std::string>{"jacobi2d two steps odd"});
  CHECK(plans_by_frame[2] == std::set<std::string>{"jacobi2d two steps even"});
  const auto report = read_json(options.report_path);
  CHECK(report.at("ranks")[0].at("frames").size() == 3);
  CHECK(result.text.find("replay of '" + all + "' on the host executor") != std::string::npos);
}
