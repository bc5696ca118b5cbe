#pragma once
// The interface each executor implements; internal to the engine (Frame is the public face).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include "haloflow/error.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

namespace haloflow {

//! Collects the first failure of a host node: host nodes run on a CUDA driver thread or on
//! haloflow's progress thread, where an exception cannot propagate, so it is kept here and
//! rethrown by Frame::wait (or by the next Frame::launch).
//!
//! A failure also holds back the host work of every other frame of the process until it is
//! reported: a model alternates frames (even and odd steps, RK stages), and a peer that stopped
//! in one frame's collective would otherwise be waited for again, a whole timeout, by the next
//! frame's exchange. Such a skipped node fails its own frame, naming the first failure.
class HostNodeFailures {
 public:
  HostNodeFailures() = default;
  //! A failure never rethrown stops holding back the other frames.
  ~HostNodeFailures();
  HostNodeFailures(const HostNodeFailures&) = delete;
  HostNodeFailures& operator=(const HostNodeFailures&) = delete;

  void record(const std::string& node, const std::string& what) noexcept;
  //! Throws the first recorded failure, and forgets it.
  void rethrow();
  //! A failure is recorded and not yet rethrown. Host work of frames launched before it was
  //! reported is then skipped: the run has failed, and no later frame waits on a peer again.
  [[nodiscard]] bool pending() const noexcept { return pending_.load(std::memory_order_acquire); }
  //! The first failure of any frame of this process that is not reported yet; empty if none.
  [[nodiscard]] static std::string unreported_anywhere();

 private:
  //! Marks this object's failure reported (rethrown or forgotten). Call with mutex_ held.
  void forget() noexcept;

  std::mutex mutex_;
  std::string first_;
  std::atomic<bool> pending_{false};
};

//! What a host node needs when CUDA calls it back: the function, its name, where failures go.
struct HostCallback {
  const std::function<void()>* run = nullptr;
  const std::string* node = nullptr;
  HostNodeFailures* failures = nullptr;
  //! Counted up after each call (run or skipped) when set: how an executor knows that the driver
  //! is done with its callbacks before it frees them.
  std::atomic<std::uint64_t>* calls = nullptr;
  //! The `cudaHostFn_t` trampoline: `data` is a HostCallback.
  static void invoke(void* data) noexcept;
};

//! Told when nodes ran, on the clock of whoever records them (nanoseconds): `haloflow replay`
//! times the work an executor runs on the host through one of these. Called from whatever
//! thread runs the node (a CUDA driver thread for graph host nodes), so implementations lock.
class NodeTimer {
 public:
  virtual ~NodeTimer() = default;
  [[nodiscard]] virtual std::uint64_t now() noexcept = 0;
  virtual void ran(std::size_t node, std::uint64_t start_ns, std::uint64_t end_ns) noexcept = 0;
};

//! A host callback timed around its work: what a graph host node calls instead of
//! HostCallback::invoke while a replay records. It is swapped in only then, so an untraced frame
//! runs the plain trampoline and pays nothing.
struct TimedHostCallback {
  HostCallback* callback = nullptr;
  std::size_t node = 0;
  NodeTimer* timer = nullptr;
  //! The `cudaHostFn_t` trampoline: `data` is a TimedHostCallback.
  static void invoke(void* data) noexcept {
    auto* timed = static_cast<TimedHostCallback*>(data);
    const std::uint64_t start = timed->timer->now();
    HostCallback::invoke(timed->callback);
    timed->timer->ran(timed->node, start, timed->timer->now());
  }
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void launch(CUstream_st* stream) = 0;  //!< null: the executor's own stream
  virtual void wait() = 0;
  virtual void kernel_args_changed(std::size_t node) = 0;
  //! From the next launch on, reports to `timer` when each node that this executor runs on the
  //! host ran (the host executor: every node; the graph executor: its host nodes); null stops.
  //! Only between frames (after wait()). \throws Error for executors that cannot.
  virtual void time_host_work(NodeTimer* /*timer*/) {
    throw Error(
        "this executor cannot time its nodes; traces are recorded with the graph and "
        "host executors");
  }
};

//! A cycle of plans repeated on the device in one launch (FrameLoop's graph half).
class LoopExecutor {
 public:
  virtual ~LoopExecutor() = default;
  //! Queues the cycle `repetitions` (>= 1) times; null `stream`: the loop's own.
  virtual void launch(int repetitions, CUstream_st* stream) = 0;
  virtual void wait() = 0;
};

// Reads `plan` during construction and keeps a reference: the Frame owns both. The GPU
// executors are ports (gpu_ports.hpp).
std::unique_ptr<Executor> make_host_executor(FramePlan& plan, const HostOrdering& ordering);

}  // namespace haloflow
