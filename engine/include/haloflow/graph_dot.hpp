#pragma once
//! \file
//! \brief The CUDA graph a frame was lowered to, as CUDA itself describes it.

#include <string>

#include "haloflow/frame.hpp"

namespace haloflow {

//! \brief Writes cudaGraphDebugDotPrint's Graphviz text (every debug detail: kernel parameters,
//! copy extents, node priorities) of `frame`'s lowered graph to `path`, replacing any file there.
//! Complements FramePlan::to_dot: it shows what CUDA was given, under CUDA's own names.
//! \throws Error when the frame does not run on the graph executor, or the call fails.
void write_cuda_graph_dot(Frame& frame, const std::string& path);

}  // namespace haloflow
