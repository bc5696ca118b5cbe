#include "graph_executor.hpp"

#include <algorithm>
#include <string>

namespace haloflow {

GraphExecutor::GraphExecutor(FramePlan& plan, HostNodeFailures& failures)
    : plan_(plan),
      priorities_(detail::stream_priorities()),
      nodes_(plan.nodes().size(), nullptr),
      kernel_params_(plan.nodes().size()),
      callbacks_(plan.nodes().size()) {
  detail::require_device_entries(plan, "graph");
  const std::string& name = plan.name();
  cudaGraph_t raw_graph = nullptr;
  HALOFLOW_CUDA(cudaGraphCreate(&raw_graph, 0), "frame '" + name + "'");
  graph_ = detail::Graph(raw_graph, "graph of frame '" + name + "'");

  const auto dependencies = plan.dependencies();
  std::vector<cudaGraphNode_t> after;
  // Host nodes that wait on other ranks (split-phase ones: MPI exchanges) are chained in
  // topological order. CUDA may run independent host nodes in any order, one at a time; two
  // ranks running two exchanges in opposite orders would each wait for the other forever.
  cudaGraphNode_t previous_exchange = nullptr;
  for (const std::size_t index : plan.topological_order()) {
    after.clear();
    for (const std::size_t d : dependencies[index]) after.push_back(nodes_[d]);
    const Node& node = plan.node(index);
    const auto* host = std::get_if<HostWork>(&node.work);
    const bool exchange = host != nullptr && host->split_phase();
    if (exchange && previous_exchange != nullptr &&
        std::find(after.begin(), after.end(), previous_exchange) == after.end()) {
      after.push_back(previous_exchange);
    }
    if (node.kind() == NodeKind::host) {
      callbacks_[index] = HostCallback{&std::get<HostWork>(node.work).run, &node.name(), &failures};
    }
    add_node(index, after);
    if (exchange) previous_exchange = nodes_[index];
  }
  for (const Node& node : plan.nodes()) {
    patch_contexts_.push_back("kernel node '" + node.name() + "' of frame '" + name + "'");
  }

  cudaGraphExec_t raw_exec = nullptr;
  HALOFLOW_CUDA(cudaGraphInstantiateWithFlags(&raw_exec, graph_.get(),
                                              cudaGraphInstantiateFlagUseNodePriority),
                "frame '" + name + "'");
  executable_ = detail::GraphExec(raw_exec, "executable graph of frame '" + name + "'");
  stream_ = detail::make_stream(priorities_.lowest, "launch stream of frame '" + name + "'");
  // Upload once so the first launch does not pay for moving the graph to the device.
  HALOFLOW_CUDA(cudaGraphUpload(executable_.get(), stream_.get()), "frame '" + name + "'");
}

void GraphExecutor::add_node(std::size_t index, const std::vector<cudaGraphNode_t>& after) {
  const Node& node = plan_.node(index);
  cudaGraphNode_t* out = &nodes_[index];
  const std::string& context = node.name();
  if (const auto* kernel = std::get_if<KernelWork>(&node.work)) {
    cudaKernelNodeParams& params = kernel_params_[index];
    params.func = const_cast<void*>(kernel->device_entry);  // CUDA's struct is not const-correct
    params.gridDim = dim3(kernel->shape.grid.x, kernel->shape.grid.y, kernel->shape.grid.z);
    params.blockDim = dim3(kernel->shape.block.x, kernel->shape.block.y, kernel->shape.block.z);
    params.sharedMemBytes = static_cast<unsigned>(kernel->shape.shared_bytes);
    params.kernelParams = kernel->args.pointers();
    params.extra = nullptr;
    HALOFLOW_CUDA(cudaGraphAddKernelNode(out, graph_.get(), after.data(), after.size(), &params),
                  context);
    cudaLaunchAttributeValue priority{};
    priority.priority =
        node.lane() == Lane::communication ? priorities_.highest : priorities_.lowest;
    HALOFLOW_CUDA(cudaGraphKernelNodeSetAttribute(*out, cudaLaunchAttributePriority, &priority),
                  context);
  } else if (const auto* copy = std::get_if<CopyWork>(&node.work)) {
    HALOFLOW_CUDA(cudaGraphAddMemcpyNode1D(out, graph_.get(), after.data(), after.size(),
                                           copy->destination.data, copy->source.data, copy->bytes,
                                           detail::to_cuda(*copy->kind())),
                  context);
  } else if (node.kind() == NodeKind::host) {
    const cudaHostNodeParams params{&HostCallback::invoke, &callbacks_[index]};
    HALOFLOW_CUDA(cudaGraphAddHostNode(out, graph_.get(), after.data(), after.size(), &params),
                  context);
  } else {
    HALOFLOW_CUDA(cudaGraphAddEmptyNode(out, graph_.get(), after.data(), after.size()), context);
  }
}

void GraphExecutor::launch(CUstream_st* stream) {
  launched_on_ = stream != nullptr ? stream : stream_.get();
  HALOFLOW_CUDA(cudaGraphLaunch(executable_.get(), launched_on_), plan_.name());
}

void GraphExecutor::wait() {
  if (launched_on_ != nullptr) HALOFLOW_CUDA(cudaStreamSynchronize(launched_on_), plan_.name());
}

void GraphExecutor::kernel_args_changed(std::size_t node) {
  // kernelParams points at the plan's argument block, which the update rewrote in place; this
  // call copies the new values into the executable graph.
  HALOFLOW_CUDA(
      cudaGraphExecKernelNodeSetParams(executable_.get(), nodes_[node], &kernel_params_[node]),
      patch_contexts_[node]);
}

void GraphExecutor::time_host_work(NodeTimer* timer) {
  timed_.resize(plan_.nodes().size());
  for (std::size_t index = 0; index < plan_.nodes().size(); ++index) {
    if (plan_.node(index).kind() != NodeKind::host) continue;
    cudaHostNodeParams params{&HostCallback::invoke, &callbacks_[index]};
    if (timer != nullptr) {
      timed_[index] = TimedHostCallback{&callbacks_[index], index, timer};
      params = cudaHostNodeParams{&TimedHostCallback::invoke, &timed_[index]};
    }
    HALOFLOW_CUDA(cudaGraphExecHostNodeSetParams(executable_.get(), nodes_[index], &params),
                  "host node '" + plan_.node(index).name() + "' of frame '" + plan_.name() + "'");
  }
}

std::unique_ptr<Executor> make_graph_executor(FramePlan& plan, HostNodeFailures& failures) {
  return std::make_unique<GraphExecutor>(plan, failures);
}

}  // namespace haloflow
