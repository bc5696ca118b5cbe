// Whole frames on the GPU executors: a frame runs on the caller's stream, and an unlaunchable
// kernel is named (the scenarios every executor runs are in tests/scenarios).

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

TEST_CASE("a frame launched on the caller's stream runs after the caller's work") {
  Buffer data(Memory::device, 1024 * sizeof(double), "data", Backend::cuda);
  FramePlan plan("on caller stream");
  plan.add_kernel({.name = "fill"}, testing::fill(), LaunchShape::cover(1024, 128),
                  std::size_t{1024}, data.as<double>(), 5.0);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  std::vector<double> values(1024, 0.0);
  for (const auto kind : {ExecutorKind::graph, ExecutorKind::streams, ExecutorKind::serial}) {
    CAPTURE(to_string(kind));
    Frame frame(plan, kind);
    REQUIRE(cudaMemsetAsync(data.data(), 0, data.bytes(), stream) == cudaSuccess);
    frame.launch(stream);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    data.download(values.data(), data.bytes());
    CHECK(values[0] == 5.0);
    CHECK(values[1023] == 5.0);
  }
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("an unlaunchable kernel fails with the node's name") {
  Buffer data(Memory::device, sizeof(double), "data", Backend::cuda);
  FramePlan plan("too big");
  plan.add_kernel({.name = "huge_block"}, testing::fill(),
                  LaunchShape{.grid = {1, 1, 1}, .block = {4096, 1, 1}}, std::size_t{1},
                  data.as<double>(), 1.0);
  Frame frame(plan, ExecutorKind::streams);
  try {
    frame.run();
    FAIL("a 4096-thread block launched");
  } catch (const Error& error) {
    CHECK(std::string(error.what()).find("huge_block") != std::string::npos);
  }
}
