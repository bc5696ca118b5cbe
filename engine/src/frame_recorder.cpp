#include "haloflow/recorder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "gpu_ports.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "span_source.hpp"

namespace haloflow {

struct FrameRecorder::State {
  ExecutorKind executor = ExecutorKind::host;
  int rank = 0;
  std::unique_ptr<SpanSource> source;
  std::vector<Frame*> frames;
  bool recording = false;
  std::optional<std::uint64_t> open;  // start of the frame begun and not yet ended
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
};

FrameRecorder::FrameRecorder(ExecutorKind executor, int rank) : state_(std::make_unique<State>()) {
  state_->executor = executor;
  state_->rank = rank;
  if (executor == ExecutorKind::host) {
    state_->source = make_steady_span_source();
  } else if (executor == ExecutorKind::graph) {
    if (!gpu_available()) {
      throw Error(
          "recording the graph executor needs a CUDA device, and none was found (the "
          "host executor can be recorded without one)");
    }
    state_->source = make_cupti_span_source();
  } else {
    throw Error(fmt::format(
        "the {} executor cannot be recorded; haloflow records the graph and host executors",
        to_string(executor)));
  }
}

FrameRecorder::~FrameRecorder() = default;

void FrameRecorder::attach(Frame& frame) {
  attach(std::vector<Frame*>{&frame});
}

void FrameRecorder::attach(const std::vector<Frame*>& frames) {
  if (!state_->frames.empty()) throw Error("a frame recorder attaches to its frames once");
  if (frames.empty()) throw Error("a frame recorder needs a frame to attach to");
  for (const Frame* frame : frames) {
    if (frame->executor() != state_->executor) {
      throw Error(fmt::format(
          "recorder for the {} executor cannot record frame '{}', which runs on the {} executor",
          to_string(state_->executor), frame->plan().name(), to_string(frame->executor())));
    }
  }
  state_->source->attach(frames);
  state_->frames = frames;
}

void FrameRecorder::start() {
  if (state_->frames.empty()) throw Error("frame recorder started before attach()");
  if (state_->recording) return;
  state_->windows.clear();
  state_->source->start(state_->frames);
  state_->recording = true;
}

void FrameRecorder::frame_begins() {
  if (!state_->recording) throw Error("frame_begins() while the recorder is not recording");
  if (state_->open) throw Error("frame_begins() twice without frame_ends()");
  state_->open = state_->source->now();
}

void FrameRecorder::frame_ends() {
  const std::uint64_t end = state_->source->now();
  if (!state_->open) throw Error("frame_ends() without frame_begins()");
  state_->windows.emplace_back(*state_->open, end);
  state_->open.reset();
}

Trace FrameRecorder::stop() {
  if (!state_->recording) throw Error("frame recorder stopped while not recording");
  state_->recording = false;
  std::vector<RawSpan> raw = state_->source->stop(state_->frames);
  if (state_->open) throw Error("frame recorder stopped inside a frame (frame_ends() missing)");

  Trace trace;
  for (const Frame* frame : state_->frames) {
    // One frame's nodes after another's: their dependencies move with them.
    const std::size_t first = trace.nodes.size();
    for (TraceNode node : trace_nodes(frame->plan())) {
      for (std::size_t& dependency : node.after) dependency += first;
      trace.nodes.push_back(std::move(node));
    }
    trace.plan += (trace.plan.empty() ? "" : ", ") + frame->plan().name();
  }
  trace.executor = std::string(to_string(state_->executor));
  trace.clock = std::string(state_->source->clock());
  trace.rank = state_->rank;
  const auto& windows = state_->windows;
  if (windows.empty()) return trace;
  const std::uint64_t origin = windows.front().first;
  trace.origin_ns = static_cast<std::int64_t>(origin);
  const auto us = [origin](std::uint64_t ns) {
    // Signed: a device timestamp may precede the host's by the clocks' skew.
    return static_cast<double>(static_cast<std::int64_t>(ns - origin)) / 1000.0;
  };
  for (std::size_t f = 0; f < windows.size(); ++f) {
    trace.frames.push_back(FrameSpan{.frame = static_cast<int>(f),
                                     .start_us = us(windows[f].first),
                                     .end_us = us(windows[f].second)});
  }
  for (const RawSpan& span : raw) {
    if (span.node >= trace.nodes.size()) {
      throw Error(fmt::format("recorder of frame '{}': a span names node {}, but the plan has {}",
                              trace.plan, span.node, trace.nodes.size()));
    }
    // Frames ran one after another: a span belongs to the last frame begun by its start.
    const auto after = std::upper_bound(
        windows.begin(), windows.end(), span.start_ns,
        [](std::uint64_t start, const auto& window) { return start < window.first; });
    const auto frame_index = after == windows.begin() ? 0 : after - windows.begin() - 1;
    trace.spans.push_back(NodeSpan{.node = span.node,
                                   .frame = static_cast<int>(frame_index),
                                   .start_us = us(span.start_ns),
                                   .end_us = us(span.end_ns)});
  }
  std::stable_sort(trace.spans.begin(), trace.spans.end(),
                   [](const NodeSpan& a, const NodeSpan& b) { return a.start_us < b.start_us; });
  return trace;
}

std::uint64_t FrameRecorder::clock_ns() {
  return state_->source->now();
}

}  // namespace haloflow
