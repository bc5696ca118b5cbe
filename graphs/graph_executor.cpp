#include "graph_executor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "haloflow/error.hpp"

namespace haloflow {
namespace {

// Measured on an H200 (tools/bench-latency, docs/benchmarks.md): the proxy handoff takes 4-6 us
// where a host node takes 20-30 us, and hides behind the interior; it is the default.
constexpr Handoff kAutomaticHandoff = Handoff::proxy;

// Waits until `done()` or `bound` has passed; \returns done().
template <class Done>
bool wait_until(Done done, std::chrono::duration<double> bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return done();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return true;
}

}  // namespace

GraphExecutor::GraphExecutor(FramePlan& plan, HostNodeFailures& failures,
                             const FrameOptions& options)
    : plan_(plan),
      priorities_(detail::stream_priorities()),
      handoff_(options.handoff == Handoff::automatic ? kAutomaticHandoff : options.handoff),
      release_timeout_ns_(static_cast<std::uint64_t>(
          std::chrono::duration<double, std::nano>(options.release_timeout).count())),
      nodes_(plan.nodes().size(), nullptr),
      kernel_params_(plan.nodes().size()),
      callbacks_(plan.nodes().size()) {
  detail::require_device_entries(plan, "graph");
  const std::string& name = plan.name();
  cudaGraph_t raw_graph = nullptr;
  HALOFLOW_CUDA(cudaGraphCreate(&raw_graph, 0), "frame '" + name + "'");
  graph_ = detail::Graph(raw_graph, "graph of frame '" + name + "'");

  const std::vector<std::size_t> order = plan.topological_order();
  if (handoff_ == Handoff::proxy) {
    for (const std::size_t index : order) {
      if (plan.node(index).kind() == NodeKind::host) proxied_.push_back({index, proxied_.size()});
    }
    if (!proxied_.empty()) {
      const std::size_t count = proxied_.size();
      slots_ = Buffer(Memory::host, count * sizeof(detail::HandoffSlot),
                      "handoff slots of frame '" + name + "'", Backend::cuda);
      std::memset(slots_.data(), 0, slots_.bytes());
      executions_ = Buffer(Memory::device, count * sizeof(std::uint64_t),
                           "handoff counters of frame '" + name + "'", Backend::cuda);
      detail::zero_device_now(executions_.data(), executions_.bytes(),
                              "handoff counters of frame '" + name + "'");
      handoff_args_.resize(count);
      handoff_arg_pointers_.resize(count);
      progress_ = detail::ProgressThread::shared();
    }
  }

  const auto dependencies = plan.dependencies();
  std::vector<cudaGraphNode_t> after;
  // Host nodes that wait on other ranks (split-phase ones: MPI exchanges) are chained in
  // topological order. CUDA may run independent host nodes in any order, one at a time; two
  // ranks running two exchanges in opposite orders would each wait for the other forever.
  cudaGraphNode_t previous_exchange = nullptr;
  for (const std::size_t index : order) {
    after.clear();
    for (const std::size_t d : dependencies[index]) after.push_back(nodes_[d]);
    const Node& node = plan.node(index);
    const auto* host = std::get_if<HostWork>(&node.work);
    const bool exchange = host != nullptr && host->split_phase();
    if (exchange && previous_exchange != nullptr &&
        std::find(after.begin(), after.end(), previous_exchange) == after.end()) {
      after.push_back(previous_exchange);
    }
    if (host != nullptr) {
      callbacks_[index] = HostCallback{&host->run, &node.name(), &failures, &host_calls_};
      ++host_nodes_;
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

GraphExecutor::~GraphExecutor() {
  drain();
}

void GraphExecutor::drain() noexcept {
  // The jobs' doorbells ring as the GPU reaches them; a bound well past the release timeout
  // covers every frame still queued on the device.
  const auto bound =
      std::chrono::duration<double>(1e-9 * static_cast<double>(release_timeout_ns_) + 10.0);
  if (handoff_ == Handoff::host_node) {
    // The driver calls back into callbacks_ until the last launch's host nodes have run.
    const std::uint64_t expected = launches_ * host_nodes_;
    if (!wait_until([&] { return host_calls_.load(std::memory_order_acquire) >= expected; },
                    bound)) {
      std::fprintf(stderr,
                   "haloflow: frame '%s' destroyed while its host nodes had not run; the CUDA "
                   "driver may still call them\n",
                   plan_.name().c_str());
    }
    return;
  }
  if (proxied_.empty()) return;
  const auto all_served = [this] {
    return ledger_.served.load(std::memory_order_acquire) ==
           ledger_.submitted.load(std::memory_order_relaxed);
  };
  bool clean = wait_until(all_served, bound);
  if (!clean) {
    ledger_.abandoned.store(true, std::memory_order_release);  // a graph that never ran
    (void)wait_until(all_served, std::chrono::seconds(5));
  }
  auto* slots = slots_.as<detail::HandoffSlot>();
  const auto all_acknowledged = [&] {
    return std::all_of(proxied_.begin(), proxied_.end(), [&](const Proxied& p) {
      return detail::load(slots[p.slot].acknowledged) >= launches_;
    });
  };
  clean = clean && wait_until(all_acknowledged, std::chrono::seconds(5));
  if (!clean) {
    // The GPU may still write into the slots: leave them allocated rather than let it write
    // into freed memory.
    std::fprintf(stderr,
                 "haloflow: frame '%s' was destroyed while %llu launches had not finished their "
                 "host handoff; its handoff slots are left allocated\n",
                 plan_.name().c_str(), static_cast<unsigned long long>(launches_));
    (void)new Buffer(std::move(slots_));  // NOLINT(cppcoreguidelines-owning-memory): on purpose
  }
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
  } else if (const auto* work = std::get_if<StreamWork>(&node.work)) {
    add_captured(index, *work, after);
  } else if (node.kind() == NodeKind::host && handoff_ == Handoff::proxy) {
    add_handoff(index, after);
  } else if (node.kind() == NodeKind::host) {
    const cudaHostNodeParams params{&HostCallback::invoke, &callbacks_[index]};
    HALOFLOW_CUDA(cudaGraphAddHostNode(out, graph_.get(), after.data(), after.size(), &params),
                  context);
  } else {
    HALOFLOW_CUDA(cudaGraphAddEmptyNode(out, graph_.get(), after.data(), after.size()), context);
  }
}

void GraphExecutor::add_handoff(std::size_t index, const std::vector<cudaGraphNode_t>& after) {
  const Node& node = plan_.node(index);
  const auto found = std::find_if(proxied_.begin(), proxied_.end(),
                                  [&](const Proxied& p) { return p.node == index; });
  const std::size_t slot = found->slot;
  handoff_args_[slot] = detail::HandoffArgs{.slot = slots_.as<detail::HandoffSlot>() + slot,
                                            .executions = executions_.as<std::uint64_t>() + slot,
                                            .deadline_ns = release_timeout_ns_};
  handoff_arg_pointers_[slot] = &handoff_args_[slot];
  const cudaKernelNodeParams params = handoff_params(index);
  cudaGraphNode_t* out = &nodes_[index];
  const std::string context = "handoff of host node '" + node.name() + "'";
  HALOFLOW_CUDA(cudaGraphAddKernelNode(out, graph_.get(), after.data(), after.size(), &params),
                context);
  cudaLaunchAttributeValue priority{};
  priority.priority = node.lane() == Lane::communication ? priorities_.highest : priorities_.lowest;
  HALOFLOW_CUDA(cudaGraphKernelNodeSetAttribute(*out, cudaLaunchAttributePriority, &priority),
                context);
}

cudaKernelNodeParams GraphExecutor::handoff_params(std::size_t index) {
  const auto found = std::find_if(proxied_.begin(), proxied_.end(),
                                  [&](const Proxied& p) { return p.node == index; });
  if (found == proxied_.end()) {
    throw Error("frame '" + plan_.name() + "': node '" + plan_.node(index).name() +
                "' is not a proxied host node");
  }
  cudaKernelNodeParams params{};
  params.func = const_cast<void*>(detail::handoff_kernel_entry());
  params.gridDim = dim3(1, 1, 1);
  params.blockDim = dim3(1, 1, 1);
  params.kernelParams = &handoff_arg_pointers_[found->slot];
  return params;
}

namespace {

// Gives every kernel of a captured graph (child graphs included) the lane's priority: a library's
// kernels (NCCL's) are the communication chain too.
void set_kernel_priorities(cudaGraph_t graph, int priority, const std::string& context) {
  std::size_t count = 0;
  HALOFLOW_CUDA(cudaGraphGetNodes(graph, nullptr, &count), context);
  std::vector<cudaGraphNode_t> nodes(count);
  HALOFLOW_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count), context);
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    HALOFLOW_CUDA(cudaGraphNodeGetType(node, &type), context);
    if (type == cudaGraphNodeTypeKernel) {
      cudaLaunchAttributeValue value{};
      value.priority = priority;
      HALOFLOW_CUDA(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributePriority, &value),
                    context);
    } else if (type == cudaGraphNodeTypeGraph) {
      cudaGraph_t child = nullptr;
      HALOFLOW_CUDA(cudaGraphChildGraphNodeGetGraph(node, &child), context);
      set_kernel_priorities(child, priority, context);
    }
  }
}

}  // namespace

