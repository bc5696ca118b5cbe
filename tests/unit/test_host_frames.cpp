// Whole frames on the host executor: the seed question without a race, failures that name the
// node, and the seed frame itself at test size.

#include <doctest/doctest.h>

#include <stdexcept>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "seed_case.hpp"
#include "seed_question.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

TEST_CASE("the seed question's example ends at 32778 on the host executor") {
  auto question = testing::build_seed_question(Backend::cpu);
  Frame frame(std::move(question.plan), ExecutorKind::host);
  frame.run();
  const auto values = question.result();
  CHECK(values.back() == 32778);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < values.size(); ++i) wrong += values[i] != static_cast<int>(i) + 11;
  CHECK(wrong == 0);
}

TEST_CASE("the host executor refuses a kernel without a host twin, naming it") {
  Buffer data(Memory::device, sizeof(double), "data", Backend::cpu);
  FramePlan plan("device only");
  plan.add_kernel({.name = "gpu_fill"}, testing::fill_device_only(), LaunchShape::cover(1, 32),
                  std::size_t{1}, data.as<double>(), 1.0);
  CHECK_THROWS_WITH_AS(Frame(std::move(plan), ExecutorKind::host),
                       "the host executor cannot run kernel node 'gpu_fill' of frame 'device "
                       "only': kernel 'fill_device_only' has no host implementation (use a GPU "
                       "executor, or give the kernel a host twin)",
                       Error);
}

TEST_CASE("a host node that throws is reported with its name") {
  FramePlan plan("failing");
  plan.add_host({.name = "exchange"}, [] { throw std::runtime_error("peer 3 did not answer"); });
  Frame frame(std::move(plan), ExecutorKind::host);
  CHECK_THROWS_WITH_AS(frame.run(), "host node 'exchange' failed: peer 3 did not answer", Error);
}

TEST_CASE("an invalid plan never becomes a frame") {
  FramePlan plan("broken");
  plan.add_empty({.name = "a", .after = {"b"}});
  CHECK_THROWS_AS(Frame(std::move(plan), ExecutorKind::host), Error);
}

TEST_CASE("the seed frame at test size runs on the host executor and matches the reference") {
  app::SeedCase seed;
  seed.cells = 50000;
  seed.halo_cells = 1000;
  seed.intensity = 2;
  seed.host_work_us = 5;
  seed.frames = seed.host_frames = 2;
  seed.warmup_frames = 1;
  const auto report = app::measure_seed(seed, ExecutorKind::host);
  CHECK(report.frames == 2);
  CHECK(report.max_error <= 1e-15);  // the same std::sin on the same machine: exact
  CHECK(report.frame_us > 0);
  CHECK(report.hidden >= 0);
  CHECK(report.hidden <= 1);
}

TEST_CASE("the seed frame has the seed answer's shape") {
  app::SeedCase seed;
  seed.cells = 1000;
  seed.halo_cells = 100;
  const auto frame = app::build_seed_frame(seed, Backend::cpu);
  const auto& plan = frame.plan;
  REQUIRE(plan.nodes().size() == 7);
  const auto order = plan.topological_order();
  std::vector<std::string> chain;
  for (const auto index : order) {
    if (plan.node(index).lane() == Lane::communication) chain.push_back(plan.node(index).name());
  }
  CHECK(chain == std::vector<std::string>{"pack", "download", "exchange", "upload", "unpack",
                                          "boundary_flux"});
  const auto interior = plan.find("interior_flux");
  REQUIRE(interior);
  CHECK(plan.node(*interior).lane() == Lane::bulk);
  CHECK(plan.node(*interior).options.after.empty());
  CHECK(plan.node(*plan.find("exchange")).kind() == NodeKind::host);
  CHECK(std::get<CopyWork>(plan.node(*plan.find("download")).work).kind() ==
        CopyKind::device_to_host);
}
