#include "replay_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>

#include "haloflow/overlap.hpp"
#include "overlap_output.hpp"

namespace haloflow::cases {
namespace {

// The 95 % notch of a median of `samples`: 1.57 IQR / sqrt(n) (McGill, Tukey and Larsen), half
// the width a box plot draws; two medians whose notches do not overlap differ.
double notch_us(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0;
  const double iqr = percentile(samples, 0.75) - percentile(samples, 0.25);
  return 1.57 * iqr / std::sqrt(static_cast<double>(samples.size()));
}

// One row of the figures table: its name and the ranks' values.
struct Figure {
  std::string name;
  std::vector<double> values;
  bool percent = false;
};

std::string figure_row(const Figure& figure) {
  const Spread s = spread_of(figure.values);
  const auto cell = [&](double value) {
    return figure.percent ? fmt::format("{:>9.1f}%", 100 * value) : fmt::format("{:>10.1f}", value);
  };
  return fmt::format("{:<22} {} {} {}\n", figure.name, cell(s.min), cell(s.avg), cell(s.max));
}

std::string cost_summary(const std::vector<RankRecording>& ranks) {
  std::vector<int> within;
  std::vector<double> costs;
  std::vector<double> fractions;
  double noise = 0;
  for (const RankRecording& r : ranks) {
    const RecordingCost cost = recording_cost(r);
    noise = std::max(noise, cost.noise_us);
    if (cost.measured()) {
      costs.push_back(cost.us());
      fractions.push_back(cost.fraction());
    } else {
      within.push_back(r.trace.rank);
    }
  }
  if (ranks.size() == 1)
    return fmt::format("recording costs {}\n", cost_text(recording_cost(ranks.front())));
  if (costs.empty()) {
    return fmt::format(
        "recording costs within noise on every rank (traced and untraced medians differ by no "
        "more than the noise, up to {:.1f} us)\n",
        noise);
  }
  const Spread us = spread_of(costs);
  const Spread fraction = spread_of(fractions);
  std::string text = fmt::format(
      "recording costs {:.1f} to {:.1f} us per frame ({:+.1f} to {:+.1f} %) on {} of {} ranks",
      us.min, us.max, 100 * fraction.min, 100 * fraction.max, costs.size(), ranks.size());
  if (!within.empty())
    text += fmt::format("; within noise on rank{} {}", within.size() == 1 ? "" : "s",
                        fmt::join(within, ", "));
  return text + "\n";
}

}  // namespace

RecordingCost recording_cost(const std::vector<double>& untraced_before_us,
                             const std::vector<double>& traced_us,
                             const std::vector<double>& untraced_after_us) {
  std::vector<double> untraced = untraced_before_us;
  untraced.insert(untraced.end(), untraced_after_us.begin(), untraced_after_us.end());
  RecordingCost cost;
  if (untraced.empty() || traced_us.empty()) return cost;
  cost.untraced_us = median(untraced);
  cost.traced_us = median(traced_us);
  // The machine drifts (other processes, clocks, caches): the same untraced frames before and
  // after the traced ones say how much, and the notches how much the frames scatter.
  if (!untraced_before_us.empty()) cost.before_us = median(untraced_before_us);
  if (!untraced_after_us.empty()) cost.after_us = median(untraced_after_us);
  double drift = 0;
  if (!untraced_before_us.empty() && !untraced_after_us.empty()) {
    drift = std::abs(cost.before_us - cost.after_us);
  }
  cost.noise_us = std::max(drift, notch_us(untraced) + notch_us(traced_us));
  return cost;
}

RecordingCost recording_cost(const RankRecording& recording) {
  return {.untraced_us = recording.untraced_frame_us,
          .traced_us = recording.traced_frame_us,
          .noise_us = recording.frame_noise_us,
          .before_us = recording.untraced_before_us,
          .after_us = recording.untraced_after_us};
}

std::string cost_text(const RecordingCost& cost) {
  if (cost.measured()) {
    return fmt::format("{:.1f} us per frame ({:+.1f} %)", cost.us(), 100 * cost.fraction());
  }
  // The untraced frames before and after the traced ones show the drift the noise includes.
  const std::string sides = cost.before_us > 0 && cost.after_us > 0
                                ? fmt::format(": {:.1f} before the traced ones, {:.1f} after",
                                              cost.before_us, cost.after_us)
                                : std::string();
  return fmt::format(
      "within noise (traced {:.1f} us, untraced {:.1f} us per frame{}; noise {:.1f} us)",
      cost.traced_us, cost.untraced_us, sides, cost.noise_us);
}

Spread spread_of(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return {.min = *low,
          .avg = std::accumulate(values.begin(), values.end(), 0.0) /
                 static_cast<double>(values.size()),
          .max = *high};
}

std::string format_summary(const std::vector<RankRecording>& ranks,
                           const std::vector<OverlapReport>& reports, std::size_t top) {
  if (ranks.empty()) return {};
  const bool host = host_run(ranks.front().trace);
  std::vector<Figure> figures = {{"frame us", {}},          {"interior us", {}},
                                 {"communication us", {}},  {"concurrent us", {}},
                                 {"hidden", {}, true},      {"hidden (spans)", {}, true},
                                 {"critical path us", {}},  {"GPU idle us", {}},
                                 {"untraced frame us", {}}, {"traced frame us", {}}};
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const OverlapReport& report = reports.at(r);
    const double values[] = {
        report.frame_us,         report.interior_us, report.communication_us,
        report.concurrent_us,    report.hidden,      report.hidden_span,
        report.critical_path_us, report.idle_us,     ranks[r].untraced_frame_us,
        ranks[r].traced_frame_us};
    for (std::size_t f = 0; f < figures.size(); ++f) figures[f].values.push_back(values[f]);
  }
  std::string text =
      fmt::format("{:<22} {:>10} {:>10} {:>10}\n",
                  fmt::format("{} rank{}, medians", ranks.size(), ranks.size() == 1 ? "" : "s"),
                  "min", "avg", "max");
  for (const Figure& figure : figures) {
    if (host && figure.name == "GPU idle us") continue;  // a host run has no GPU
    text += figure_row(figure);
  }
  text +=
      "hidden: time both lanes had a node running / the shorter lane's span; (spans): the overlap "
      "of the lanes' spans / the same, as `haloflow run` computes it\n";
  text += cost_summary(ranks);

