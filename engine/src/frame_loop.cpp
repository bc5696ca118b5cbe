#include "haloflow/frame_loop.hpp"

#include <fmt/format.h>

#include <utility>

#include "executor.hpp"
#include "gpu_ports.hpp"
#include "haloflow/error.hpp"

namespace haloflow {

LoopVerdict can_loop(const FramePlan& plan, Handoff handoff) {
  // Automatic is the proxy (FrameOptions::handoff): its host nodes are kernels on the GPU.
  const bool proxied = handoff != Handoff::host_node;
  for (const Node& node : plan.nodes()) {
    const std::string name =
        fmt::format("{} node '{}' of frame '{}'", to_string(node.kind()), node.name(), plan.name());
    switch (node.kind()) {
      case NodeKind::kernel:
      case NodeKind::empty:
        break;
      case NodeKind::copy:
        // Conservative: the body holds memcpy nodes, but a copy through the host would be a
        // transfer per repetition that no host work waits for; none of our frames loops with one.
        if (std::get<CopyWork>(node.work).kind() != CopyKind::device_to_device) {
          return {false, fmt::format("{} copies {}; a loop body copies device to device only", name,
                                     to_string(*std::get<CopyWork>(node.work).kind()))};
        }
        break;
      case NodeKind::host:
        if (proxied) break;
        return {false, fmt::format("{} is host work (the mpi exchange) lowered as a CUDA host "
                                   "node (exchange.handoff host-node), which a conditional body "
                                   "cannot hold; the proxy handoff can loop",
                                   name)};
      case NodeKind::stream:
        return {false, fmt::format("{} is work a library issues itself (nccl), whose captured "
                                   "graph a conditional body may not hold",
                                   name)};
    }
  }
  return {};
}

std::string device_loop_missing(ExecutorKind kind) {
  if (kind != ExecutorKind::graph) {
    return fmt::format("the {} executor launches frames one by one (no graph to loop in)",
                       to_string(kind));
  }
  return conditional_nodes_missing();
}

FrameLoop::FrameLoop(std::vector<Frame*> cycle) : cycle_(std::move(cycle)) {
  if (cycle_.empty()) throw Error("a frame loop needs at least one frame");
  const ExecutorKind kind = cycle_.front()->executor();
  for (const Frame* frame : cycle_) {
    if (frame->executor() != kind) {
      throw Error(
          fmt::format("frame loop: frame '{}' runs on the {} executor, frame '{}' on the {}",
                      cycle_.front()->plan().name(), to_string(kind), frame->plan().name(),
                      to_string(frame->executor())));
    }
  }
  fallback_ = device_loop_missing(kind);
  for (const Frame* frame : cycle_) {
    if (!fallback_.empty()) break;
    fallback_ = can_loop(frame->plan(), frame->options().handoff).reason;
  }
  if (!on_device()) return;
  try {
    lower();
  } catch (const Error& error) {
    // A driver that refuses the loop (a conditional node it cannot run) leaves the frames one
    // by one, with its words in the header, rather than no run at all.
    device_.reset();
    fallback_ = fmt::format("the loop's graph could not be built: {}", error.what());
  }
}

FrameLoop::~FrameLoop() = default;
FrameLoop::FrameLoop(FrameLoop&&) noexcept = default;
FrameLoop& FrameLoop::operator=(FrameLoop&&) noexcept = default;

void FrameLoop::lower() {
  lowered_updates_.clear();
  std::string name;
  for (const Frame* frame : cycle_) {
    lowered_updates_.push_back(frame->updates());
    name += (name.empty() ? "" : " + ") + frame->plan().name();
  }
  if (device_) device_->wait();  // its last launch may still read the old graph
  device_.reset();               // the old graph goes before the new one is built
  device_ = make_graph_loop(cycle_, "loop of " + name);
}

void FrameLoop::launch(int repetitions, CUstream_st* stream) {
  if (repetitions < 1) {
    throw Error(fmt::format("frame loop: {} repetitions; expected at least 1", repetitions));
  }
  for (Frame* frame : cycle_) frame->before_launch();
  if (!on_device()) {
    for (int r = 0; r < repetitions; ++r) {
      for (Frame* frame : cycle_) frame->launch(stream);
    }
    return;
  }
  // The graph holds the kernel parameters it was lowered with: an update since means lowering
  // again (models patch once, before their first step, so this is rare).
  for (std::size_t i = 0; i < cycle_.size(); ++i) {
    if (cycle_[i]->updates() != lowered_updates_[i]) {
      lower();
      break;
    }
  }
  device_->launch(repetitions, stream);
}

void FrameLoop::wait() {
  if (device_) device_->wait();
  for (Frame* frame : cycle_) frame->wait();
}

}  // namespace haloflow
