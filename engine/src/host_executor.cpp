// The host executor: the plan run on the CPU in topological order. It lets machines without a
// GPU (CI among them) run whole frames; "device" buffers are then ordinary host memory.

#include <fmt/format.h>

#include <cstring>

#include "executor.hpp"
#include "haloflow/error.hpp"

namespace haloflow {
namespace {

class HostExecutor final : public Executor {
 public:
  explicit HostExecutor(FramePlan& plan) : plan_(plan), order_(plan.topological_order()) {
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
  }

  void launch(CUstream_st* /*stream*/) override {
    if (timer_ == nullptr) {
      for (const std::size_t index : order_) run_node(plan_.node(index));
      return;
    }
    for (const std::size_t index : order_) {
      const std::uint64_t start = timer_->now();
      run_node(plan_.node(index));
      timer_->ran(index, start, timer_->now());
    }
  }

  void wait() override {}  // launch() already ran the frame to completion

  void kernel_args_changed(std::size_t /*node*/) override {}  // the plan's values are read live

  void time_host_work(NodeTimer* timer) override { timer_ = timer; }

 private:
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

  FramePlan& plan_;
  std::vector<std::size_t> order_;
  NodeTimer* timer_ = nullptr;  // set only while a replay records
};

}  // namespace

std::unique_ptr<Executor> make_host_executor(FramePlan& plan) {
  return std::make_unique<HostExecutor>(plan);
}

}  // namespace haloflow
