// The frame plan as plain data: validation messages, order, DOT, lane subsets.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

using namespace haloflow;

namespace {

void twice(const LaunchShape&, std::size_t, double*) {}
constexpr KernelRef<std::size_t, double*> host_only{nullptr, &twice, "twice"};

std::string validation_message(const FramePlan& plan) {
  try {
    plan.validate();
  } catch (const Error& error) {
    return error.what();
  }
  return "valid";
}

std::vector<std::string> names_in_order(const FramePlan& plan) {
  std::vector<std::string> names;
  for (const auto index : plan.topological_order()) names.push_back(plan.node(index).name());
  return names;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a valid plan orders every node after its dependencies, ties in insertion order") {
  FramePlan plan("chain");
  double value = 0;
  plan.add_kernel({.name = "interior"}, host_only, LaunchShape::cover(1, 32), std::size_t{1},
                  &value);
  plan.add_empty({.name = "c", .lane = Lane::communication, .after = {"b"}});
  plan.add_empty({.name = "b", .lane = Lane::communication, .after = {"a"}});
  plan.add_empty({.name = "a", .lane = Lane::communication});
  plan.add_empty({.name = "join", .after = {"interior", "c"}});
  CHECK(plan.problems().empty());
  CHECK(names_in_order(plan) == std::vector<std::string>{"interior", "a", "b", "c", "join"});
}

TEST_CASE("an unknown dependency is named, with a suggestion") {
  FramePlan plan("seed");
  plan.add_empty({.name = "upload"});
  plan.add_empty({.name = "unpack", .after = {"uplaod"}});
  CHECK(validation_message(plan) ==
        "plan 'seed' is invalid:\n  - node 'unpack' depends on 'uplaod', which is not in plan "
        "'seed' (did you mean 'upload'?)");
}

TEST_CASE("a duplicate name and a self dependency are each reported") {
  FramePlan plan("p");
  plan.add_empty({.name = "pack"});
  plan.add_empty({.name = "pack"});
  plan.add_empty({.name = "loop", .after = {"loop"}});
  const auto problems = plan.problems();
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == "node name 'pack' is used twice (nodes #0 and #1)");
  CHECK(problems[1] == "node 'loop' depends on itself");
}

TEST_CASE("a cycle is reported along its path") {
  FramePlan plan("ring");
  plan.add_empty({.name = "start"});
  plan.add_empty({.name = "a", .after = {"start", "c"}});
  plan.add_empty({.name = "b", .after = {"a"}});
  plan.add_empty({.name = "c", .after = {"b"}});
  const auto message = validation_message(plan);
  CHECK(contains(message, "plan 'ring' has a cycle:"));
  // The three nodes of the ring appear, and 'start' (outside it) does not.
  for (const char* node : {"'a'", "'b'", "'c'"}) CHECK(contains(message, node));
  CHECK_FALSE(contains(message, "'start'"));
  CHECK_THROWS_AS((void)plan.topological_order(), Error);
}

TEST_CASE("copies are checked for sizes, null pointers and direction") {
  double small[4] = {};
  double large[8] = {};
  FramePlan plan("copies");
  const BufferView device_small{small, sizeof small, Memory::device, "halo"};
  const BufferView host_large{large, sizeof large, Memory::host, "staging"};
  plan.add_copy({.name = "too_much"}, host_large, device_small, sizeof large);
  plan.add_copy({.name = "from_null"}, host_large, BufferView{nullptr, 64, Memory::device, "gone"},
                8);
  plan.add_copy({.name = "host_to_host"}, host_large, host_large, 8);
  plan.add_copy({.name = "nothing"}, host_large, device_small, 0);
  const auto problems = plan.problems();
  REQUIRE(problems.size() == 4);
  CHECK(problems[0] == "copy 'too_much' moves 64 bytes but its source 'halo' holds 32 bytes");
  CHECK(problems[1] == "copy 'from_null': its source 'gone' is a null pointer");
  CHECK(contains(problems[2], "copy 'host_to_host' is host to host; allowed: device to host"));
  CHECK(problems[3] == "copy 'nothing' moves 0 bytes");
}

TEST_CASE("copy direction follows the memory of the two views") {
  double a = 0;
  double b = 0;
  const BufferView device{&a, 8, Memory::device, "d"};
  const BufferView host{&b, 8, Memory::host, "h"};
  CHECK(CopyWork{host, device, 8}.kind() == CopyKind::device_to_host);
  CHECK(CopyWork{device, host, 8}.kind() == CopyKind::host_to_device);
  CHECK(CopyWork{device, device, 8}.kind() == CopyKind::device_to_device);
  CHECK_FALSE(CopyWork{host, host, 8}.kind().has_value());
}

