// Typed patching: checked at compile time against the kernel's parameters, and at run time
// against the frame, with errors that name the node.

#include <doctest/doctest.h>

#include <string>

#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

namespace {

// Frame::update refuses a mismatch with a static_assert that names the argument (the
// compile-fail tests of tests/embedding check its text); arguments_fit is the same rule as a
// predicate that generic code (and this test) can ask without failing to compile.
template <class Handle, class... Args>
concept can_update = arguments_fit<typename Handle::parameters, Args...>;

using FillNode = KernelNode<std::size_t, double*, double>;

}  // namespace

// What must not compile is checked here, so a regression fails the build.
static_assert(can_update<FillNode, std::size_t, double*, double>);
static_assert(can_update<FillNode, std::size_t, double*, float>);         // widening is exact
static_assert(!can_update<FillNode, std::size_t, double*>);               // too few
static_assert(!can_update<FillNode, std::size_t, double*, double, int>);  // too many
static_assert(!can_update<FillNode, std::size_t, int*, double>);          // wrong pointer type
static_assert(!can_update<FillNode, std::size_t, double*, long>);         // narrowing to double
static_assert(!can_update<FillNode, int, double*, double>);  // signed to size_t narrows
static_assert(!can_update<FillNode, std::size_t, const double*, double>);  // drops const

TEST_CASE("an update takes effect at the next launch, without rebuilding the frame") {
  Buffer first(Memory::device, 4 * sizeof(double), "first", Backend::cpu);
  Buffer second(Memory::device, 4 * sizeof(double), "second", Backend::cpu);
  FramePlan plan("patch");
  const auto node = plan.add_kernel({.name = "fill"}, testing::fill(), LaunchShape::cover(4, 32),
                                    std::size_t{4}, first.as<double>(), 1.0);
  Frame frame(std::move(plan), ExecutorKind::host);
  frame.run();
  CHECK(first.as<double>()[3] == 1.0);
  frame.update(node, std::size_t{4}, second.as<double>(), 2.5);
  frame.run();
  CHECK(second.as<double>()[0] == 2.5);
  CHECK(second.as<double>()[3] == 2.5);
  CHECK(first.as<double>()[3] == 1.0);  // the old target is left alone
}

TEST_CASE("an update for a node the frame does not have names the node and the frame") {
  Buffer data(Memory::device, sizeof(double), "data", Backend::cpu);
  FramePlan plan("patch");
  plan.add_kernel({.name = "fill"}, testing::fill(), LaunchShape::cover(1, 32), std::size_t{1},
                  data.as<double>(), 1.0);
  plan.add_empty({.name = "join", .after = {"fill"}});
  Frame frame(std::move(plan), ExecutorKind::host);

  CHECK_THROWS_WITH_AS(frame.update(FillNode{7, "flil"}, std::size_t{1}, data.as<double>(), 2.0),
                       "update of kernel node 'flil': frame 'patch' has no node of that name",
                       Error);
  CHECK_THROWS_WITH_AS(
      frame.update(FillNode{1, "join"}, std::size_t{1}, data.as<double>(), 2.0),
      "update of kernel node 'join' in frame 'patch': that node is not a kernel (kind: empty)",
      Error);
  using IntNode = KernelNode<std::size_t, int*>;
  int unused = 0;
  CHECK_THROWS_WITH_AS(
      frame.update(IntNode{0, "fill"}, std::size_t{1}, &unused),
      "update of kernel node 'fill' in frame 'patch': the handle's parameter list does not match "
      "the node's kernel 'fill'",
      Error);
}

TEST_CASE("a handle from the full plan patches the same node in a lane subset") {
  Buffer data(Memory::device, 2 * sizeof(double), "data", Backend::cpu);
  FramePlan plan("lanes");
  plan.add_empty({.name = "first", .lane = Lane::communication});
  const auto node = plan.add_kernel({.name = "fill"}, testing::fill(), LaunchShape::cover(2, 32),
                                    std::size_t{2}, data.as<double>(), 1.0);
  Frame bulk_only(plan.only(Lane::bulk), ExecutorKind::host);
  bulk_only.update(node, std::size_t{2}, data.as<double>(), 4.0);  // index 1 there is index 0 here
  bulk_only.run();
  CHECK(data.as<double>()[1] == 4.0);
}
