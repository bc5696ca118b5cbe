#pragma once
// The graph executor: the plan lowered node by node with cudaGraphAdd*Node, kernel priorities
// as node attributes, instantiated with cudaGraphInstantiateFlagUseNodePriority (without it the
// priorities are silently dropped and the communication chain waits for the whole interior
// kernel), uploaded once, then patched and relaunched each step. Split-phase host nodes (MPI
// exchanges) are chained in topological order, so every rank runs its exchanges in one order.
// Host nodes are lowered one of two ways (FrameOptions::handoff): a CUDA host node, or the proxy
// handoff (engine/src/handoff.hpp): one small kernel and haloflow's progress thread.
// Internal header; tests use it to read the lowered graph back.

#include <memory>
#include <string>
#include <vector>

#include "cuda_owners.hpp"
#include "executor.hpp"
#include "gpu_ports.hpp"
#include "haloflow/buffer.hpp"
#include "handoff_kernel.hpp"

namespace haloflow {

class GraphExecutor final : public Executor {
 public:
  GraphExecutor(FramePlan& plan, HostNodeFailures& failures, const FrameOptions& options);
  //! Waits (bounded) until the progress thread has served this frame's jobs and the GPU has
  //! acknowledged them, so no handoff slot is freed while anyone still uses it.
  ~GraphExecutor() override;
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;
  GraphExecutor(GraphExecutor&&) = delete;
  GraphExecutor& operator=(GraphExecutor&&) = delete;

  void launch(CUstream_st* stream) override;
  //! Waits for the last launch; \throws Error when a handoff kernel stopped waiting for its
  //! host node (the host work did not finish within FrameOptions::release_timeout).
  void wait() override;
  void kernel_args_changed(std::size_t node) override;
  //! Host-node lowering: points the executable graph's host nodes at TimedHostCallback::invoke
  //! (or back at HostCallback::invoke when `timer` is null) with cudaGraphExecHostNodeSetParams:
  //! the graph is neither rebuilt nor re-instantiated, so the nodes' ids stay the ones CUPTI
  //! reports. Proxy lowering: the progress thread times the host work of the next launches.
  void time_host_work(NodeTimer* timer) override;

  [[nodiscard]] cudaGraph_t graph() const { return graph_.get(); }
  [[nodiscard]] cudaGraphExec_t executable() const { return executable_.get(); }
  //! The lowered node of plan node `index` (for a proxied host node: its handoff kernel).
  [[nodiscard]] cudaGraphNode_t graph_node(std::size_t index) const { return nodes_.at(index); }
  //! How the host nodes were lowered (never Handoff::automatic).
  [[nodiscard]] Handoff handoff() const { return handoff_; }

  // A frame loop (graph_loop.cpp) repeats this frame's nodes in its own graph; its copies of the
  // handoff kernels count on this frame's execution counters and ring its slots, so the progress
  // thread serves them as this frame's launches.
  //! The handoff kernel of proxied host node `index`, as its node here was added; the pointers
  //! stay valid for the executor's life. 	hrows Error for a node that is not proxied.
  [[nodiscard]] cudaKernelNodeParams handoff_params(std::size_t index);
  //! Queues the progress thread's jobs for one more execution of the frame's handoff kernels, as
  //! a launch does; call it only after the graph that executes them was launched.
  void expect_execution();

 private:
  void add_node(std::size_t index, const std::vector<cudaGraphNode_t>& after);
  void add_handoff(std::size_t index, const std::vector<cudaGraphNode_t>& after);
  //! Captures a stream node's work once into a child graph node.
  void add_captured(std::size_t index, const StreamWork& work,
                    const std::vector<cudaGraphNode_t>& after);
  void drain() noexcept;

  FramePlan& plan_;
  detail::StreamPriorities priorities_;
  Handoff handoff_ = Handoff::proxy;
  std::uint64_t release_timeout_ns_ = 0;
  detail::Graph graph_;
  detail::GraphExec executable_;
  detail::Stream stream_;
  std::vector<cudaGraphNode_t> nodes_;               // owned by graph_
  std::vector<cudaKernelNodeParams> kernel_params_;  // per node; used by kernel nodes only
  std::vector<HostCallback> callbacks_;              // per node; used by host nodes only
  std::vector<TimedHostCallback> timed_;             // per node; host nodes while timed
  std::vector<std::string> patch_contexts_;          // per node: error context, made once
  cudaStream_t launched_on_ = nullptr;

  // The proxy handoff: host nodes in lowering order, their slots and execution counters.
  struct Proxied {
    std::size_t node = 0;
    std::size_t slot = 0;
  };
  std::vector<Proxied> proxied_;
  Buffer slots_;       // pinned, mapped: one detail::HandoffSlot per proxied node
  Buffer executions_;  // device memory: one execution counter per proxied node
  std::vector<detail::HandoffArgs> handoff_args_;  // per proxied node, for the kernel params
  std::vector<void*> handoff_arg_pointers_;
  std::uint64_t launches_ = 0;  // successful launches: the sequence number of the latest
  std::size_t host_nodes_ = 0;
  std::atomic<std::uint64_t> host_calls_{0};  // host-node lowering: callbacks the driver made
  std::uint64_t gave_up_seen_ = 0;
  NodeTimer* proxy_timer_ = nullptr;
  detail::HandoffLedger ledger_;
  std::shared_ptr<detail::ProgressThread> progress_;
};

}  // namespace haloflow
