// Whole frames on the GPU executors: no race in the seed question, the seed frame matches the
// host reference, host-node failures surface, and a frame runs on the caller's stream.

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "seed_case.hpp"
#include "seed_question.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

TEST_CASE("the seed question's example ends at 32778 with every GPU executor") {
  for (const auto kind : {ExecutorKind::graph, ExecutorKind::streams, ExecutorKind::serial}) {
    CAPTURE(to_string(kind));
    auto question = testing::build_seed_question(Backend::cuda);
    Frame frame(std::move(question.plan), kind);
    for (int repeat = 0; repeat < 3; ++repeat) {
      frame.run();
      const auto values = question.result();
      CHECK(values.back() == 32778);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < values.size(); ++i)
        wrong += values[i] != static_cast<int>(i) + 11;
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("the seed frame matches the host reference with every GPU executor") {
  app::SeedCase seed;
  seed.cells = 1 << 22;
  seed.halo_cells = 1 << 16;
  seed.intensity = 3;
  seed.host_work_us = 20;
  seed.frames = 4;
  seed.warmup_frames = 1;
  for (const auto kind : {ExecutorKind::graph, ExecutorKind::streams, ExecutorKind::serial}) {
    CAPTURE(to_string(kind));
    const auto report = app::measure_seed(seed, kind);
    CHECK(report.max_error <= 1e-12);
    CHECK(report.frame_us > 0);
  }
}

TEST_CASE("a host node that throws under the graph executor is reported by wait()") {
  for (const auto kind : {ExecutorKind::graph, ExecutorKind::streams}) {
    CAPTURE(to_string(kind));
    int calls = 0;
    FramePlan plan("failing");
    plan.add_host({.name = "exchange", .lane = Lane::communication}, [&calls] {
      if (++calls == 1) throw std::runtime_error("peer 1 did not answer within 2 s");
    });
    Frame frame(std::move(plan), kind);
    CHECK_THROWS_WITH_AS(frame.run(),
                         "host node 'exchange' failed: peer 1 did not answer within 2 s", Error);
    CHECK_NOTHROW(frame.run());  // a failure is reported once; the next frame starts clean
    CHECK(calls == 2);
  }
}

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
