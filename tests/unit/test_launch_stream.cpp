// LaunchStream under the host executor's backend: no stream, nothing to wait for, and frames
// launched on it run (tests/gpu/test_gpu_launch_stream.cpp has the CUDA side).

#include <doctest/doctest.h>

#include <utility>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/launch_stream.hpp"

using namespace haloflow;

TEST_CASE("a LaunchStream under Backend::cpu holds no stream, and host frames launch on it") {
  LaunchStream stream(Backend::cpu);
  CHECK(stream.get() == nullptr);
  CHECK(stream.backend() == Backend::cpu);
  stream.synchronize();
  int runs = 0;
  FramePlan plan("counted");
  plan.add_host({.name = "count"}, [&runs] { ++runs; });
  Frame frame(std::move(plan), ExecutorKind::host);
  frame.launch(stream.get());
  frame.launch(stream.get());
  frame.wait();
  stream.synchronize();
  CHECK(runs == 2);
  LaunchStream moved(std::move(stream));
  CHECK(moved.get() == nullptr);
}
