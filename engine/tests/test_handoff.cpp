// The proxy handoff's host side without a GPU: a thread plays the graph (rings the doorbell,
// waits for the release, reads what the host work wrote), haloflow's progress thread serves.

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "gpu_ports.hpp"
#include "handoff.hpp"

using namespace haloflow;
using namespace haloflow::detail;

namespace {

//! Host nodes of one frame as the graph executor keeps them: a slot, a callback, a ledger.
struct FakeFrame {
  explicit FakeFrame(std::size_t nodes) : slots(nodes), callbacks(nodes), names(nodes) {}
  std::vector<HandoffSlot> slots;
  std::vector<HostCallback> callbacks;
  std::vector<std::string> names;
  std::vector<std::function<void()>> work;
  HostNodeFailures failures;
  HandoffLedger ledger;

  void submit(ProgressThread& thread, std::uint64_t sequence) {
    for (std::size_t n = 0; n < slots.size(); ++n) {
      thread.submit(HandoffJob{.slot = &slots[n],
                               .sequence = sequence,
                               .callback = &callbacks[n],
                               .node = n,
                               .ledger = &ledger});
    }
  }
  // What the GPU does for execution `sequence`: node after node, ring, then spin for the release.
  void execute(std::uint64_t sequence) {
    for (HandoffSlot& slot : slots) {
      store(slot.doorbell, sequence);
      while (load(slot.release) < sequence) std::this_thread::yield();
    }
  }
  void wire() {
    for (std::size_t n = 0; n < slots.size(); ++n) {
      callbacks[n] = HostCallback{&work[n], &names[n], &failures};
    }
  }
};

}  // namespace

TEST_CASE("the progress thread serves many replays of two host nodes, each once and in order") {
  constexpr std::uint64_t kReplays = 20000;
  FakeFrame frame(2);
  std::vector<std::uint64_t> log;  // written by the host work, read by the "GPU" after release
  std::uint64_t seen_by_gpu = 0;
  frame.names = {"a", "b"};
  frame.work = {[&] { log.push_back(log.size()); }, [&] { log.push_back(log.size()); }};
  frame.wire();
  auto thread = ProgressThread::shared();
  std::thread gpu([&] {
    for (std::uint64_t s = 1; s <= kReplays; ++s) {
      frame.execute(s);
      // The release orders the host work before it: both entries of this replay are there.
      if (log.size() == 2 * s && log[2 * s - 1] == 2 * s - 1) ++seen_by_gpu;
    }
  });
  for (std::uint64_t s = 1; s <= kReplays; ++s) frame.submit(*thread, s);
  gpu.join();
  while (frame.ledger.served.load() != frame.ledger.submitted.load()) std::this_thread::yield();
  CHECK(seen_by_gpu == kReplays);
  REQUIRE(log.size() == 2 * kReplays);
  for (std::size_t i = 0; i < log.size(); ++i) REQUIRE(log[i] == i);
  CHECK(frame.ledger.submitted.load() == 2 * kReplays);
}

TEST_CASE("after a failure, queued executions skip their host work until it is reported") {
  FakeFrame frame(1);
  int calls = 0;
  frame.names = {"exchange"};
  frame.work = {[&] {
    if (++calls == 2) throw std::runtime_error("no halo arrived from rank 1 within 5 s");
  }};
  frame.wire();
  auto thread = ProgressThread::shared();
  for (std::uint64_t s = 1; s <= 5; ++s) frame.submit(*thread, s);
  for (std::uint64_t s = 1; s <= 5; ++s) frame.execute(s);  // every execution is released
  CHECK(calls == 2);  // the 3rd to 5th did not wait on the silent peer again
  CHECK(frame.failures.pending());
  CHECK_THROWS_WITH_AS(frame.failures.rethrow(),
                       "host node 'exchange' failed: no halo arrived from rank 1 within 5 s",
                       Error);
  CHECK_FALSE(frame.failures.pending());
  frame.submit(*thread, 6);
  frame.execute(6);
  CHECK(calls == 3);  // reported: the next frame starts clean
}

