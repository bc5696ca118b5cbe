#include "haloflow/graph_dot.hpp"

#include <fmt/format.h>

#include "graph_executor.hpp"
#include "haloflow/error.hpp"

namespace haloflow {

void write_cuda_graph_dot(Frame& frame, const std::string& path) {
  auto* graph = dynamic_cast<GraphExecutor*>(&frame.implementation());
  if (graph == nullptr) {
    throw Error(fmt::format("{}: frame '{}' runs on the {} executor, which builds no CUDA graph",
                            path, frame.plan().name(), to_string(frame.executor())));
  }
  HALOFLOW_CUDA(cudaGraphDebugDotPrint(graph->graph(), path.c_str(), cudaGraphDebugDotFlagsVerbose),
                fmt::format("{} (graph of frame '{}')", path, frame.plan().name()));
}

}  // namespace haloflow
