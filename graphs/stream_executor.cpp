// The streams executor (the seed answer: bulk work on the lowest-priority stream,
// communication on the highest, events for edges that cross between them) and, with one
// lane, the serial executor (one stream, topological order).

#include <fmt/format.h>

#include <optional>

#include "cuda_owners.hpp"
#include "executor.hpp"

namespace haloflow {
namespace {

using detail::Event;
using detail::Stream;

class StreamExecutor final : public Executor {
 public:
  StreamExecutor(FramePlan& plan, int lanes, HostNodeFailures& failures)
      : plan_(plan), order_(plan.topological_order()), lane_of_(plan.nodes().size(), 0) {
    detail::require_device_entries(plan, lanes == 1 ? "serial" : "streams");
    const auto priorities = detail::stream_priorities();
    if (lanes == 1) {
      streams_.push_back(detail::make_stream(priorities.lowest, plan.name() + " serial stream"));
    } else {
      streams_.push_back(detail::make_stream(priorities.lowest, plan.name() + " bulk stream"));
      streams_.push_back(
          detail::make_stream(priorities.highest, plan.name() + " communication stream"));
      for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
        lane_of_[i] = plan.node(i).lane() == Lane::communication ? 1 : 0;
      }
    }
    origin_ = detail::make_stream(priorities.lowest, plan.name() + " origin stream");
    fork_ = detail::make_ordering_event(plan.name() + " fork");
    for (std::size_t lane = 0; lane < streams_.size(); ++lane) {
      joins_.push_back(detail::make_ordering_event(fmt::format("{} join {}", plan.name(), lane)));
    }
    // An event after each node that a node on the other stream waits for.
    dependencies_ = plan.dependencies();
    done_.resize(plan.nodes().size());
    for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
      for (const std::size_t d : dependencies_[i]) {
        if (lane_of_[d] != lane_of_[i] && !done_[d]) {
          done_[d] = detail::make_ordering_event(fmt::format("'{}' done", plan.node(d).name()));
        }
      }
    }
    callbacks_.reserve(plan.nodes().size());
    for (const Node& node : plan.nodes()) {
      const auto* host = std::get_if<HostWork>(&node.work);
      callbacks_.push_back(host ? HostCallback{&host->run, &node.name(), &failures}
                                : HostCallback{});
    }
  }

  void launch(CUstream_st* stream) override {
    launched_on_ = stream != nullptr ? stream : origin_.get();
    const std::string& frame = plan_.name();
    HALOFLOW_CUDA(cudaEventRecord(fork_.get(), launched_on_), frame);
    for (const Stream& lane : streams_) {
      HALOFLOW_CUDA(cudaStreamWaitEvent(lane.get(), fork_.get(), 0), lane.name());
    }
    for (const std::size_t index : order_) issue(index);
    for (std::size_t lane = 0; lane < streams_.size(); ++lane) {
      HALOFLOW_CUDA(cudaEventRecord(joins_[lane].get(), streams_[lane].get()), frame);
      HALOFLOW_CUDA(cudaStreamWaitEvent(launched_on_, joins_[lane].get(), 0), frame);
    }
  }

  void wait() override {
    if (launched_on_ != nullptr) HALOFLOW_CUDA(cudaStreamSynchronize(launched_on_), plan_.name());
  }

  void kernel_args_changed(std::size_t /*node*/) override {}  // launches read the plan's values

 private:
  void issue(std::size_t index) {
    const Node& node = plan_.node(index);
    cudaStream_t stream = streams_[lane_of_[index]].get();
    for (const std::size_t d : dependencies_[index]) {
      if (lane_of_[d] != lane_of_[index]) {
        HALOFLOW_CUDA(cudaStreamWaitEvent(stream, done_[d].get(), 0), node.name());
      }
    }
    if (const auto* kernel = std::get_if<KernelWork>(&node.work)) {
      const auto& shape = kernel->shape;
      HALOFLOW_CUDA(
          cudaLaunchKernel(kernel->device_entry, dim3(shape.grid.x, shape.grid.y, shape.grid.z),
                           dim3(shape.block.x, shape.block.y, shape.block.z),
                           kernel->args.pointers(), shape.shared_bytes, stream),
          node.name());
    } else if (const auto* copy = std::get_if<CopyWork>(&node.work)) {
      HALOFLOW_CUDA(cudaMemcpyAsync(copy->destination.data, copy->source.data, copy->bytes,
                                    detail::to_cuda(*copy->kind()), stream),
                    node.name());
    } else if (node.kind() == NodeKind::host) {
      HALOFLOW_CUDA(cudaLaunchHostFunc(stream, &HostCallback::invoke, &callbacks_[index]),
                    node.name());
    }
    if (done_[index]) HALOFLOW_CUDA(cudaEventRecord(done_[index].get(), stream), node.name());
  }

  FramePlan& plan_;
  std::vector<std::size_t> order_;
  std::vector<std::vector<std::size_t>> dependencies_;
  std::vector<std::size_t> lane_of_;
  std::vector<Stream> streams_;
  Stream origin_;
  Event fork_;
  std::vector<Event> joins_;
  std::vector<Event> done_;
  std::vector<HostCallback> callbacks_;
  cudaStream_t launched_on_ = nullptr;
};

}  // namespace

std::unique_ptr<Executor> make_stream_executor(FramePlan& plan, int lanes,
                                               HostNodeFailures& failures) {
  return std::make_unique<StreamExecutor>(plan, lanes, failures);
}

}  // namespace haloflow
