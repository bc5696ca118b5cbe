// The two lowerings of a host node under the graph executor, on the GPU: the CUDA host node and
// the proxy handoff (a kernel, a doorbell, haloflow's progress thread). Same results, every
// replay served once and in order, failures and hung host work reported, clean destruction.

#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cuda_owners.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/graph_dot.hpp"
#include "test_kernels.hpp"

using namespace haloflow;

namespace {

constexpr Handoff kHandoffs[] = {Handoff::host_node, Handoff::proxy};

cudaGraphNodeType type_of(cudaGraphNode_t node) {
  cudaGraphNodeType type{};
  REQUIRE(cudaGraphNodeGetType(node, &type) == cudaSuccess);
  return type;
}

//! A frame of one host node that counts its calls into pinned memory, and a kernel after it that
//! logs what it reads there: the log shows every execution's host work, once, in order.
struct CountingFrame {
  explicit CountingFrame(Handoff handoff, std::size_t replays)
      : value(Memory::host, sizeof(std::uint64_t), "value", Backend::cuda),
        log(Memory::device, (replays + 1) * sizeof(std::uint64_t), "log", Backend::cuda) {
    *value.as<std::uint64_t>() = 0;
    REQUIRE(cudaMemset(log.data(), 0, log.bytes()) == cudaSuccess);
    FramePlan plan("counting");
    plan.add_host({.name = "count", .lane = Lane::communication}, [this] {
      ++calls;
      *static_cast<volatile std::uint64_t*>(value.as<std::uint64_t>()) = calls;
    });
    plan.add_kernel({.name = "record", .lane = Lane::communication, .after = {"count"}},
                    testing::record_value(), LaunchShape::fixed(1, 1), std::size_t{1},
                    value.as<const std::uint64_t>(), log.as<std::uint64_t>());
    frame.emplace(std::move(plan), ExecutorKind::graph, FrameOptions{.handoff = handoff});
  }
  Buffer value;
  Buffer log;
  std::uint64_t calls = 0;
  std::optional<Frame> frame;
};

}  // namespace

TEST_CASE("a proxied host node lowers to one communication-priority kernel, edges kept") {
  int lowest = 0;
  int highest = 0;
  REQUIRE(cudaDeviceGetStreamPriorityRange(&lowest, &highest) == cudaSuccess);
  for (const Handoff handoff : kHandoffs) {
    CAPTURE(to_string(handoff));
    CountingFrame counting(handoff, 1);
    const LoweredGraph lowered = lowered_graph(*counting.frame);
    CHECK(lowered.handoff == handoff);
    const cudaGraphNode_t host = lowered.nodes.at(0);
    if (handoff == Handoff::proxy) {
      REQUIRE(type_of(host) == cudaGraphNodeTypeKernel);
      cudaLaunchAttributeValue value{};
      REQUIRE(cudaGraphKernelNodeGetAttribute(host, cudaLaunchAttributePriority, &value) ==
              cudaSuccess);
      CHECK(value.priority == highest);
    } else {
      CHECK(type_of(host) == cudaGraphNodeTypeHost);
    }
    std::size_t nodes = 0;
    REQUIRE(cudaGraphGetNodes(lowered.graph, nullptr, &nodes) == cudaSuccess);
    CHECK(nodes == 2);
    std::size_t edges = 0;
    REQUIRE(cudaGraphGetEdges(lowered.graph, nullptr, nullptr, nullptr, &edges) == cudaSuccess);
    CHECK(edges == 1);
  }
  FrameOptions automatic;
  CountingFrame counting(automatic.handoff, 1);
  CHECK(lowered_graph(*counting.frame).handoff == Handoff::proxy);  // the measured default
}

TEST_CASE("many replays queued back to back: every host run seen once, in order") {
  for (const Handoff handoff : kHandoffs) {
    CAPTURE(to_string(handoff));
    const std::size_t replays = handoff == Handoff::proxy ? 20000 : 2000;
    CountingFrame counting(handoff, replays);
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t r = 0; r < replays; ++r) counting.frame->launch();
    counting.frame->wait();
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(to_string(handoff) << ": " << us / static_cast<double>(replays)
                               << " us per replay of host node + kernel");
    std::vector<std::uint64_t> log(replays + 1);
    counting.log.download(log.data(), log.size() * sizeof(std::uint64_t));
    CHECK(counting.calls == replays);
    REQUIRE(log[0] == replays);
    std::size_t wrong = 0;
    for (std::size_t r = 1; r <= replays; ++r) wrong += log[r] != r ? 1 : 0;
    CHECK(wrong == 0);
  }
}

TEST_CASE("a failing host node is reported by wait() under both handoffs, then runs clean") {
  for (const Handoff handoff : kHandoffs) {
    CAPTURE(to_string(handoff));
    int calls = 0;
    FramePlan plan("failing");
    plan.add_host({.name = "exchange", .lane = Lane::communication}, [&calls] {
      if (++calls > 1) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the later launches queue
      throw std::runtime_error("peer 1 did not answer within 2 s");
    });
    Frame frame(std::move(plan), ExecutorKind::graph, {.handoff = handoff});
    // Launches queued behind the failing one skip their host work: the run has failed.
    frame.launch();
    frame.launch();
    frame.launch();
    CHECK_THROWS_WITH_AS(frame.wait(),
                         "host node 'exchange' failed: peer 1 did not answer within 2 s", Error);
    CHECK(calls == 1);
    CHECK_NOTHROW(frame.run());  // reported once; the next frame starts clean
    CHECK(calls == 2);
  }
}

