// LaunchStream: frames launched on one shared stream run in the order launched (its Backend::cpu
// side is in tests/unit/test_launch_stream.cpp).

#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/launch_stream.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

TEST_CASE("frames launched on one LaunchStream run in the order launched") {
  constexpr std::size_t kCells = 1 << 20;
  Buffer data(Memory::device, kCells * sizeof(double), "data", Backend::cuda);
  FramePlan first("first");
  first.add_kernel({.name = "fill 1"}, testing::fill(), LaunchShape::cover(kCells, 128), kCells,
                   data.as<double>(), 1.0);
  FramePlan second("second");
  second.add_kernel({.name = "fill 2"}, testing::fill(), LaunchShape::cover(kCells, 128), kCells,
                    data.as<double>(), 2.0);
  Frame frame_1(std::move(first), ExecutorKind::graph);
  Frame frame_2(std::move(second), ExecutorKind::graph);
  LaunchStream stream(Backend::cuda, "shared");
  REQUIRE(stream.get() != nullptr);
  std::vector<double> values(kCells);
  for (int round = 0; round < 20; ++round) {
    frame_1.launch(stream.get());
    frame_2.launch(stream.get());
    frame_1.launch(stream.get());
    frame_2.launch(stream.get());
    stream.synchronize();
    data.download(values.data(), data.bytes());
    CHECK(values.front() == 2.0);
    CHECK(values.back() == 2.0);
  }
  // Moves hand the stream over.
  CUstream_st* const raw = stream.get();
  LaunchStream moved(std::move(stream));
  CHECK(moved.get() == raw);
  CHECK(stream.get() == nullptr);  // NOLINT(bugprone-use-after-move): the documented state
  LaunchStream other(Backend::cuda);
  other = std::move(moved);
  CHECK(other.get() == raw);
  other.synchronize();
}