  // Each node's median over the ranks that ran it, keyed by plan and name (every rank has the
  // same plans); nodes that never ran or took no time (joins) are left out.
  struct NodeRow {
    std::string plan;
    std::string name;
    std::vector<double> medians;
    int runs = 0;  // over all the ranks: a node of a frame that seldom runs has few
  };
  std::map<std::pair<std::string, std::string>, NodeRow> rows;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const Trace& trace = ranks[r].trace;
    for (const NodeStats& stats : reports.at(r).nodes) {
      if (stats.runs == 0 || stats.max_us <= 0) continue;
      const TraceNode& node = trace.nodes.at(stats.node);
      NodeRow& row = rows[{node.plan, node.name}];
      if (row.medians.empty()) row = {node.plan, node.name, {}, 0};
      row.medians.push_back(stats.median_us);
      row.runs += stats.runs;
    }
  }
  std::vector<const NodeRow*> ordered;
  for (const auto& [key, row] : rows) ordered.push_back(&row);
  std::stable_sort(ordered.begin(), ordered.end(), [](const NodeRow* a, const NodeRow* b) {
    return spread_of(a->medians).avg > spread_of(b->medians).avg;
  });
  if (ordered.empty()) return text;
  const std::size_t shown = std::min(top, ordered.size());
  // A recording of one plan names its nodes alone; of several, with their plan.
  const auto label = [&](const NodeRow& row) {
    return row.plan == ranks.front().trace.plan ? row.name
                                                : fmt::format("{}: {}", row.plan, row.name);
  };
  std::size_t width = std::string_view("slowest nodes").size();
  for (std::size_t i = 0; i < shown; ++i) width = std::max(width, label(*ordered[i]).size());
  text += fmt::format("\n{:<{}} {:>6} {:>10} {:>10} {:>10}  (each rank's median us)\n",
                      "slowest nodes", width, "runs", "min", "avg", "max");
  for (std::size_t i = 0; i < shown; ++i) {
    const NodeRow& row = *ordered[i];
    const Spread s = spread_of(row.medians);
    text += fmt::format("{:<{}} {:>6} {:>10.1f} {:>10.1f} {:>10.1f}\n", label(row), width, row.runs,
                        s.min, s.avg, s.max);
  }
  if (ordered.size() > shown) {
    text += fmt::format("({} more nodes; --per-frame shows every node, frame and rank)\n",
                        ordered.size() - shown);
  }
  return text;
}

}  // namespace haloflow::cases