void GraphExecutor::add_captured(std::size_t index, const StreamWork& work,
                                 const std::vector<cudaGraphNode_t>& after) {
  const Node& node = plan_.node(index);
  const std::string context = "stream node '" + node.name() + "' of frame '" + plan_.name() + "'";
  const int priority =
      node.lane() == Lane::communication ? priorities_.highest : priorities_.lowest;
  detail::Stream capture = detail::make_stream(priority, "capture of " + context);
  // Thread-local: another thread's unrelated CUDA calls do not break this capture.
  HALOFLOW_CUDA(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeThreadLocal), context);
  cudaGraph_t raw = nullptr;
  try {
    work.issue(capture.get());
  } catch (...) {
    (void)cudaStreamEndCapture(capture.get(), &raw);
    if (raw != nullptr) (void)cudaGraphDestroy(raw);
    throw;
  }
  HALOFLOW_CUDA(cudaStreamEndCapture(capture.get(), &raw), context);
  const detail::Graph child(raw, "captured graph of " + context);
  set_kernel_priorities(child.get(), priority, context);
  // The node holds its own copy of the child graph.
  HALOFLOW_CUDA(cudaGraphAddChildGraphNode(&nodes_[index], graph_.get(), after.data(), after.size(),
                                           child.get()),
                context);
}

