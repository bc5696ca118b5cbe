#pragma once
// The proxy handoff, host side. Under the graph executor a plan's host node can be lowered to one
// small kernel instead of a cudaGraphAddHostNode: when the node's dependencies are done the kernel
// rings a doorbell (a sequence number written into host-mapped memory) and spins until haloflow's
// progress thread, having run the node's host function, writes the same number into the release
// word. That skips the CUDA driver's callback thread, which costs 20-30 us per host node on an
// H200 (docs/benchmarks.md).
//
// Host-only: the words are plain memory, so the protocol is exercised by host tests with a thread
// standing in for the GPU. The kernel is in kernels/handoff_kernel.cu.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "executor.hpp"

namespace haloflow::detail {

//! One 64-bit word on its own cache line: the GPU's writes and the host's never share a line.
struct alignas(64) HandoffWord {
  std::uint64_t value = 0;
};

//! The words one host node's handoff uses, in host-mapped memory. Every value is a sequence
//! number: the n-th execution of the graph uses n (1, 2, ...). Numbers only grow, so nothing is
//! ever reset between replays and a late write can never be mistaken for a new one.
struct HandoffSlot {
  HandoffWord doorbell;      //!< GPU: the latest execution whose dependencies are done
  HandoffWord release;       //!< host: the latest execution whose host work is done
  HandoffWord gave_up;       //!< GPU: the latest execution it stopped waiting for (its deadline)
  HandoffWord acknowledged;  //!< GPU: the latest execution it saw released or gave up on
};

//! Reads a word the other side writes (acquire: what was written before it is visible).
inline std::uint64_t load(const HandoffWord& word) noexcept {
  return std::atomic_ref<const std::uint64_t>(word.value).load(std::memory_order_acquire);
}
//! Writes a word the other side reads (release: what this thread wrote before is visible first).
inline void store(HandoffWord& word, std::uint64_t value) noexcept {
  std::atomic_ref<std::uint64_t>(word.value).store(value, std::memory_order_release);
}

//! Per executor: how many jobs it handed to the progress thread and how many were served, so
//! that it can wait for its own jobs before it frees their slots.
struct HandoffLedger {
  std::atomic<std::uint64_t> submitted{0};
  std::atomic<std::uint64_t> served{0};
  //! Set when the executor gives up on jobs whose doorbell never rang (its graph never ran):
  //! the thread then drops them instead of spinning forever.
  std::atomic<bool> abandoned{false};
};

//! One execution of one proxied host node.
struct HandoffJob {
  HandoffSlot* slot = nullptr;
  std::uint64_t sequence = 0;        //!< the execution's number (see HandoffSlot)
  HostCallback* callback = nullptr;  //!< the function, the node's name, where failures go
  NodeTimer* timer = nullptr;        //!< set while a replay records the frame
  std::size_t node = 0;              //!< the plan node, for `timer`
  HandoffLedger* ledger = nullptr;   //!< the executor's
};

//! The progress thread: one per process, shared by every frame that proxies host nodes, serving
//! their jobs strictly in the order they were submitted (launch order, and within a launch the
//! plan's topological order). One thread in one order is what keeps MPI exchanges in the same
//! order on every rank; frames launched on independent streams are therefore served in the order
//! they were launched. While a job is pending the thread spins on its doorbell (an idle thread
//! sleeps on a condition variable after a short spin).
class ProgressThread {
 public:
  //! The process's thread, started on first use. It stops (and is joined) when the last holder
  //! lets go, i.e. when the last Frame that proxies host nodes is destroyed.
  [[nodiscard]] static std::shared_ptr<ProgressThread> shared();

  ProgressThread();
  ~ProgressThread();
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;
  ProgressThread(ProgressThread&&) = delete;
  ProgressThread& operator=(ProgressThread&&) = delete;

  //! Queues `job`; the thread serves it once its doorbell rings. Counts it in job.ledger.
  void submit(const HandoffJob& job);

 private:
  void serve(const std::stop_token& stop);
  bool next(HandoffJob& job, const std::stop_token& stop);

  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::deque<HandoffJob> queue_;
  std::atomic<std::size_t> queued_{0};  // queue_.size(), for the idle spin without the lock
  std::jthread thread_;  // last: started after, and joined before, the members it uses
};

//! Runs one job on the calling thread once its doorbell has rung: the host work (skipped when an
//! earlier failure of the same frame is not yet reported, so that a failed frame never waits
//! again), then the release. \returns false if the job was abandoned instead.
bool serve_job(const HandoffJob& job);

}  // namespace haloflow::detail
