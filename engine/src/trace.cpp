#include "haloflow/trace.hpp"

#include <algorithm>
#include <numeric>

namespace haloflow {

std::vector<TraceNode> trace_nodes(const FramePlan& plan) {
  const auto dependencies = plan.dependencies();
  std::vector<TraceNode> nodes;
  nodes.reserve(plan.nodes().size());
  for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
    const Node& node = plan.node(i);
    nodes.push_back(TraceNode{.name = node.name(),
                              .lane = node.lane(),
                              .kind = node.kind(),
                              .after = dependencies[i],
                              .plan = plan.name()});
  }
  return nodes;
}

void shift(Trace& trace, double us) {
  for (FrameSpan& frame : trace.frames) {
    frame.start_us += us;
    frame.end_us += us;
  }
  for (NodeSpan& span : trace.spans) {
    span.start_us += us;
    span.end_us += us;
  }
}

std::vector<int> lane_tracks(const Trace& trace) {
  std::vector<std::size_t> order(trace.spans.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return trace.spans[a].start_us < trace.spans[b].start_us;
  });
  // Greedy interval partitioning per lane: each span goes to the first track free by its start,
  // which uses the fewest tracks.
  std::vector<double> bulk_ends, communication_ends;
  std::vector<int> tracks(trace.spans.size(), 0);
  for (const std::size_t i : order) {
    const NodeSpan& span = trace.spans[i];
    const bool bulk = span.node >= trace.nodes.size() || trace.nodes[span.node].lane == Lane::bulk;
    std::vector<double>& ends = bulk ? bulk_ends : communication_ends;
    std::size_t track = 0;
    while (track < ends.size() && ends[track] > span.start_us) ++track;
    if (track == ends.size()) ends.push_back(span.end_us);
    ends[track] = std::max(ends[track], span.end_us);
    tracks[i] = static_cast<int>(track);
  }
  return tracks;
}

}  // namespace haloflow
