#pragma once
// The graph executor: the plan lowered node by node with cudaGraphAdd*Node, kernel priorities
// as node attributes, instantiated with cudaGraphInstantiateFlagUseNodePriority (without it the
// priorities are silently dropped and the communication chain waits for the whole interior
// kernel), uploaded once, then patched and relaunched each step. Split-phase host nodes (MPI
// exchanges) are chained in topological order, so every rank runs its exchanges in one order.
// Internal header; tests use it to read the lowered graph back.

#include <string>
#include <vector>

#include "cuda_owners.hpp"
#include "executor.hpp"

namespace haloflow {

class GraphExecutor final : public Executor {
 public:
  GraphExecutor(FramePlan& plan, HostNodeFailures& failures);

  void launch(CUstream_st* stream) override;
  void wait() override;
  void kernel_args_changed(std::size_t node) override;
  //! Points the executable graph's host nodes at TimedHostCallback::invoke (or back at
  //! HostCallback::invoke when `timer` is null) with cudaGraphExecHostNodeSetParams: the graph
  //! is neither rebuilt nor re-instantiated, so the nodes' ids stay the ones CUPTI reports.
  void time_host_work(NodeTimer* timer) override;

  [[nodiscard]] cudaGraph_t graph() const { return graph_.get(); }
  [[nodiscard]] cudaGraphExec_t executable() const { return executable_.get(); }
  //! The lowered node of plan node `index`.
  [[nodiscard]] cudaGraphNode_t graph_node(std::size_t index) const { return nodes_.at(index); }

 private:
  void add_node(std::size_t index, const std::vector<cudaGraphNode_t>& after);

  FramePlan& plan_;
  detail::StreamPriorities priorities_;
  detail::Graph graph_;
  detail::GraphExec executable_;
  detail::Stream stream_;
  std::vector<cudaGraphNode_t> nodes_;               // owned by graph_
  std::vector<cudaKernelNodeParams> kernel_params_;  // per node; used by kernel nodes only
  std::vector<HostCallback> callbacks_;              // per node; used by host nodes only
  std::vector<TimedHostCallback> timed_;             // per node; host nodes while timed
  std::vector<std::string> patch_contexts_;          // per node: error context, made once
  cudaStream_t launched_on_ = nullptr;
};

}  // namespace haloflow
