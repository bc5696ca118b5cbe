// The host executor: the plan run on the CPU, each node after its dependencies. It lets machines
// without a GPU (CI among them) run whole frames; "device" buffers are then ordinary host memory.
//
// By default nodes run in topological order with ties in insertion order. A GPU runs unordered
// nodes concurrently, so that order hides a missing dependency; the other orders of HostOrder
// (reverse, shuffled, threads) run them differently, so a plan that lacks an edge gives another
// result on the CPU too.

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "executor.hpp"
#include "haloflow/error.hpp"

namespace haloflow {
namespace {

// Worker threads of the `threads` order: enough for unordered nodes to overlap, few enough for a
// CI machine.
constexpr unsigned kMostWorkers = 4;

class HostExecutor final : public Executor {
 public:
  HostExecutor(FramePlan& plan, const HostOrdering& ordering)
      : plan_(plan),
        ordering_(ordering),
        random_(ordering.seed ^ std::hash<std::string>{}(plan.name())) {
    for (const Node& node : plan_.nodes()) {
      if (node.kind() == NodeKind::stream) {
        throw Error(fmt::format(
            "the host executor cannot run node '{}' of frame '{}': it issues work onto a CUDA "
            "stream (e.g. NCCL's send and receive); use a GPU executor, or the mpi transport",
            node.name(), plan_.name()));
      }
      const auto* kernel = std::get_if<KernelWork>(&node.work);
      if (kernel != nullptr && !kernel->host) {
        throw Error(fmt::format(
            "the host executor cannot run kernel node '{}' of frame '{}': kernel '{}' has no "
            "host implementation (use a GPU executor, or give the kernel a host twin)",
            node.name(), plan_.name(), kernel->label));
      }
    }
    if (ordering_.order == HostOrder::insertion) {
      order_ = plan_.topological_order();
      return;
    }
    dependencies_ = plan_.dependencies();
    // Nodes that wait for other ranks keep their insertion order among themselves: host nodes
    // (the mpi exchange) and kernels with a check (the peer transport's receive, which waits for
    // its neighbours' flags). Another rank meets them in that order, and a rank that waited in
    // the second while its peer waits in the first would wait for ever (or, for the peer
    // transport, until its deadline). An exchange that mixes peer and mpi routes has one of each,
    // after all of its sends by its own edges (docs/architecture.md, "The peer transport"), so
    // every order keeps its sends before its waits as well.
    const auto waits_for_ranks = [&](std::size_t i) {
      const Node& node = plan_.node(i);
      const auto* kernel = std::get_if<KernelWork>(&node.work);
      return node.kind() == NodeKind::host || (kernel != nullptr && kernel->check);
    };
    std::size_t previous_host = plan_.nodes().size();
    for (std::size_t i = 0; i < plan_.nodes().size(); ++i) {
      if (!waits_for_ranks(i)) continue;
      if (previous_host < i) dependencies_[i].push_back(previous_host);
      previous_host = i;
    }
    dependents_.resize(dependencies_.size());
    for (std::size_t i = 0; i < dependencies_.size(); ++i) {
      for (const std::size_t d : dependencies_[i]) dependents_[d].push_back(i);
    }
    if (ordering_.order == HostOrder::reverse) {
      order_ = order_choosing([](const std::vector<std::size_t>& ready) {
        return static_cast<std::size_t>(std::max_element(ready.begin(), ready.end()) -
                                        ready.begin());
      });
    }
    if (ordering_.order == HostOrder::threads) start_workers();
  }

  ~HostExecutor() override {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    work_ready_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  HostExecutor(const HostExecutor&) = delete;
  HostExecutor& operator=(const HostExecutor&) = delete;
  HostExecutor(HostExecutor&&) = delete;
  HostExecutor& operator=(HostExecutor&&) = delete;

  void launch(CUstream_st* /*stream*/) override {
    switch (ordering_.order) {
      case HostOrder::insertion:
      case HostOrder::reverse:
        run_in(order_);
        return;
      case HostOrder::shuffled:
        run_in(order_choosing([this](const std::vector<std::size_t>& ready) {
          return std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(random_);
        }));
        return;
      case HostOrder::threads:
        run_on_workers();
        return;
    }
  }

  void wait() override {}  // launch() already ran the frame to completion

  void kernel_args_changed(std::size_t /*node*/) override {}  // the plan's values are read live

  void time_host_work(NodeTimer* timer) override { timer_ = timer; }

 private:
  // A topological order whose next node, among the ready ones, is ready[pick(ready)].
  template <class Pick>
  std::vector<std::size_t> order_choosing(Pick pick) const {
    std::vector<std::size_t> waiting_on(dependencies_.size());
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < dependencies_.size(); ++i) {
      waiting_on[i] = dependencies_[i].size();
      if (waiting_on[i] == 0) ready.push_back(i);
    }
    std::vector<std::size_t> order;
    order.reserve(dependencies_.size());
    while (!ready.empty()) {
      const std::size_t at = pick(ready);
      const std::size_t next = ready[at];
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(at));
      order.push_back(next);
      for (const std::size_t dependent : dependents_[next]) {
        if (--waiting_on[dependent] == 0) ready.push_back(dependent);
      }
    }
    return order;
  }