TEST_CASE("an empty plan, an unnamed node and an empty launch are invalid") {
  CHECK(FramePlan("nothing").problems() == std::vector<std::string>{"plan 'nothing' has no nodes"});
  FramePlan plan("p");
  double value = 0;
  plan.add_empty({.name = ""});
  plan.add_kernel({.name = "k"}, host_only, LaunchShape::cover(0, 32), std::size_t{0}, &value);
  plan.add_host({.name = "h"}, nullptr);
  const auto problems = plan.problems();
  REQUIRE(problems.size() == 3);
  CHECK(problems[0] == "node #0 (empty) has an empty name");
  CHECK(problems[1] == "kernel 'k' has an empty launch (0 blocks of 32 threads)");
  CHECK(problems[2] == "host node 'h' has no function");
}

TEST_CASE("DOT output has every node with its kind and lane, and every edge") {
  FramePlan plan("seed \"quoted\"");
  double value = 0;
  double staging = 0;
  plan.add_kernel({.name = "pack", .lane = Lane::communication}, host_only,
                  LaunchShape::fixed(2, 32), std::size_t{1}, &value);
  plan.add_copy({.name = "download", .lane = Lane::communication, .after = {"pack"}},
                BufferView{&staging, 8, Memory::host, "h"},
                BufferView{&value, 8, Memory::device, "d"}, 8);
  const std::string dot = plan.to_dot();
  CHECK(contains(dot, "digraph \"seed \\\"quoted\\\"\" {"));
  CHECK(contains(dot,
                 "\"pack\" [shape=box, fillcolor=lightsalmon, label=\"pack\\nkernel twice "
                 "(communication)\"];"));
  CHECK(contains(dot, "\"download\" [shape=parallelogram"));
  CHECK(contains(dot, "copy 8 B, device to host"));
  CHECK(contains(dot, "\"pack\" -> \"download\";"));
  CHECK(dot.back() == '\n');
}

TEST_CASE("a lane subset keeps dependencies that ran through dropped nodes") {
  FramePlan plan("mixed");
  plan.add_empty({.name = "b1"});
  plan.add_empty({.name = "c1", .lane = Lane::communication, .after = {"b1"}});
  plan.add_empty({.name = "b2", .after = {"c1"}});
  plan.add_empty({.name = "c2", .lane = Lane::communication});
  const FramePlan bulk = plan.only(Lane::bulk);
  CHECK(bulk.name() == "mixed:bulk");
  REQUIRE(bulk.nodes().size() == 2);
  CHECK(bulk.node(1).name() == "b2");
  CHECK(bulk.node(1).options.after == std::vector<std::string>{"b1"});
  const FramePlan communication = plan.only(Lane::communication);
  REQUIRE(communication.nodes().size() == 2);
  CHECK(communication.node(0).options.after.empty());
  CHECK(communication.problems().empty());
}

TEST_CASE("launch shapes cover the items and refuse impossible grids") {
  const auto shape = LaunchShape::cover(1000, 256);
  CHECK(shape.grid == Extent3{4, 1, 1});
  CHECK(shape.block == Extent3{256, 1, 1});
  CHECK(LaunchShape::cover(1024, 256).grid.x == 4);
  CHECK_THROWS_AS((void)LaunchShape::cover(10, 0), Error);
  CHECK_THROWS_AS((void)LaunchShape::cover(std::size_t{1} << 50, 32), Error);
}

TEST_CASE("stream work: checked for its function, drawn, refused by the host executor") {
  FramePlan plan("with stream work");
  plan.add_stream_work({.name = "nccl", .lane = Lane::communication}, {});
  CHECK(plan.node(0).kind() == NodeKind::stream);
  CHECK(validation_message(plan).find("stream node 'nccl' has no function") != std::string::npos);

  FramePlan good("stream work");
  int issued = 0;
  good.add_stream_work({.name = "nccl", .lane = Lane::communication},
                       [&issued](CUstream_st*) { ++issued; });
  CHECK(validation_message(good) == "valid");
  CHECK(good.to_dot().find("shape=hexagon") != std::string::npos);
  CHECK(to_string(NodeKind::stream) == "stream");
  CHECK_THROWS_WITH_AS(
      Frame(good, ExecutorKind::host),
      doctest::Contains("the host executor cannot run node 'nccl' of frame 'stream work'"), Error);
  CHECK(issued == 0);
}