TEST_CASE("the next launch reports a failure recorded since the last wait") {
  FramePlan plan("failing early");
  plan.add_host({.name = "exchange", .lane = Lane::communication},
                [] { throw std::runtime_error("no halo arrived from rank 1"); });
  Frame frame(std::move(plan), ExecutorKind::graph, {.handoff = Handoff::proxy});
  frame.launch();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the host node has failed
  CHECK_THROWS_WITH_AS(frame.launch(), "host node 'exchange' failed: no halo arrived from rank 1",
                       Error);
}

TEST_CASE("host work that outlives the release timeout lets the graph finish and is named") {
  FramePlan plan("slow");
  plan.add_host({.name = "stuck", .lane = Lane::communication},
                [] { std::this_thread::sleep_for(std::chrono::milliseconds(1500)); });
  Frame frame(std::move(plan), ExecutorKind::graph,
              {.handoff = Handoff::proxy, .release_timeout = std::chrono::duration<double>(0.2)});
  const auto start = std::chrono::steady_clock::now();
  frame.launch();
  CHECK_THROWS_WITH_AS(frame.wait(),
                       doctest::Contains("host node 'stuck' did not finish within 0.2"), Error);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(waited < 1.0);  // the GPU did not wait for the host work
}  // the frame goes: its destructor waits for the progress thread before freeing the slot

TEST_CASE("a frame destroyed with launches queued waits for them and frees cleanly") {
  for (const Handoff handoff : kHandoffs) {
    CAPTURE(to_string(handoff));
    std::uint64_t calls = 0;
    {
      CountingFrame counting(handoff, 500);
      for (int r = 0; r < 500; ++r) counting.frame->launch();
      counting.frame.reset();  // no wait
      calls = counting.calls;
    }
    CHECK(calls == 500);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
  }
}

TEST_CASE("two proxied host nodes of one frame run in plan order every replay") {
  Buffer value(Memory::host, sizeof(std::uint64_t), "value", Backend::cuda);
  Buffer log(Memory::device, 2001 * sizeof(std::uint64_t), "log", Backend::cuda);
  REQUIRE(cudaMemset(log.data(), 0, log.bytes()) == cudaSuccess);
  std::uint64_t counter = 0;
  auto* shared = static_cast<volatile std::uint64_t*>(value.as<std::uint64_t>());
  FramePlan plan("two host nodes");
  plan.add_split_host(
      {.name = "first", .lane = Lane::communication}, [] {}, [&] { *shared = ++counter * 2 - 1; });
  plan.add_kernel({.name = "after first", .lane = Lane::communication, .after = {"first"}},
                  testing::record_value(), LaunchShape::fixed(1, 1), std::size_t{1},
                  value.as<const std::uint64_t>(), log.as<std::uint64_t>());
  plan.add_split_host(
      {.name = "second", .lane = Lane::communication, .after = {"after first"}}, [] {},
      [&] { *shared = counter * 2; });
  plan.add_kernel({.name = "after second", .lane = Lane::communication, .after = {"second"}},
                  testing::record_value(), LaunchShape::fixed(1, 1), std::size_t{1},
                  value.as<const std::uint64_t>(), log.as<std::uint64_t>());
  Frame frame(std::move(plan), ExecutorKind::graph, {.handoff = Handoff::proxy});
  for (int r = 0; r < 1000; ++r) frame.launch();
  frame.wait();
  std::vector<std::uint64_t> seen(2001);
  log.download(seen.data(), seen.size() * sizeof(std::uint64_t));
  REQUIRE(seen[0] == 2000);
  std::size_t wrong = 0;
  for (std::size_t i = 1; i <= 2000; ++i) wrong += seen[i] != i ? 1 : 0;
  CHECK(wrong == 0);
}

TEST_CASE("device memory zeroed for a frame is zero on any stream, however busy the legacy one") {
  // What a cudaMemset on the legacy default stream would not give: a copy on a non-blocking
  // stream reads the word while the legacy stream still runs a kernel queued before the zeroing.
  Buffer word(Memory::device, sizeof(std::uint64_t), "word", Backend::cuda);
  Buffer seen(Memory::host, sizeof(std::uint64_t), "seen", Backend::cuda);
  const std::uint64_t stale = 1000;
  word.upload(&stale, sizeof stale);
  *seen.as<std::uint64_t>() = stale;
  const detail::Stream other = detail::make_stream(0, "reader");
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(testing::occupy_legacy_stream(2.0));
  detail::zero_device_now(word.data(), word.bytes(), "the word");
  REQUIRE(cudaMemcpyAsync(seen.data(), word.data(), sizeof stale, cudaMemcpyDeviceToHost,
                          other.get()) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(other.get()) == cudaSuccess);
  CHECK(cudaStreamQuery(nullptr) == cudaErrorNotReady);  // the legacy stream is still busy
  CHECK(*seen.as<std::uint64_t>() == 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
}