  void run_in(const std::vector<std::size_t>& order) {
    for (const std::size_t index : order) run_timed(index);
  }

  void run_timed(std::size_t index) {
    if (timer_ == nullptr) {
      run_node(plan_.node(index));
      return;
    }
    const std::uint64_t start = timer_->now();
    run_node(plan_.node(index));
    timer_->ran(index, start, timer_->now());
  }

  void run_node(const Node& node) {
    try {
      if (const auto* kernel = std::get_if<KernelWork>(&node.work)) {
        kernel->host(kernel->shape, kernel->args);
      } else if (const auto* copy = std::get_if<CopyWork>(&node.work)) {
        std::memcpy(copy->destination.data, copy->source.data, copy->bytes);
      } else if (const auto* host = std::get_if<HostWork>(&node.work)) {
        host->run();
      }
    } catch (const std::exception& error) {
      throw Error(fmt::format("{} node '{}' failed: {}", to_string(node.kind()), node.name(),
                              error.what()));
    }
  }

  // --- The `threads` order: the launching thread hands ready nodes to the workers and waits.
  void start_workers() {
    const unsigned workers = std::clamp(std::thread::hardware_concurrency(), 2U, kMostWorkers);
    for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
  }

  void run_on_workers() {
    std::unique_lock lock(mutex_);
    waiting_on_.resize(dependencies_.size());
    for (std::size_t i = 0; i < dependencies_.size(); ++i) {
      waiting_on_[i] = dependencies_[i].size();
      if (waiting_on_[i] == 0) ready_.push_back(i);
    }
    unfinished_ = dependencies_.size();
    failure_ = nullptr;
    work_ready_.notify_all();
    // After a failure no node starts; the launch returns when the running ones are done.
    frame_done_.wait(lock, [this] { return unfinished_ == 0 || (failure_ && running_ == 0); });
    ready_.clear();
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  }

  void work() {
    std::unique_lock lock(mutex_);
    while (true) {
      work_ready_.wait(lock, [this] { return stopping_ || (!ready_.empty() && !failure_); });
      if (stopping_) return;
      const std::size_t index = ready_.front();
      ready_.erase(ready_.begin());
      ++running_;
      lock.unlock();
      std::exception_ptr failed;
      try {
        run_timed(index);
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      --running_;
      if (failed) {
        if (!failure_) failure_ = failed;
      } else {
        --unfinished_;
        for (const std::size_t dependent : dependents_[index]) {
          if (--waiting_on_[dependent] == 0) ready_.push_back(dependent);
        }
      }
      work_ready_.notify_all();
      frame_done_.notify_all();
    }
  }

  FramePlan& plan_;
  HostOrdering ordering_;
  std::vector<std::size_t> order_;  // insertion and reverse: the same order at every launch
  std::vector<std::vector<std::size_t>> dependencies_;  // with the host nodes' chain
  std::vector<std::vector<std::size_t>> dependents_;
  std::mt19937_64 random_;      // shuffled: a new order at every launch
  NodeTimer* timer_ = nullptr;  // set only while a replay records

  // threads: guarded by mutex_.
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable frame_done_;
  std::vector<std::size_t> ready_;
  std::vector<std::size_t> waiting_on_;
  std::size_t unfinished_ = 0;
  std::size_t running_ = 0;
  std::exception_ptr failure_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;  // declared last: joined (by the destructor) first
};

}  // namespace

std::unique_ptr<Executor> make_host_executor(FramePlan& plan, const HostOrdering& ordering) {
  return std::make_unique<HostExecutor>(plan, ordering);
}

}  // namespace haloflow
