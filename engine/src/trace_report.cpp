#include "haloflow/trace_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "haloflow/error.hpp"
#include "haloflow/overlap.hpp"

namespace haloflow {
namespace {

struct Interval {
  double start = 0;
  double end = 0;
};

// Sorted, disjoint intervals covering the same time as `intervals`.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& each : intervals) {
    if (!out.empty() && each.start <= out.back().end) {
      out.back().end = std::max(out.back().end, each.end);
    } else {
      out.push_back(each);
    }
  }
  return out;
}

// Total length of the intersection of two sorted, disjoint interval lists.
double overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  double total = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < a.size() && j < b.size()) {
    total += std::max(0.0, std::min(a[i].end, b[j].end) - std::max(a[i].start, b[j].start));
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

bool on_gpu(NodeKind kind) {
  return kind == NodeKind::kernel || kind == NodeKind::copy || kind == NodeKind::stream;
}

// First start to last end of `spans`; empty when there are none.
std::vector<Interval> extent(const std::vector<const NodeSpan*>& spans) {
  if (spans.empty()) return {};
  Interval out{std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest()};
  for (const NodeSpan* span : spans) {
    out.start = std::min(out.start, span->start_us);
    out.end = std::max(out.end, span->end_us);
  }
  return {out};
}

double length(const std::vector<Interval>& intervals) {
  double total = 0;
  for (const Interval& each : intervals) total += each.end - each.start;
  return total;
}

// The dependency chain with the largest sum of `weight`, first node first. Kahn's order over
// the trace's dependencies; ties go to the lower node index, so the answer is reproducible.
std::vector<std::size_t> heaviest_chain(const std::vector<TraceNode>& nodes,
                                        const std::vector<double>& weight, double& total) {
  const std::size_t n = nodes.size();
  std::vector<std::vector<std::size_t>> dependents(n);
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::size_t d : nodes[i].after) {
      dependents.at(d).push_back(i);
      ++waiting[i];
    }
  }
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push_back(i);
  }
  std::vector<double> best(n, 0);  // heaviest chain ending at each node, itself included
  std::vector<std::optional<std::size_t>> previous(n);
  std::size_t visited = 0;
  while (!ready.empty()) {
    const auto lowest = std::min_element(ready.begin(), ready.end());
    const std::size_t i = *lowest;
    ready.erase(lowest);
    ++visited;
    double before = 0;
    for (const std::size_t d : nodes[i].after) {
      if (!previous[i] || best[d] > before || (best[d] == before && d < *previous[i])) {
        before = best[d];
        previous[i] = d;
      }
    }
    best[i] = before + weight[i];
    for (const std::size_t next : dependents[i]) {
      if (--waiting[next] == 0) ready.push_back(next);
    }
  }
  if (visited != n) throw Error("overlap report: the trace's node dependencies form a cycle");
  total = 0;
  std::vector<std::size_t> chain;
  if (n == 0) return chain;
  std::size_t end = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if (best[i] > best[end]) end = i;
  }
  total = best[end];
  for (std::optional<std::size_t> at = end; at; at = previous[*at]) chain.push_back(*at);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// Stretches of [from, to] where none of `busy` (sorted, disjoint) runs, longer than `minimum`,
// with the GPU node that ended just before each and the one that started just after.
std::vector<IdleGap> idle_gaps(const std::vector<Interval>& busy,
                               const std::vector<const NodeSpan*>& gpu_spans, double from,
                               double to, double minimum) {
  std::vector<IdleGap> gaps;
  double cursor = from;
  const auto add = [&](double start, double end) {
    if (end - start <= minimum) return;
    IdleGap gap{.start_us = start, .end_us = end, .after = std::nullopt, .before = std::nullopt};
    for (const NodeSpan* span : gpu_spans) {
      if (span->end_us == start) gap.after = span->node;
      if (span->start_us == end && !gap.before) gap.before = span->node;
    }
    gaps.push_back(gap);
  };
  for (const Interval& each : busy) {
    add(cursor, each.start);
    cursor = std::max(cursor, each.end);
  }
  add(cursor, to);
  return gaps;
}