void GraphExecutor::launch(CUstream_st* stream) {
  launched_on_ = stream != nullptr ? stream : stream_.get();
  HALOFLOW_CUDA(cudaGraphLaunch(executable_.get(), launched_on_), plan_.name());
  // After the launch succeeded: a job is only ever queued for an execution that will ring. The
  // doorbell may already have rung; the thread then serves the job at once.
  expect_execution();
}

void GraphExecutor::expect_execution() {
  const std::uint64_t sequence = ++launches_;
  if (proxied_.empty()) return;
  auto* slots = slots_.as<detail::HandoffSlot>();
  for (const Proxied& p : proxied_) {
    progress_->submit(detail::HandoffJob{.slot = slots + p.slot,
                                         .sequence = sequence,
                                         .callback = &callbacks_[p.node],
                                         .timer = proxy_timer_,
                                         .node = p.node,
                                         .ledger = &ledger_});
  }
}

void GraphExecutor::wait() {
  if (launched_on_ != nullptr) HALOFLOW_CUDA(cudaStreamSynchronize(launched_on_), plan_.name());
  if (proxied_.empty()) return;
  const auto* slots = slots_.as<const detail::HandoffSlot>();
  for (const Proxied& p : proxied_) {
    const std::uint64_t gave_up = detail::load(slots[p.slot].gave_up);
    if (gave_up <= gave_up_seen_) continue;
    gave_up_seen_ = gave_up;
    throw Error("frame '" + plan_.name() + "': host node '" + plan_.node(p.node).name() +
                "' did not finish within " +
                std::to_string(1e-9 * static_cast<double>(release_timeout_ns_)) +
                " s (FrameOptions::release_timeout); the GPU went on without its result");
  }
}

void GraphExecutor::kernel_args_changed(std::size_t node) {
  // kernelParams points at the plan's argument block, which the update rewrote in place; this
  // call copies the new values into the executable graph.
  HALOFLOW_CUDA(
      cudaGraphExecKernelNodeSetParams(executable_.get(), nodes_[node], &kernel_params_[node]),
      patch_contexts_[node]);
}

void GraphExecutor::time_host_work(NodeTimer* timer) {
  if (handoff_ == Handoff::proxy) {
    proxy_timer_ = timer;  // only between frames: no job of an earlier launch is pending
    return;
  }
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

std::unique_ptr<Executor> make_graph_executor(FramePlan& plan, HostNodeFailures& failures,
                                              const FrameOptions& options) {
  return std::make_unique<GraphExecutor>(plan, failures, options);
}

}  // namespace haloflow
