// The graph loop: a start kernel (the repetitions a launch asks for, patched only when they
// change), then a CUDA WHILE node whose body holds the cycle's plans one after the other (each
// lowered node by node as the graph executor lowers it, kernel priorities included; a join node
// between two plans) and a counter kernel beside them, which ends the loop on the device. The
// plans' field sets alternate inside the body, so nothing is patched between repetitions. A proxied
// host node (the mpi exchange) is its frame's own handoff kernel: it counts on the frame's
// execution counter and rings the frame's slot, and after the launch the loop queues, repetition
// by repetition and frame by frame, the jobs the progress thread serves in that order.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda_owners.hpp"
#include "executor.hpp"
#include "gpu_ports.hpp"
#include "graph_executor.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "loop_kernels.hpp"

namespace haloflow {
namespace {

// Conditional nodes whose condition a kernel sets came with CUDA 12.4 (toolkit and driver).
constexpr int kConditionalVersion = 12040;

class GraphLoop final : public LoopExecutor {
 public:
  GraphLoop(const std::vector<Frame*>& cycle, const std::string& name)
      : name_(name),
        priorities_(detail::stream_priorities()),
        left_(Memory::device, sizeof(unsigned), "repetitions left of " + name, Backend::cuda) {
    cudaGraph_t raw = nullptr;
    HALOFLOW_CUDA(cudaGraphCreate(&raw, 0), name_);
    graph_ = detail::Graph(raw, "graph of " + name_);
    cudaGraphConditionalHandle handle = 0;
    HALOFLOW_CUDA(
        cudaGraphConditionalHandleCreate(&handle, graph_.get(), 1, cudaGraphCondAssignDefault),
        name_);
    left_pointer_ = left_.as<unsigned>();
    handle_ = handle;
    start_args_ = {&left_pointer_, &repetitions_};
    next_args_ = {&left_pointer_, &handle_};
    start_ = add_counter(graph_.get(), detail::loop_start_entry(), start_args_.data(), {},
                         "start of " + name_);

    cudaGraphNodeParams loop{};
    loop.type = cudaGraphNodeTypeConditional;
    loop.conditional.handle = handle;
    loop.conditional.type = cudaGraphCondTypeWhile;
    loop.conditional.size = 1;
    cudaGraphNode_t loop_node = nullptr;
    HALOFLOW_CUDA(cudaGraphAddNode(&loop_node, graph_.get(), &start_, nullptr, 1, &loop),
                  "WHILE node of " + name_);
    cudaGraph_t body = loop.conditional.phGraph_out[0];  // owned by the conditional node

    std::vector<cudaGraphNode_t> previous;  // the join of the plan before, if any
    for (Frame* frame : cycle) {
      auto* executor = dynamic_cast<GraphExecutor*>(&detail::executor_of(*frame));
      if (executor == nullptr) {
        throw Error(name_ + ": frame '" + frame->plan().name() + "' is not a graph executor's");
      }
      executors_.push_back(executor);
      previous = {lower(body, frame->plan(), *executor, previous)};
    }
    // The counter depends on nothing in the body: the condition is read only once the whole
    // repetition has finished, so counting beside the frames keeps a kernel launch off the
    // repetition's critical path.
    (void)add_counter(body, detail::loop_next_entry(), next_args_.data(), {},
                      "counter of " + name_);

    cudaGraphExec_t exec = nullptr;
    HALOFLOW_CUDA(
        cudaGraphInstantiateWithFlags(&exec, graph_.get(), cudaGraphInstantiateFlagUseNodePriority),
        name_);
    executable_ = detail::GraphExec(exec, "executable graph of " + name_);
    stream_ = detail::make_stream(priorities_.lowest, "launch stream of " + name_);
    HALOFLOW_CUDA(cudaGraphUpload(executable_.get(), stream_.get()), name_);
  }

  void launch(int repetitions, CUstream_st* stream) override {
    const auto wanted = static_cast<unsigned>(repetitions);
    if (wanted != repetitions_) {
      repetitions_ = wanted;
      cudaKernelNodeParams params = counter_params(detail::loop_start_entry(), start_args_.data());
      HALOFLOW_CUDA(cudaGraphExecKernelNodeSetParams(executable_.get(), start_, &params),
                    "start of " + name_);
    }
    launched_on_ = stream != nullptr ? stream : stream_.get();
    HALOFLOW_CUDA(cudaGraphLaunch(executable_.get(), launched_on_), name_);
    // In the order the GPU rings them; each frame counts them as its launches.
    for (int r = 0; r < repetitions; ++r) {
      for (GraphExecutor* executor : executors_) executor->expect_execution();
    }
  }

  void wait() override {
    if (launched_on_ != nullptr) HALOFLOW_CUDA(cudaStreamSynchronize(launched_on_), name_);
  }

 private:
  static cudaKernelNodeParams counter_params(const void* entry, void** args) {
    cudaKernelNodeParams params{};
    params.func = const_cast<void*>(entry);  // CUDA's struct is not const-correct
    params.gridDim = dim3(1, 1, 1);
    params.blockDim = dim3(1, 1, 1);
    params.kernelParams = args;
    return params;
  }

  static cudaGraphNode_t add_counter(cudaGraph_t graph, const void* entry, void** args,
                                     const std::vector<cudaGraphNode_t>& after,
                                     const std::string& context) {
    const cudaKernelNodeParams params = counter_params(entry, args);
    cudaGraphNode_t node = nullptr;
    HALOFLOW_CUDA(cudaGraphAddKernelNode(&node, graph, after.data(), after.size(), &params),
                  context);
    return node;
  }

