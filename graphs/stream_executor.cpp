// The streams executor (the seed answer: bulk work on the lowest-priority stream,
// communication on the highest, events for edges that cross between them) and, with one
// lane, the serial executor (one stream, topological order). Plain host nodes go through
// cudaLaunchHostFunc; split-phase host nodes (the MPI exchange) run on the launching thread:
// post once their dependencies are done, finish just before the first node that needs them.

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cuda_owners.hpp"
#include "executor.hpp"
#include "gpu_ports.hpp"
#include "haloflow/error.hpp"

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
    ready_.resize(plan.nodes().size());
    for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
      const Node& node = plan.node(i);
      const auto* host = std::get_if<HostWork>(&node.work);
      callbacks_.push_back(host ? HostCallback{&host->run, &node.name(), &failures}
                                : HostCallback{});
      if (host != nullptr && host->split_phase()) {
        ready_[i] = detail::make_ordering_event(fmt::format("'{}' ready", node.name()));
        if (!done_[i]) {  // its dependents issue after finish() anyway; the event keeps it uniform
          done_[i] = detail::make_ordering_event(fmt::format("'{}' done", node.name()));
        }
      }
    }
  }

  // Host functions queued on the lanes call back into callbacks_: let them finish first.
  ~StreamExecutor() override {
    for (const Stream& lane : streams_) {
      HALOFLOW_CUDA_NOTHROW(cudaStreamSynchronize(lane.get()), lane.name());
    }
  }
  StreamExecutor(const StreamExecutor&) = delete;
  StreamExecutor& operator=(const StreamExecutor&) = delete;
  StreamExecutor(StreamExecutor&&) = delete;
  StreamExecutor& operator=(StreamExecutor&&) = delete;

  void launch(CUstream_st* stream) override {
    launched_on_ = stream != nullptr ? stream : origin_.get();
    const std::string& frame = plan_.name();
    HALOFLOW_CUDA(cudaEventRecord(fork_.get(), launched_on_), frame);
    for (const Stream& lane : streams_) {
      HALOFLOW_CUDA(cudaStreamWaitEvent(lane.get(), fork_.get(), 0), lane.name());
    }
    pending_.clear();
    for (const std::size_t index : order_) issue(index);
    while (!pending_.empty()) finish_pending(pending_.front());
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
  // Runs a split-phase node's finish() and marks it done on its stream.
  void finish_pending(std::size_t index) {
    const Node& node = plan_.node(index);
    pending_.erase(std::find(pending_.begin(), pending_.end(), index));
    call_host_phase(node, std::get<HostWork>(node.work).finish);
    HALOFLOW_CUDA(cudaEventRecord(done_[index].get(), streams_[lane_of_[index]].get()),
                  node.name());
  }

  // A split-phase node runs on the launching thread, outside HostCallback::invoke: it too skips
  // its work (and fails, naming the first cause) once a host node of any frame has failed, so
  // that a peer stopped in one frame's collective is not waited for again by this exchange.
  static void call_host_phase(const Node& node, const std::function<void()>& phase) {
    if (const std::string earlier = HostNodeFailures::unreported_anywhere(); !earlier.empty()) {
      throw Error(fmt::format("host node '{}' failed: not run: the run failed already ({})",
                              node.name(), earlier));
    }
    try {
      phase();
    } catch (const std::exception& error) {
      throw Error(fmt::format("host node '{}' failed: {}", node.name(), error.what()));
    }
  }

  void issue(std::size_t index) {
    const Node& node = plan_.node(index);
    cudaStream_t stream = streams_[lane_of_[index]].get();
    for (const std::size_t d : dependencies_[index]) {
      if (std::find(pending_.begin(), pending_.end(), d) != pending_.end()) finish_pending(d);
    }
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
    } else if (const auto* host = std::get_if<HostWork>(&node.work)) {
      if (host->split_phase()) {
        // Wait only for this stream's work so far (pack, download); the bulk stream runs on.
        HALOFLOW_CUDA(cudaEventRecord(ready_[index].get(), stream), node.name());
        HALOFLOW_CUDA(cudaEventSynchronize(ready_[index].get()), node.name());
        call_host_phase(node, host->post);
        pending_.push_back(index);
        return;  // done_ is recorded by finish_pending
      }
      HALOFLOW_CUDA(cudaLaunchHostFunc(stream, &HostCallback::invoke, &callbacks_[index]),
                    node.name());
    } else if (const auto* work = std::get_if<StreamWork>(&node.work)) {
      work->issue(stream);
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
  std::vector<Event> ready_;          // split-phase nodes: their dependencies are done
  std::vector<std::size_t> pending_;  // split-phase nodes posted but not finished
  cudaStream_t launched_on_ = nullptr;
};

}  // namespace

std::unique_ptr<Executor> make_stream_executor(FramePlan& plan, int lanes,
                                               HostNodeFailures& failures) {
  return std::make_unique<StreamExecutor>(plan, lanes, failures);
}

}  // namespace haloflow
