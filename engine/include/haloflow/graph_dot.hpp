#pragma once
//! \file
//! \brief The CUDA graph a frame was lowered to, as CUDA itself describes it.

#include <string>
#include <vector>

#include "haloflow/frame.hpp"

struct CUgraph_st;      // cudaGraph_t is CUgraph_st*
struct CUgraphNode_st;  // cudaGraphNode_t is CUgraphNode_st*

namespace haloflow {

//! \brief A frame's lowered CUDA graph, to read back with CUDA's own graph calls (types, edges,
//! kernel node attributes such as priorities): what a test or a profiler checks the lowering by.
struct LoweredGraph {
  CUgraph_st* graph = nullptr;  //!< the cudaGraph_t, owned by the frame; valid while it lives
  //! Per plan node, in plan order, its node in `graph` (a cudaGraphNode_t): for a host node
  //! under the proxy handoff its handoff kernel, for a stream node its child-graph node.
  std::vector<CUgraphNode_st*> nodes;
  Handoff handoff = Handoff::proxy;  //!< how its host nodes were lowered (never automatic)
};

//! \brief The lowered graph of `frame`. \throws Error when it does not run on the graph executor.
[[nodiscard]] LoweredGraph lowered_graph(Frame& frame);

//! \brief Writes cudaGraphDebugDotPrint's Graphviz text (every debug detail: kernel parameters,
//! copy extents, node priorities) of `frame`'s lowered graph to `path`, replacing any file there.
//! Complements FramePlan::to_dot: it shows what CUDA was given, under CUDA's own names.
//! \throws Error when the frame does not run on the graph executor, or the call fails.
void write_cuda_graph_dot(Frame& frame, const std::string& path);

}  // namespace haloflow
