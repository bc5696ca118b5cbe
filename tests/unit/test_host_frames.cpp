// Whole frames on the host executor: what only it refuses, invalid plans, and the seed frame's
// shape (the scenarios every executor runs are in tests/scenarios).

#include <doctest/doctest.h>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "seed/seed_frame.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

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

TEST_CASE("an invalid plan never becomes a frame") {
  FramePlan plan("broken");
  plan.add_empty({.name = "a", .after = {"b"}});
  CHECK_THROWS_AS(Frame(std::move(plan), ExecutorKind::host), Error);
}

TEST_CASE("the seed frame has the seed answer's shape") {
  models::SeedCase seed;
  seed.cells = 1000;
  seed.halo_cells = 100;
  const auto frame = models::build_seed_frame(seed, Backend::cpu);
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
