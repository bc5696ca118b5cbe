#include "overlap_output.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace haloflow::cases {
namespace {

std::string path_names(const Trace& trace, const std::vector<std::size_t>& path) {
  std::string text;
  for (const std::size_t node : path) {
    if (!text.empty()) text += " -> ";
    text += trace.nodes.at(node).name;
  }
  return text;
}

std::string gap_text(const Trace& trace, const IdleGap& gap, double frame_start) {
  std::string where;
  if (gap.after) where += fmt::format(" after {}", trace.nodes.at(*gap.after).name);
  if (gap.before) {
    where += fmt::format("{} before {}", gap.after ? "," : "", trace.nodes.at(*gap.before).name);
  }
  return fmt::format("{:.1f} us at +{:.1f} us{}", gap.duration_us(), gap.start_us - frame_start,
                     where);
}

// Whether the trace records several frames' plans: the tables then say whose each node is.
bool several_plans(const Trace& trace) {
  return std::any_of(trace.nodes.begin(), trace.nodes.end(),
                     [&](const TraceNode& node) { return node.plan != trace.nodes.front().plan; });
}

// A node with nothing to show: it never ran in the recorded frames, or ran in no time (a join).
bool idle_row(const NodeStats& stats) {
  return stats.runs == 0 || stats.max_us <= 0;
}

}  // namespace

bool host_run(const Trace& trace) {
  return trace.executor == "host";
}

std::string format_overlap(const Trace& trace, const OverlapReport& report) {
  const bool plans = several_plans(trace) && !trace.nodes.empty();
  const bool gpu = !host_run(trace);
  std::size_t width = 4;
  std::size_t plan_width = 4;
  for (const TraceNode& node : trace.nodes) {
    width = std::max(width, node.name.size());
    plan_width = std::max(plan_width, node.plan.size());
  }
  const auto plan_cell = [&](const std::string& plan) {
    return plans ? fmt::format("{:<{}} ", plan, plan_width) : std::string();
  };
  std::string text =
      fmt::format("{}{:<{}} {:<13} {:<6} {:>5} {:>10} {:>10} {:>10} {:>10}\n", plan_cell("plan"),
                  "node", width, "lane", "kind", "runs", "median us", "min us", "p90 us", "max us");
  // Rows with nothing to show are left out and named: a plan whose nodes all are, by its name.
  std::map<std::string, std::pair<int, int>> plan_rows;  // plan: left out, in all
  for (const NodeStats& stats : report.nodes) {
    auto& [idle, all] = plan_rows[trace.nodes.at(stats.node).plan];
    idle += idle_row(stats) ? 1 : 0;
    ++all;
  }
  std::vector<std::string> left_out;
  std::vector<std::string> plans_left_out;
  for (const NodeStats& stats : report.nodes) {
    const TraceNode& node = trace.nodes.at(stats.node);
    if (!idle_row(stats)) {
      text += fmt::format("{}{:<{}} {:<13} {:<6} {:>5} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n",
                          plan_cell(node.plan), node.name, width, to_string(node.lane),
                          to_string(node.kind), stats.runs, stats.median_us, stats.min_us,
                          stats.p90_us, stats.max_us);
      continue;
    }
    const auto [idle, all] = plan_rows[node.plan];
    if (plans && idle == all) {
      if (plans_left_out.empty() || plans_left_out.back() != node.plan) {
        plans_left_out.push_back(node.plan);
      }
    } else {
      left_out.push_back(plans ? fmt::format("{}: {}", node.plan, node.name) : node.name);
    }
  }
  if (!plans_left_out.empty()) {
    text += fmt::format("(not run in the recorded frames, left out: {})\n",
                        fmt::join(plans_left_out, ", "));
  }
  if (!left_out.empty()) {
    text +=
        fmt::format("({} node{} that never ran or took no time left out: {})\n", left_out.size(),
                    left_out.size() == 1 ? "" : "s", fmt::join(left_out, ", "));
  }
  // A frame's node that missed frames lost records. With several frames a recorded frame (a
  // step) runs some of them, so a node of one of them may rightly miss frames.
  for (const NodeStats& stats : report.nodes) {
    const TraceNode& node = trace.nodes.at(stats.node);
    if (!plans && stats.runs != static_cast<int>(trace.frames.size()) &&
        node.kind != NodeKind::empty) {
      text += fmt::format("warning: node '{}' was recorded {} times in {} frames\n", node.name,
                          stats.runs, trace.frames.size());
    }
  }

  // The GPU's idle time only where there is a GPU: on the host executor a kernel node runs on
  // the CPU, and "idle" would be the time between host nodes.
  text += fmt::format("\n{:>5} {:>9} {:>9} {:>9} {:>10} {:>7} {:>12} {:>11}{}\n", "frame",
                      "frame us", "interior", "comm", "concurrent", "hidden", "hidden spans",
                      "critical us", gpu ? fmt::format(" {:>8}", "idle us") : std::string());
  const auto row = [&](const std::string& label, const FrameOverlap& f) {
    text +=
        fmt::format("{:>5} {:>9.1f} {:>9.1f} {:>9.1f} {:>10.1f} {:>6.1f}% {:>11.1f}% {:>11.1f}{}\n",
                    label, f.frame_us, f.interior_us, f.communication_us, f.concurrent_us,
                    100 * f.hidden, 100 * f.hidden_span, f.critical_path_us,
                    gpu ? fmt::format(" {:>8.1f}", f.idle_us) : std::string());
  };
  for (const FrameOverlap& f : report.frames) row(std::to_string(f.frame), f);
  if (report.frames.empty()) return text;
  FrameOverlap medians;
  medians.frame_us = report.frame_us;
  medians.interior_us = report.interior_us;
  medians.communication_us = report.communication_us;
  medians.concurrent_us = report.concurrent_us;
  medians.hidden = report.hidden;
  medians.hidden_span = report.hidden_span;
  medians.critical_path_us = report.critical_path_us;
  medians.idle_us = report.idle_us;
  row("med.", medians);
  text +=
      "hidden: time both lanes had a node running / the shorter lane's span; hidden spans: the "
      "overlap of the lanes' spans / the same, as `haloflow run` computes it\n";

  const FrameOverlap& f = report.frames.at(static_cast<std::size_t>(report.median_frame));
  const double start = trace.frames.at(static_cast<std::size_t>(f.frame)).start_us;
  text += fmt::format("\nframe {} (the median frame):\n  critical path, {:.1f} us: {}\n", f.frame,
                      f.critical_path_us, path_names(trace, f.critical_path));
  if (!gpu) return text;
  text += fmt::format("  GPU idle, {} gap{} over {:g} us, {:.1f} us in all{}\n", f.gaps.size(),
                      f.gaps.size() == 1 ? "" : "s", report.min_gap_us, f.idle_us,
                      f.gaps.empty() ? "" : ":");
  for (const IdleGap& gap : f.gaps) text += fmt::format("    {}\n", gap_text(trace, gap, start));
  return text;
}