FrameOverlap frame_overlap(const Trace& trace, const FrameSpan& frame,
                           const std::vector<const NodeSpan*>& spans, double min_gap_us) {
  FrameOverlap out{.frame = frame.frame, .frame_us = frame.duration_us()};
  std::vector<const NodeSpan*> bulk, communication, gpu;
  std::vector<Interval> bulk_busy, communication_busy, gpu_busy;
  std::vector<double> weight(trace.nodes.size(), 0);
  for (const NodeSpan* span : spans) {
    const TraceNode& node = trace.nodes[span->node];
    const Interval interval{span->start_us, span->end_us};
    if (node.lane == Lane::bulk) {
      bulk.push_back(span);
      bulk_busy.push_back(interval);
    } else {
      communication.push_back(span);
      communication_busy.push_back(interval);
    }
    if (on_gpu(node.kind)) {
      gpu.push_back(span);
      gpu_busy.push_back(interval);
    }
    weight[span->node] += span->duration_us();
  }
  const std::vector<Interval> work = extent(spans);
  const std::vector<Interval> interior = extent(bulk);
  const std::vector<Interval> chain = extent(communication);
  out.work_us = length(work);
  out.interior_us = length(interior);
  out.communication_us = length(chain);
  out.concurrent_us = overlap_length(merged(bulk_busy), merged(communication_busy));
  out.span_overlap_us = overlap_length(interior, chain);
  const double shorter = std::min(out.interior_us, out.communication_us);
  const auto fraction = [shorter](double part) {
    return shorter > 0 ? std::clamp(part / shorter, 0.0, 1.0) : 0.0;
  };
  out.hidden = fraction(out.concurrent_us);
  out.hidden_span = fraction(out.span_overlap_us);
  out.critical_path = heaviest_chain(trace.nodes, weight, out.critical_path_us);
  if (!work.empty()) {
    out.gaps = idle_gaps(merged(gpu_busy), gpu, work.front().start, work.front().end, min_gap_us);
  }
  for (const IdleGap& gap : out.gaps) out.idle_us += gap.duration_us();
  return out;
}

NodeStats node_stats(std::size_t node, const std::vector<double>& durations) {
  NodeStats stats{.node = node, .runs = static_cast<int>(durations.size())};
  if (durations.empty()) return stats;
  stats.median_us = median(durations);
  stats.min_us = *std::min_element(durations.begin(), durations.end());
  stats.p90_us = percentile(durations, 0.9);
  stats.max_us = *std::max_element(durations.begin(), durations.end());
  return stats;
}

}  // namespace

OverlapReport analyze(const Trace& trace, double min_gap_us) {
  std::vector<std::vector<const NodeSpan*>> by_frame(trace.frames.size());
  std::vector<std::vector<double>> durations(trace.nodes.size());
  for (const NodeSpan& span : trace.spans) {
    if (span.node >= trace.nodes.size()) {
      throw Error(fmt::format("overlap report of '{}': a span names node {}, but the plan has {}",
                              trace.plan, span.node, trace.nodes.size()));
    }
    if (span.frame < 0 || static_cast<std::size_t>(span.frame) >= trace.frames.size()) {
      throw Error(fmt::format(
          "overlap report of '{}': node '{}' has a span in frame {}, but {} frames were recorded",
          trace.plan, trace.nodes[span.node].name, span.frame, trace.frames.size()));
    }
    by_frame[static_cast<std::size_t>(span.frame)].push_back(&span);
    durations[span.node].push_back(span.duration_us());
  }

  OverlapReport report;
  report.min_gap_us = min_gap_us;
  for (std::size_t i = 0; i < trace.nodes.size(); ++i) {
    report.nodes.push_back(node_stats(i, durations[i]));
  }
  for (std::size_t f = 0; f < trace.frames.size(); ++f) {
    report.frames.push_back(frame_overlap(trace, trace.frames[f], by_frame[f], min_gap_us));
  }
  if (report.frames.empty()) return report;

  std::vector<int> order(report.frames.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return report.frames[static_cast<std::size_t>(a)].frame_us <
           report.frames[static_cast<std::size_t>(b)].frame_us;
  });
  report.median_frame = order[(order.size() - 1) / 2];
  const auto median_of = [&](double FrameOverlap::*field) {
    std::vector<double> values;
    for (const FrameOverlap& frame : report.frames) values.push_back(frame.*field);
    return median(std::move(values));
  };
  report.frame_us = median_of(&FrameOverlap::frame_us);
  report.interior_us = median_of(&FrameOverlap::interior_us);
  report.communication_us = median_of(&FrameOverlap::communication_us);
  report.concurrent_us = median_of(&FrameOverlap::concurrent_us);
  report.hidden = median_of(&FrameOverlap::hidden);
  report.span_overlap_us = median_of(&FrameOverlap::span_overlap_us);
  report.hidden_span = median_of(&FrameOverlap::hidden_span);
  report.critical_path_us = median_of(&FrameOverlap::critical_path_us);
  report.idle_us = median_of(&FrameOverlap::idle_us);
  return report;
}

}  // namespace haloflow