TEST_CASE("a failure in one frame holds back the host work of the others until it is reported") {
  // A model's alternating frames: a peer stopped in the even frame's reduction must not be
  // waited for again by the odd frame's exchange; that frame fails too, naming the first cause.
  FakeFrame even(1);
  FakeFrame odd(1);
  int exchanges = 0;
  even.names = {"cfl.allreduce"};
  even.work = {[] { throw std::runtime_error("MPI_Iallreduce did not complete within 3 s"); }};
  odd.names = {"stage0.halo.exchange"};
  odd.work = {[&] { ++exchanges; }};
  even.wire();
  odd.wire();
  auto thread = ProgressThread::shared();
  even.submit(*thread, 1);
  odd.submit(*thread, 1);
  even.execute(1);
  odd.execute(1);
  CHECK(exchanges == 0);
  CHECK(HostNodeFailures::unreported_anywhere() ==
        "host node 'cfl.allreduce' failed: MPI_Iallreduce did not complete within 3 s");
  CHECK_THROWS_WITH_AS(odd.failures.rethrow(),
                       "host node 'stage0.halo.exchange' failed: not run: the run failed already "
                       "(host node 'cfl.allreduce' failed: MPI_Iallreduce did not complete "
                       "within 3 s)",
                       Error);
  CHECK_FALSE(HostNodeFailures::unreported_anywhere().empty());  // the even frame's, still
  CHECK_THROWS_AS(even.failures.rethrow(), Error);
  CHECK(HostNodeFailures::unreported_anywhere().empty());
  odd.submit(*thread, 2);
  odd.execute(2);
  CHECK(exchanges == 1);  // every failure reported: frames run their host work again
}

TEST_CASE("a frame destroyed with its failure unreported no longer holds back the others") {
  FakeFrame other(1);
  int runs = 0;
  other.names = {"exchange"};
  other.work = {[&] { ++runs; }};
  other.wire();
  {
    HostNodeFailures dropped;
    dropped.record("norm", "a stopped peer");
    CHECK_FALSE(HostNodeFailures::unreported_anywhere().empty());
  }
  CHECK(HostNodeFailures::unreported_anywhere().empty());
  auto thread = ProgressThread::shared();
  other.submit(*thread, 1);
  other.execute(1);
  CHECK(runs == 1);
}

TEST_CASE("a job whose doorbell never rings is dropped once abandoned") {
  FakeFrame frame(1);
  bool ran = false;
  frame.names = {"never"};
  frame.work = {[&] { ran = true; }};
  frame.wire();
  auto thread = ProgressThread::shared();
  frame.submit(*thread, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(frame.ledger.served.load() == 0);
  frame.ledger.abandoned = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (frame.ledger.served.load() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  CHECK(frame.ledger.served.load() == 1);
  CHECK_FALSE(ran);
  CHECK(load(frame.slots[0].release) == 0);
}

TEST_CASE("the progress thread stops with its last holder and starts again when needed") {
  std::weak_ptr<ProgressThread> first;
  {
    auto thread = ProgressThread::shared();
    first = thread;
    CHECK(ProgressThread::shared() == thread);  // one per process
  }
  CHECK(first.expired());  // joined and gone
  FakeFrame frame(1);
  int calls = 0;
  frame.names = {"again"};
  frame.work = {[&] { ++calls; }};
  frame.wire();
  auto thread = ProgressThread::shared();
  frame.submit(*thread, 1);
  frame.execute(1);
  CHECK(calls == 1);
}

TEST_CASE("the NCCL watchdog's clock: stuck only when one execution stays in flight too long") {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const std::chrono::duration<double> timeout(5);
  const auto at = [&](double seconds) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  };
  StuckClock clock;
  CHECK_FALSE(clock.stuck(0, 0, at(0), timeout));    // nothing launched
  CHECK_FALSE(clock.stuck(1, 0, at(1), timeout));    // execution 1 in flight: its clock starts
  CHECK_FALSE(clock.stuck(1, 0, at(5.5), timeout));  // 4.5 s in flight
  CHECK(clock.stuck(1, 0, at(6.5), timeout));        // 5.5 s: stuck
  CHECK_FALSE(clock.stuck(1, 1, at(7), timeout));    // finished after all
  CHECK_FALSE(clock.stuck(2, 1, at(8), timeout));    // the next one starts its own clock
  CHECK_FALSE(clock.stuck(3, 2, at(12), timeout));   // progressing, however slowly overall
  CHECK_FALSE(clock.stuck(3, 2, at(16.9), timeout));
  CHECK(clock.stuck(3, 2, at(17.1), timeout));
}