nlohmann::json overlap_to_json(const Trace& trace, const OverlapReport& report) {
  // null where the console shows nothing: a host run has no GPU to sit idle.
  const bool gpu = !host_run(trace);
  const auto on_gpu = [gpu](nlohmann::json value) { return gpu ? value : nlohmann::json(); };
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeStats& stats : report.nodes) {
    const TraceNode& node = trace.nodes.at(stats.node);
    nodes.push_back({{"name", node.name},
                     {"plan", node.plan},
                     {"lane", std::string(to_string(node.lane))},
                     {"kind", std::string(to_string(node.kind))},
                     {"runs", stats.runs},
                     {"median_us", stats.median_us},
                     {"min_us", stats.min_us},
                     {"p90_us", stats.p90_us},
                     {"max_us", stats.max_us}});
  }
  const auto name_of = [&](const std::optional<std::size_t>& node) -> nlohmann::json {
    if (!node) return nullptr;
    return trace.nodes.at(*node).name;
  };
  nlohmann::json frames = nlohmann::json::array();
  for (const FrameOverlap& f : report.frames) {
    const FrameSpan& span = trace.frames.at(static_cast<std::size_t>(f.frame));
    nlohmann::json path = nlohmann::json::array();
    for (const std::size_t node : f.critical_path) path.push_back(trace.nodes.at(node).name);
    nlohmann::json gaps = nlohmann::json::array();
    for (const IdleGap& gap : f.gaps) {
      gaps.push_back({{"start_us", gap.start_us - span.start_us},
                      {"end_us", gap.end_us - span.start_us},
                      {"us", gap.duration_us()},
                      {"after", name_of(gap.after)},
                      {"before", name_of(gap.before)}});
    }
    frames.push_back({{"frame", f.frame},
                      {"start_us", span.start_us},
                      {"end_us", span.end_us},
                      {"frame_us", f.frame_us},
                      {"work_us", f.work_us},
                      {"interior_us", f.interior_us},
                      {"communication_us", f.communication_us},
                      {"concurrent_us", f.concurrent_us},
                      {"hidden_fraction", f.hidden},
                      {"span_overlap_us", f.span_overlap_us},
                      {"hidden_fraction_spans", f.hidden_span},
                      {"critical_path", {{"nodes", std::move(path)}, {"us", f.critical_path_us}}},
                      {"gpu_idle_gaps", on_gpu(std::move(gaps))},
                      {"gpu_idle_us", on_gpu(f.idle_us)}});
  }
  return {{"plan", trace.plan},
          {"executor", trace.executor},
          {"clock", trace.clock},
          {"rank", trace.rank},
          {"frames_recorded", trace.frames.size()},
          {"min_gap_us", report.min_gap_us},
          {"summary",
           {{"median_frame", report.median_frame},
            {"frame_us", report.frame_us},
            {"interior_us", report.interior_us},
            {"communication_us", report.communication_us},
            {"concurrent_us", report.concurrent_us},
            {"hidden_fraction", report.hidden},
            {"span_overlap_us", report.span_overlap_us},
            {"hidden_fraction_spans", report.hidden_span},
            {"critical_path_us", report.critical_path_us},
            {"gpu_idle_us", on_gpu(report.idle_us)}}},
          {"nodes", std::move(nodes)},
          {"frames", std::move(frames)}};
}

}  // namespace haloflow::cases