  // Lowers `plan` into `body` after `entry`; \returns an empty node joining its last nodes.
  cudaGraphNode_t lower(cudaGraph_t body, const FramePlan& plan, GraphExecutor& executor,
                        const std::vector<cudaGraphNode_t>& entry) {
    const auto dependencies = plan.dependencies();
    std::vector<cudaGraphNode_t> nodes(plan.nodes().size(), nullptr);
    std::vector<bool> depended_on(plan.nodes().size(), false);
    std::vector<cudaGraphNode_t> after;
    // Exchanges chained in topological order, as the graph executor chains them: every rank
    // then runs its exchanges in one order.
    std::size_t previous_exchange = plan.nodes().size();
    for (const std::size_t index : plan.topological_order()) {
      after.clear();
      for (const std::size_t d : dependencies[index]) {
        after.push_back(nodes[d]);
        depended_on[d] = true;
      }
      const auto* host = std::get_if<HostWork>(&plan.node(index).work);
      const bool exchange = host != nullptr && host->split_phase();
      if (exchange && previous_exchange < nodes.size() &&
          std::find(after.begin(), after.end(), nodes[previous_exchange]) == after.end()) {
        after.push_back(nodes[previous_exchange]);
        depended_on[previous_exchange] = true;
      }
      if (after.empty()) after = entry;
      nodes[index] = add_node(body, plan, executor, index, after);
      if (exchange) previous_exchange = index;
    }
    std::vector<cudaGraphNode_t> last;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!depended_on[i]) last.push_back(nodes[i]);
    }
    if (last.empty()) last = entry;  // an empty plan
    cudaGraphNode_t join = nullptr;
    HALOFLOW_CUDA(cudaGraphAddEmptyNode(&join, body, last.data(), last.size()),
                  "end of frame '" + plan.name() + "' in " + name_);
    return join;
  }

  // The node kinds can_loop() lets through, as the graph executor lowers them.
  cudaGraphNode_t add_node(cudaGraph_t body, const FramePlan& plan, GraphExecutor& executor,
                           std::size_t index, const std::vector<cudaGraphNode_t>& after) {
    const Node& node = plan.node(index);
    const std::string context =
        "node '" + node.name() + "' of frame '" + plan.name() + "' in " + name_;
    cudaGraphNode_t out = nullptr;
    const auto* kernel = std::get_if<KernelWork>(&node.work);
    const bool proxied = node.kind() == NodeKind::host && executor.handoff() == Handoff::proxy;
    if (kernel != nullptr || proxied) {
      cudaKernelNodeParams params{};
      if (proxied) {
        params = executor.handoff_params(index);
      } else {
        params.func = const_cast<void*>(kernel->device_entry);
        params.gridDim = dim3(kernel->shape.grid.x, kernel->shape.grid.y, kernel->shape.grid.z);
        params.blockDim = dim3(kernel->shape.block.x, kernel->shape.block.y, kernel->shape.block.z);
        params.sharedMemBytes = static_cast<unsigned>(kernel->shape.shared_bytes);
        params.kernelParams = kernel->args.pointers();  // copied by the call: the values of now
      }
      HALOFLOW_CUDA(cudaGraphAddKernelNode(&out, body, after.data(), after.size(), &params),
                    context);
      cudaLaunchAttributeValue priority{};
      priority.priority =
          node.lane() == Lane::communication ? priorities_.highest : priorities_.lowest;
      HALOFLOW_CUDA(cudaGraphKernelNodeSetAttribute(out, cudaLaunchAttributePriority, &priority),
                    context);
    } else if (const auto* copy = std::get_if<CopyWork>(&node.work)) {
      HALOFLOW_CUDA(
          cudaGraphAddMemcpyNode1D(&out, body, after.data(), after.size(), copy->destination.data,
                                   copy->source.data, copy->bytes, cudaMemcpyDeviceToDevice),
          context);
    } else if (node.kind() == NodeKind::empty) {
      HALOFLOW_CUDA(cudaGraphAddEmptyNode(&out, body, after.data(), after.size()), context);
    } else {
      throw Error(context + ": a " + std::string(to_string(node.kind())) +
                  " node cannot be in a loop body (can_loop refuses it)");
    }
    return out;
  }

  std::string name_;
  detail::StreamPriorities priorities_;
  Buffer left_;
  unsigned* left_pointer_ = nullptr;
  unsigned repetitions_ = 1;
  cudaGraphConditionalHandle handle_ = 0;
  std::vector<void*> start_args_;
  std::vector<void*> next_args_;
  detail::Graph graph_;
  cudaGraphNode_t start_ = nullptr;  // owned by graph_
  detail::GraphExec executable_;
  detail::Stream stream_;
  cudaStream_t launched_on_ = nullptr;
  std::vector<GraphExecutor*> executors_;  // the cycle's, in order; owned by their frames
};

}  // namespace

std::unique_ptr<LoopExecutor> make_graph_loop(const std::vector<Frame*>& cycle,
                                              const std::string& name) {
  return std::make_unique<GraphLoop>(cycle, name);
}

std::string conditional_nodes_missing() {
  if constexpr (CUDART_VERSION < kConditionalVersion) {
    return "this build's CUDA toolkit (" + std::to_string(CUDART_VERSION) +
           ") has no conditional graph nodes (12.4 or later has)";
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < kConditionalVersion) {
    (void)cudaGetLastError();
    return "the CUDA driver (" + std::to_string(driver) +
           ") has no conditional graph nodes (12.4 or later has)";
  }
  return {};
}

}  // namespace haloflow
