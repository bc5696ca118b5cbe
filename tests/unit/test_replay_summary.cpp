// What `haloflow replay` prints first and writes with --dot: the recording's cost (never noise
// reported as a cost), the summary across the ranks, the DOT files' names.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dot_files.hpp"
#include "replay.hpp"
#include "replay_summary.hpp"

using namespace haloflow;

namespace {

cases::RankRecording rank_recording(int rank, double frame_us, double untraced, double traced,
                                    double noise) {
  cases::RankRecording r;
  Trace& t = r.trace;
  t.plan = "small";
  t.executor = "host";
  t.rank = rank;
  t.nodes = {{"interior", Lane::bulk, NodeKind::kernel, {}},
             {"exchange", Lane::communication, NodeKind::host, {}},
             {"join", Lane::communication, NodeKind::empty, {1}}};
  t.frames = {{0, 0, frame_us}};
  t.spans = {{0, 0, 0, frame_us / 2}, {1, 0, 0, frame_us}, {2, 0, frame_us, frame_us}};
  r.untraced_frame_us = untraced;
  r.traced_frame_us = traced;
  r.frame_noise_us = noise;
  return r;
}

}  // namespace

TEST_CASE("a traced frame faster than an untraced one is noise, never a negative cost") {
  // The untraced frames before the traced ones ran slow (a machine settling): their median and
  // the after's differ by far more than the traced frames are faster.
  const std::vector<double> before = {1100, 1150, 1120, 1130};
  const std::vector<double> traced = {130, 128, 131, 129, 127, 135};
  const std::vector<double> after = {120, 125, 119, 122};
  const cases::RecordingCost cost = cases::recording_cost(before, traced, after);
  CHECK_FALSE(cost.measured());
  CHECK(cost.before_us == doctest::Approx(1125));
  CHECK(cost.after_us == doctest::Approx(121));
  CHECK(cost.noise_us >= 1000);
  CHECK(cases::cost_text(cost).rfind("within noise", 0) == 0);
  CHECK(cases::cost_text(cost).find('-') == std::string::npos);
}

TEST_CASE("a cost beyond the noise is reported, as a positive number and fraction") {
  const std::vector<double> before = {100, 101, 99, 100, 100};
  const std::vector<double> traced = {150, 151, 149, 150, 150};
  const std::vector<double> after = {100, 100, 101, 99, 100};
  const cases::RecordingCost cost = cases::recording_cost(before, traced, after);
  CHECK(cost.measured());
  CHECK(cost.us() == doctest::Approx(50));
  CHECK(cost.fraction() == doctest::Approx(0.5));
  CHECK(cases::cost_text(cost) == "50.0 us per frame (+50.0 %)");
}

TEST_CASE("the summary gives min, avg and max over the ranks, without a host run's GPU rows") {
  const std::vector<cases::RankRecording> ranks = {rank_recording(0, 100, 90, 95, 20),
                                                   rank_recording(1, 300, 280, 400, 10)};
  std::vector<OverlapReport> reports;
  for (const auto& r : ranks) reports.push_back(analyze(r.trace));
  const std::string text = cases::format_summary(ranks, reports);
  CHECK(text.find("2 ranks, medians") != std::string::npos);
  CHECK(text.find("frame us                    100.0      200.0      300.0\n") !=
        std::string::npos);
  CHECK(text.find("GPU") == std::string::npos);
  CHECK(text.find("recording costs 120.0 to 120.0 us per frame (+42.9 to +42.9 %) on 1 of 2 "
                  "ranks; within noise on rank 0") != std::string::npos);
  // The join took no time: it is not among the slowest nodes.
  CHECK(text.find("exchange") != std::string::npos);
  CHECK(text.find("join") == std::string::npos);
  CHECK(text.find("--per-frame") == std::string::npos);  // every node shown
  CHECK(cases::format_summary(ranks, reports, 1).find("(1 more nodes; --per-frame") !=
        std::string::npos);
}

TEST_CASE("the replay's phases: settling, untraced, recorded, untraced") {
  const cases::ReplayPhases phases = cases::replay_phases(50);
  CHECK(phases.settling == 5);
  CHECK(phases.before + phases.after == 50);
  CHECK(phases.total() == 105);
  CHECK_FALSE(phases.traced(29));
  CHECK(phases.traced(30));
  CHECK(phases.traced(79));
  CHECK_FALSE(phases.traced(80));
  CHECK(cases::replay_phases(1).before == 0);
  CHECK(cases::replay_phases(1).total() == 3);
}

TEST_CASE("a DOT file per frame, named after its plan, every name distinct") {
  CHECK(cases::dot_file_stem("jacobi2d two steps even") == "jacobi2d_two_steps_even");
  CHECK(cases::dot_file_stem("../up/there") == "_._up_there");
  CHECK(cases::dot_file_stem("") == "frame");
  CHECK(cases::dot_file_stem("  ") == "frame");
  CHECK(cases::dot_file_stems({"a b", "a_b", "c"}) ==
        std::vector<std::string>{"a_b", "a_b.2", "c"});
}
