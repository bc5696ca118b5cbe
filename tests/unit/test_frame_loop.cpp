// Frame loops without a GPU: which plans a CUDA WHILE body can hold (and the node that stops the
// others), and the host executor's loop, which launches the cycle's frames one by one.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/frame_loop.hpp"
#include "haloflow/plan.hpp"

using namespace haloflow;

namespace {

// A step that cannot commute with its twin, so that the order of the frames shows in the bits.
void add_one(const LaunchShape&, const double* from, double* to) {
  *to = *from + 1;
}
void halve(const LaunchShape&, const double* from, double* to) {
  *to = *from / 2;
}
constexpr KernelRef<const double*, double*> add_one_kernel{nullptr, &add_one, "add_one"};
constexpr KernelRef<const double*, double*> halve_kernel{nullptr, &halve, "halve"};

FramePlan one_kernel(const std::string& name, KernelRef<const double*, double*> kernel,
                     const double* from, double* to) {
  FramePlan plan(name);
  plan.add_kernel({.name = "step"}, kernel, LaunchShape::cover(1, 32), from, to);
  return plan;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("kernels, empty nodes and device copies can loop") {
  double a = 0;
  double b = 0;
  FramePlan plan = one_kernel("even", add_one_kernel, &a, &b);
  plan.add_empty({.name = "join", .after = {"step"}});
  plan.add_copy({.name = "copy", .after = {"join"}}, {.data = &a, .bytes = sizeof a},
                {.data = &b, .bytes = sizeof b}, sizeof a);
  const LoopVerdict verdict = can_loop(plan);
  CHECK(verdict.loops);
  CHECK(verdict.reason.empty());
}

TEST_CASE("a host node loops as the proxy handoff's kernel, not as a CUDA host node") {
  double a = 0;
  double b = 0;
  FramePlan plan = one_kernel("even", add_one_kernel, &a, &b);
  plan.add_host({.name = "halo.exchange", .after = {"step"}}, [] {});
  const LoopVerdict verdict = can_loop(plan, Handoff::host_node);
  CHECK_FALSE(verdict.loops);
  CHECK(contains(verdict.reason, "host node 'halo.exchange' of frame 'even'"));
  CHECK(contains(verdict.reason, "exchange.handoff host-node"));
  CHECK(can_loop(plan, Handoff::proxy).loops);
  CHECK(can_loop(plan, Handoff::automatic).loops);  // automatic is the proxy
}

TEST_CASE("a stream node and a copy through the host stop a loop") {
  double a = 0;
  double b = 0;
  FramePlan stream = one_kernel("nccl", add_one_kernel, &a, &b);
  stream.add_stream_work({.name = "send"}, [](CUstream_st*) {});
  CHECK(contains(can_loop(stream, Handoff::proxy).reason, "stream node 'send' of frame 'nccl'"));
  FramePlan staged = one_kernel("staged", add_one_kernel, &a, &b);
  staged.add_copy({.name = "download"}, {.data = &a, .bytes = sizeof a, .memory = Memory::host},
                  {.data = &b, .bytes = sizeof b}, sizeof a);
  CHECK(contains(can_loop(staged).reason,
                 "copy node 'download' of frame 'staged' copies device "
                 "to host"));
}

TEST_CASE("executors without graphs say why they launch frame by frame") {
  CHECK(contains(device_loop_missing(ExecutorKind::host), "the host executor launches frames"));
  CHECK(contains(device_loop_missing(ExecutorKind::streams), "the streams executor"));
}

TEST_CASE("the host executor's loop gives the bits of the frames launched one by one") {
  const double start = 3;
  const auto run = [&](int repetitions, bool looped) {
    double a = start;
    double b = 0;
    Frame even(one_kernel("even", add_one_kernel, &a, &b), ExecutorKind::host);
    Frame odd(one_kernel("odd", halve_kernel, &b, &a), ExecutorKind::host);
    if (looped) {
      FrameLoop loop({&even, &odd});
      CHECK_FALSE(loop.on_device());
      CHECK(contains(loop.fallback(), "host executor"));
      loop.launch(repetitions, nullptr);
      loop.wait();
    } else {
      for (int r = 0; r < repetitions; ++r) {
        even.run();
        odd.run();
      }
    }
    return a;
  };
  for (const int repetitions : {1, 2, 7}) {
    CHECK(run(repetitions, true) == run(repetitions, false));
  }
  CHECK(run(2, true) == ((start + 1) / 2 + 1) / 2);
}

TEST_CASE("a loop refuses an empty cycle and fewer than one repetition") {
  CHECK_THROWS_WITH_AS(FrameLoop({}), "a frame loop needs at least one frame", Error);
  double a = 0;
  double b = 0;
  Frame even(one_kernel("even", add_one_kernel, &a, &b), ExecutorKind::host);
  FrameLoop loop({&even});
  CHECK_THROWS_WITH_AS(loop.launch(0, nullptr), "frame loop: 0 repetitions; expected at least 1",
                       Error);
}
