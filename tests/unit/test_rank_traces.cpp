// A rank's recording packed into bytes and back (how rank 0 receives every rank's trace), damaged
// bytes refused, and traces moved onto another clock.

#include <doctest/doctest.h>

#include "haloflow/error.hpp"
#include "haloflow/trace.hpp"
#include "rank_traces.hpp"

using namespace haloflow;

namespace {

cases::RankRecording recording() {
  cases::RankRecording r;
  r.trace = Trace{.plan = "step, norm", .executor = "host", .clock = "made up", .rank = 2};
  r.trace.nodes = {{"interior", Lane::bulk, NodeKind::kernel, {}, "step"},
                   {"halo.exchange", Lane::communication, NodeKind::host, {0}, "step"},
                   {"norm.sum", Lane::bulk, NodeKind::kernel, {}, "norm"}};
  r.trace.frames = {{0, 0, 50}, {1, 50, 120}};
  r.trace.spans = {{0, 0, 1, 40}, {1, 0, 2, 30}, {2, 1, 55, 119.5}};
  r.trace.origin_ns = 123456789;
  r.untraced_frame_us = 48.5;
  r.traced_frame_us = 51.25;
  r.frame_noise_us = 3.5;
  r.untraced_before_us = 47.0;
  r.untraced_after_us = 49.5;
  r.clock_offset_ns = -4200;
  return r;
}

}  // namespace

TEST_CASE("a recording packs into bytes and back, every field kept") {
  const cases::RankRecording in = recording();
  const cases::RankRecording out = cases::unpack(cases::pack(in));
  CHECK(out.trace.plan == in.trace.plan);
  CHECK(out.trace.executor == "host");
  CHECK(out.trace.clock == "made up");
  CHECK(out.trace.rank == 2);
  CHECK(out.trace.origin_ns == 123456789);
  REQUIRE(out.trace.nodes.size() == 3);
  CHECK(out.trace.nodes[1].name == "halo.exchange");
  CHECK(out.trace.nodes[1].lane == Lane::communication);
  CHECK(out.trace.nodes[1].kind == NodeKind::host);
  CHECK(out.trace.nodes[1].after == std::vector<std::size_t>{0});
  CHECK(out.trace.nodes[2].plan == "norm");
  REQUIRE(out.trace.frames.size() == 2);
  CHECK(out.trace.frames[1].end_us == 120);
  REQUIRE(out.trace.spans.size() == 3);
  CHECK(out.trace.spans[2].node == 2);
  CHECK(out.trace.spans[2].frame == 1);
  CHECK(out.trace.spans[2].end_us == 119.5);
  CHECK(out.untraced_frame_us == 48.5);
  CHECK(out.traced_frame_us == 51.25);
  CHECK(out.frame_noise_us == 3.5);
  CHECK(out.untraced_before_us == 47.0);
  CHECK(out.untraced_after_us == 49.5);
  CHECK(out.clock_offset_ns == -4200);
}

TEST_CASE("bytes that are not a whole packed recording are refused") {
  std::vector<char> bytes = cases::pack(recording());
  std::vector<char> cut(bytes.begin(), bytes.end() - 3);
  CHECK_THROWS_AS((void)cases::unpack(cut), Error);
  bytes.push_back('x');
  CHECK_THROWS_WITH_AS((void)cases::unpack(bytes), "a packed trace has bytes after its last span",
                       Error);
}

TEST_CASE("shift moves every frame and span of a trace by the same time") {
  Trace trace = recording().trace;
  shift(trace, 10.5);
  CHECK(trace.frames[0].start_us == 10.5);
  CHECK(trace.frames[1].end_us == 130.5);
  CHECK(trace.spans[0].start_us == 11.5);
  CHECK(trace.spans[2].end_us == 130);
}
