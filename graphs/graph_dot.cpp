#include "haloflow/graph_dot.hpp"

#include <fmt/format.h>

#include "graph_executor.hpp"
#include "haloflow/error.hpp"

namespace haloflow {

LoweredGraph lowered_graph(Frame& frame) {
  auto* graph = dynamic_cast<GraphExecutor*>(&detail::executor_of(frame));
  if (graph == nullptr) {
    throw Error(fmt::format("frame '{}' runs on the {} executor, which builds no CUDA graph",
                            frame.plan().name(), to_string(frame.executor())));
  }
  LoweredGraph lowered{.graph = graph->graph(), .nodes = {}, .handoff = graph->handoff()};
  for (std::size_t i = 0; i < frame.plan().nodes().size(); ++i) {
    lowered.nodes.push_back(graph->graph_node(i));
  }
  return lowered;
}

void write_cuda_graph_dot(Frame& frame, const std::string& path) {
  auto* graph = dynamic_cast<GraphExecutor*>(&detail::executor_of(frame));
  if (graph == nullptr) {
    throw Error(fmt::format("{}: frame '{}' runs on the {} executor, which builds no CUDA graph",
                            path, frame.plan().name(), to_string(frame.executor())));
  }
  HALOFLOW_CUDA(cudaGraphDebugDotPrint(graph->graph(), path.c_str(), cudaGraphDebugDotFlagsVerbose),
                fmt::format("{} (graph of frame '{}')", path, frame.plan().name()));
}

}  // namespace haloflow
