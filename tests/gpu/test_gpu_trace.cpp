// Recording the graph executor with CUPTI: every node of the small seed case by name, each run
// inside its frame and after its dependencies, and the CUDA graph's own DOT next to the plan's.

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include "haloflow/error.hpp"
#include "haloflow/recorder.hpp"
#include "replay.hpp"
#include "test_mpi.hpp"

using namespace haloflow;
namespace fs = std::filesystem;

namespace {

// Host nodes are stamped on the CPU, kernels and copies on the GPU, both on CUPTI's clock; allow
// for the conversion between the two.
constexpr double kClockSlackUs = 2;

}  // namespace

TEST_CASE("CUPTI records every node of the seed frame on the graph executor") {
  const fs::path directory = fs::path(HALOFLOW_TEST_OUTPUT_DIR) / "gpu_trace";
  fs::create_directories(directory);
  cases::ReplayOptions options;
  options.case_path = HALOFLOW_SOURCE_DIR "/tests/cases/seed_small.json";
  options.executor = "graph";
  options.frames = 5;
  options.trace_path = (directory / "trace.json").string();
  options.timeline_path = (directory / "timeline.svg").string();
  options.dot_dir = (directory / "dot").string();
  options.report_path = (directory / "report.json").string();
  options.force = true;
  const cases::ReplayResult result = cases::replay_case(options, testing::test_mpi());
  REQUIRE(result.ranks.size() == 1);
  const Trace& trace = result.ranks.front().trace;
  const OverlapReport& report = result.reports.front();
  MESSAGE(result.text);

  REQUIRE(trace.nodes.size() == 7);
  REQUIRE(trace.frames.size() == 5);
  for (const NodeStats& stats : report.nodes) {
    CAPTURE(trace.nodes[stats.node].name);
    CHECK(stats.runs == 5);
  }
  std::map<std::pair<int, std::size_t>, NodeSpan> by_frame_node;
  for (const NodeSpan& span : trace.spans) {
    CAPTURE(trace.nodes[span.node].name);
    CAPTURE(span.frame);
    const FrameSpan& frame = trace.frames.at(static_cast<std::size_t>(span.frame));
    CHECK(span.start_us >= frame.start_us - kClockSlackUs);
    CHECK(span.end_us <= frame.end_us + kClockSlackUs);
    CHECK(span.end_us >= span.start_us);
    by_frame_node[{span.frame, span.node}] = span;
  }
  for (int f = 0; f < 5; ++f) {
    for (std::size_t node = 0; node < trace.nodes.size(); ++node) {
      for (const std::size_t before : trace.nodes[node].after) {
        CAPTURE(trace.nodes[node].name);
        CHECK(by_frame_node[{f, node}].start_us >=
              by_frame_node[{f, before}].end_us - kClockSlackUs);
      }
    }
  }
  for (const FrameOverlap& frame : report.frames) {
    CHECK(frame.hidden >= 0);
    CHECK(frame.hidden <= frame.hidden_span);
    CHECK(frame.hidden_span <= 1);
    CHECK(frame.critical_path_us <= frame.frame_us + kClockSlackUs);
  }
  CHECK(fs::file_size(directory / "dot" / "seed_small.dot") > 0);
  CHECK(fs::file_size(directory / "dot" / "seed_small.cuda.dot") > 0);
  CHECK(result.written.size() == 5);
}

TEST_CASE("one CUPTI recorder at a time") {
  const FrameRecorder first(ExecutorKind::graph, 0);
  CHECK_THROWS_WITH_AS(FrameRecorder(ExecutorKind::graph, 0),
                       "a CUPTI frame recorder is already alive in this process; one records at "
                       "a time",
                       Error);
}
