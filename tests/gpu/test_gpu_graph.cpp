// The lowered cudaGraph, read back: node types, edges, kernel priorities; and patching.

#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/graph_dot.hpp"
#include "seed/seed_frame.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

namespace {

int priority_of(cudaGraphNode_t node) {
  cudaLaunchAttributeValue value{};
  REQUIRE(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &value) ==
          cudaSuccess);
  return value.priority;
}

cudaGraphNodeType type_of(cudaGraphNode_t node) {
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(node, &type) == cudaSuccess);
  return type;
}

}  // namespace

TEST_CASE("the seed frame lowers to the expected nodes, edges and priorities") {
  for (const Handoff handoff : {Handoff::host_node, Handoff::proxy}) {
    CAPTURE(to_string(handoff));
    models::SeedCase seed;
    seed.cells = 1 << 20;
    seed.halo_cells = 1 << 12;
    auto seed_frame = models::build_seed_frame(seed, Backend::cuda);
    Frame frame(seed_frame.plan, ExecutorKind::graph, {.handoff = handoff});
    const LoweredGraph lowered = lowered_graph(frame);
    const FramePlan& plan = frame.plan();

    std::size_t count = 0;
    REQUIRE(cudaGraphGetNodes(lowered.graph, nullptr, &count) == cudaSuccess);
    CHECK(count == plan.nodes().size());
    std::vector<cudaGraphNode_t> nodes(count);
    REQUIRE(cudaGraphGetNodes(lowered.graph, nodes.data(), &count) == cudaSuccess);

    int lowest = 0;
    int highest = 0;
    REQUIRE(cudaDeviceGetStreamPriorityRange(&lowest, &highest) == cudaSuccess);
    REQUIRE(lowest != highest);  // otherwise priorities could not be told apart

    const std::map<std::string, cudaGraphNodeType> expected_type{
        {"interior_flux", cudaGraphNodeTypeKernel},
        {"pack", cudaGraphNodeTypeKernel},
        {"download", cudaGraphNodeTypeMemcpy},
        {"exchange", handoff == Handoff::proxy ? cudaGraphNodeTypeKernel : cudaGraphNodeTypeHost},
        {"upload", cudaGraphNodeTypeMemcpy},
        {"unpack", cudaGraphNodeTypeKernel},
        {"boundary_flux", cudaGraphNodeTypeKernel}};
    std::map<cudaGraphNode_t, std::string> name_of;
    for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
      const auto& name = plan.node(i).name();
      cudaGraphNode_t node = lowered.nodes.at(i);
      name_of[node] = name;
      CHECK(std::find(nodes.begin(), nodes.end(), node) != nodes.end());
      CAPTURE(name);
      CHECK(type_of(node) == expected_type.at(name));
      if (type_of(node) == cudaGraphNodeTypeKernel) {
        CHECK(priority_of(node) == (plan.node(i).lane() == Lane::communication ? highest : lowest));
      }
    }

    std::size_t edge_count = 0;
    REQUIRE(cudaGraphGetEdges(lowered.graph, nullptr, nullptr, nullptr, &edge_count) ==
            cudaSuccess);
    std::vector<cudaGraphNode_t> from(edge_count);
    std::vector<cudaGraphNode_t> to(edge_count);
    REQUIRE(cudaGraphGetEdges(lowered.graph, from.data(), to.data(), nullptr, &edge_count) ==
            cudaSuccess);
    std::set<std::pair<std::string, std::string>> edges;
    for (std::size_t e = 0; e < edge_count; ++e) edges.emplace(name_of[from[e]], name_of[to[e]]);
    CHECK(edges == std::set<std::pair<std::string, std::string>>{{"pack", "download"},
                                                                 {"download", "exchange"},
                                                                 {"exchange", "upload"},
                                                                 {"upload", "unpack"},
                                                                 {"unpack", "boundary_flux"}});
  }
}

TEST_CASE("a patched kernel parameter takes effect on the next replay") {
  Buffer first(Memory::device, 256 * sizeof(double), "first", Backend::cuda);
  Buffer second(Memory::device, 256 * sizeof(double), "second", Backend::cuda);
  FramePlan plan("patch");
  const auto node = plan.add_kernel({.name = "fill"}, testing::fill(), LaunchShape::cover(256, 64),
                                    std::size_t{256}, first.as<double>(), 1.0);
  Frame frame(std::move(plan), ExecutorKind::graph);
  frame.run();
  std::vector<double> values(256);
  first.download(values.data(), 256 * sizeof(double));
  CHECK(values.front() == 1.0);
  CHECK(values.back() == 1.0);

  frame.update(node, std::size_t{256}, second.as<double>(), 3.0);  // the ping-pong swap
  frame.run();
  second.download(values.data(), 256 * sizeof(double));
  CHECK(values.front() == 3.0);
  CHECK(values.back() == 3.0);
  frame.update(node, std::size_t{128}, first.as<double>(), 7.0);
  frame.run();
  first.download(values.data(), 256 * sizeof(double));
  CHECK(values[127] == 7.0);
  CHECK(values[128] == 1.0);  // the patched count, not the captured one
}

TEST_CASE("independent exchanges are chained in plan order in the lowered graph") {
  for (const Handoff handoff : {Handoff::host_node, Handoff::proxy}) {
    CAPTURE(to_string(handoff));
    FramePlan plan("two exchanges");
    plan.add_split_host(
        {.name = "a", .lane = Lane::communication}, [] {}, [] {});
    plan.add_split_host(
        {.name = "b", .lane = Lane::communication}, [] {}, [] {});
    plan.add_host({.name = "plain", .lane = Lane::communication}, [] {});
    Frame frame(std::move(plan), ExecutorKind::graph, {.handoff = handoff});
    const LoweredGraph lowered = lowered_graph(frame);
    std::size_t edge_count = 0;
    REQUIRE(cudaGraphGetEdges(lowered.graph, nullptr, nullptr, nullptr, &edge_count) ==
            cudaSuccess);
    std::vector<cudaGraphNode_t> from(edge_count);
    std::vector<cudaGraphNode_t> to(edge_count);
    REQUIRE(cudaGraphGetEdges(lowered.graph, from.data(), to.data(), nullptr, &edge_count) ==
            cudaSuccess);
    // Exactly one edge: a before b. The plain host node waits on nobody, so it stays free.
    REQUIRE(edge_count == 1);
    CHECK(from[0] == lowered.nodes.at(0));
    CHECK(to[0] == lowered.nodes.at(1));
    frame.run();
  }
}
