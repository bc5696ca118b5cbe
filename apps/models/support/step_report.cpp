#include "step_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "haloflow/mpi_session.hpp"

namespace haloflow::models {

StepSummary summary_before_run(std::string model, std::string precision, const RunOptions& options,
                               MPI_Comm communicator, int dimensions, std::string what_moves) {
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), model);
  StepSummary summary;
  summary.model = std::move(model);
  summary.precision = std::move(precision);
  summary.executor = options.executor;
  summary.ranks = ranks;
  summary.steps = options.steps;
  summary.warmup = options.warmup;
  summary.dimensions = dimensions;
  summary.what_moves = std::move(what_moves);
  return summary;
}

std::string halo_routes_line(const std::vector<HaloRoute>& routes) {
  struct Group {
    const HaloRoute* first = nullptr;
    std::vector<std::string> directions;
  };
  std::vector<Group> groups;
  for (const HaloRoute& route : routes) {
    const auto same = std::ranges::find_if(groups, [&](const Group& group) {
      return group.first->peer == route.peer && group.first->transport == route.transport &&
             group.first->reason == route.reason;
    });
    if (same == groups.end()) {
      groups.push_back({&route, {route.direction}});
    } else {
      same->directions.push_back(route.direction);
    }
  }
  std::vector<std::string> parts;
  for (const Group& group : groups) {
    parts.push_back(fmt::format("{} to rank {} ({}): {}", to_string(group.first->transport),
                                group.first->peer, fmt::join(group.directions, ", "),
                                group.first->reason));
  }
  return fmt::format("halos of this rank: {}\n", fmt::join(parts, "; "));
}

std::string describe_run(const StepSummary& run) {
  std::string shape = fmt::format("{}", run.process_grid[0]);
  for (int axis = 1; axis < run.dimensions; ++axis) {
    shape += fmt::format(" x {}", run.process_grid[static_cast<std::size_t>(axis)]);
  }
  return fmt::format("{}, {} rank{} as {}, {} executor, {} steps ({} warm-up)", run.precision,
                     run.ranks, run.ranks == 1 ? "" : "s", shape, to_string(run.executor),
                     run.steps, run.warmup);
}

std::string times_lines(const StepSummary& run, const ReportOptions& options) {
  const StepTimes& t = run.times;
  std::string text = fmt::format(
      "time per step: median {:.1f} us (p10 {:.1f}, p90 {:.1f}, p99 {:.1f}, max {:.1f}); {} steps "
      "in {:.4f} s (slowest rank)\n",
      1e6 * t.median_step_s, 1e6 * t.p10_step_s, 1e6 * t.p90_step_s, 1e6 * t.p99_step_s,
      1e6 * t.max_step_s, t.steps, t.total_s);
  if (!t.launches.empty()) text += t.launches + "\n";
  if (t.overlap.measured) {
    const OverlapTimes& o = t.overlap;
    text += fmt::format(
        "overlap: step frame {:.1f} us, interior alone {:.1f} us, communication alone {:.1f} us: "
        "{:.1f} % of the shorter hidden (medians, slowest rank)\n",
        1e6 * o.frame_s, 1e6 * o.interior_s, 1e6 * o.communication_s, 100 * o.hidden);
  }
  const double bandwidth = run.bytes_per_step / t.median_step_s;
  const std::string passes =
      run.steps_per_pass > 1 ? fmt::format(", one pass per {} steps", run.steps_per_pass) : "";
  text +=
      fmt::format("bytes per step: {:.4g} GB ({}{}); achieved {:.3f} TB/s, {:.3f} TB/s per rank",
                  1e-9 * run.bytes_per_step, run.what_moves, passes, 1e-12 * bandwidth,
                  1e-12 * bandwidth / run.ranks);
  const CopyRates rates = comparable_rates(run, options);
  if (rates.dram_Bps > 0) {
    text += bandwidth_words(bandwidth / run.ranks, step_traffic(run), rates) + "\n";
    text += floors_line(step_floors(step_traffic(run), rates), t.median_step_s);
  } else {
    text += run.executor == ExecutorKind::host
                ? " (the host executor: no device copy bandwidth to compare with)\n"
                : " (no copy bandwidth measured to compare with)\n";
  }
  return text;
}

StepTraffic step_traffic(const StepSummary& run) {
  return {.bytes_per_step = run.bytes_per_step,
          .steps_per_pass = run.steps_per_pass,
          .working_set = run.working_set,
          .ranks = run.ranks};
}

CopyRates comparable_rates(const StepSummary& run, const ReportOptions& options) {
  if (run.executor == ExecutorKind::host || options.copy_bandwidth <= 0) return {};
  return {.dram_Bps = options.copy_bandwidth,
          .l2_Bps = std::max(options.l2_copy_bandwidth, 0.0),
          .l2_bytes = std::max(options.l2_bytes, 0.0)};
}

Figures floor_figures(const StepSummary& run, const ReportOptions& options) {
  Figures figures;
  const CopyRates rates = comparable_rates(run, options);
  if (rates.dram_Bps <= 0) return figures;
  const StepFloors floors = step_floors(step_traffic(run), rates);
  figures.add("copy_dram_Bps", rates.dram_Bps, "{:.6e}")
      .add("floor_one_step_dram_s", floors.one_step_dram_s, "{:.9f}");
  if (floors.k_step_dram_s > 0) figures.add("floor_k_step_dram_s", floors.k_step_dram_s, "{:.9f}");
  if (floors.l2_s > 0) {
    figures.add("copy_l2_Bps", rates.l2_Bps, "{:.6e}").add("floor_l2_s", floors.l2_s, "{:.9f}");
  }
  figures.add("floor_s", floors.own(), "{:.9f}");
  const double per_rank = run.bytes_per_step / run.times.median_step_s / run.ranks;
  if (const auto fraction = dram_fraction(per_rank, rates)) {
    figures.add("dram_fraction", *fraction, "{:.4f}");
  } else {
    figures.add(
        "above_dram_copy",
        std::string(fits_in_l2(step_traffic(run), rates) ? "l2_resident" : "not_l2_resident"));
  }
  return figures;
}

std::string benchmark_line(const StepSummary& run, Figures figures, const ReportOptions& options) {
  return figures.add(floor_figures(run, options)).line();
}

nlohmann::json run_json(const StepSummary& run, const ReportOptions& options) {
  const double bandwidth = run.bytes_per_step / run.times.median_step_s;
  const CopyRates rates = comparable_rates(run, options);
  const std::optional<double> fraction = dram_fraction(bandwidth / run.ranks, rates);
  const StepFloors floors = step_floors(step_traffic(run), rates);
  const auto number_or_null = [](double value) {
    return value > 0 ? nlohmann::json(value) : nlohmann::json();
  };
  nlohmann::json grid = nlohmann::json::array();
  for (int axis = 0; axis < run.dimensions; ++axis) {
    grid.push_back(run.process_grid[static_cast<std::size_t>(axis)]);
  }
  return {{"description", describe_run(run)},
          {"precision", run.precision},
          {"executor", to_string(run.executor)},
          {"ranks", run.ranks},
          {"process_grid", std::move(grid)},
          {"steps", run.steps},
          {"warmup", run.warmup},
          {"bytes_per_step", run.bytes_per_step},
          {"steps_per_pass", run.steps_per_pass},
          {"working_set_per_rank_bytes", rank_working_set(step_traffic(run))},
          {"what_moves", run.what_moves},
          {"achieved_Bps", bandwidth},
          {"achieved_per_rank_Bps", bandwidth / run.ranks},
          {"copy_bandwidth_Bps", number_or_null(rates.dram_Bps)},
          {"l2_copy_bandwidth_Bps", number_or_null(rates.l2_Bps)},
          {"l2_bytes", number_or_null(rates.l2_bytes)},
          // No fraction above what was measured: null, and above_copy_bandwidth says so.
          {"fraction_of_copy_bandwidth", fraction ? nlohmann::json(*fraction) : nlohmann::json()},
          {"above_copy_bandwidth", rates.dram_Bps > 0 && !fraction},
          {"floors_s",
           {{"one_step_dram", number_or_null(floors.one_step_dram_s)},
            {"k_step_dram", number_or_null(floors.k_step_dram_s)},
            {"l2_resident", number_or_null(floors.l2_s)}}}};
}

SpokenRun::SpokenRun(RunListener& command, Header header, Line line, bool samples)
    : command_(command), header_(std::move(header)), line_(std::move(line)), samples_(samples) {}

RunListener::Wants SpokenRun::wants() const {
  Wants wants = command_.wants();
  wants.samples = wants.lines && samples_;
  return wants;
}

void SpokenRun::frames_built(const std::vector<Frame*>& frames) {
  command_.frames_built(frames);
}

void SpokenRun::frame_begins(int frame) {
  command_.frame_begins(frame);
}

void SpokenRun::frame_ends(int frame) {
  command_.frame_ends(frame);
}

void SpokenRun::started(const Coord3& process_grid) {
  command_.started(process_grid);
  if (command_.wants().lines) command_.say(header_(process_grid));
}

void SpokenRun::field(const OwnedField& field) {
  command_.field(field);
}

void SpokenRun::sample(const StepSample& sample) {
  command_.sample(sample);
  if (const auto text = line_(sample)) command_.say(*text);
}

void SpokenRun::say(const std::string& line) {
  command_.say(line);
}

void SpokenRun::checkpoint(int done, const std::vector<unsigned char>& state) {
  command_.checkpoint(done, state);
}

void SpokenRun::progress(int done, int steps) {
  command_.progress(done, steps);
}

Figures step_figures(const StepSummary& run) {
  const StepTimes& t = run.times;
  Figures figures;
  figures.add("model", run.model)
      .add("precision", run.precision)
      .add("executor", std::string(to_string(run.executor)))
      .add("ranks", static_cast<long long>(run.ranks))
      .add("steps", static_cast<long long>(t.steps))
      .add("total_s", t.total_s, "{:.6f}")
      .add("median_step_s", t.median_step_s, "{:.9f}")
      .add("min_step_s", t.min_step_s, "{:.9f}")
      .add("p10_step_s", t.p10_step_s, "{:.9f}")
      .add("p90_step_s", t.p90_step_s, "{:.9f}")
      .add("p99_step_s", t.p99_step_s, "{:.9f}")
      .add("max_step_s", t.max_step_s, "{:.9f}")
      .add("bytes_per_step", run.bytes_per_step, "{:.0f}")
      .add("steps_per_pass", static_cast<long long>(run.steps_per_pass))
      .add("bandwidth_Bps", run.bytes_per_step / t.median_step_s, "{:.6e}");
  if (t.overlap.measured) {
    figures.add("overlap_frame_s", t.overlap.frame_s, "{:.9f}")
        .add("overlap_interior_s", t.overlap.interior_s, "{:.9f}")
        .add("overlap_communication_s", t.overlap.communication_s, "{:.9f}")
        .add("hidden", t.overlap.hidden, "{:.4f}");
  }
  return figures;
}

nlohmann::json step_percentiles_us(const StepTimes& times) {
  return {{"steps", times.steps},          {"min", 1e6 * times.min_step_s},
          {"p10", 1e6 * times.p10_step_s}, {"median", 1e6 * times.median_step_s},
          {"p90", 1e6 * times.p90_step_s}, {"p99", 1e6 * times.p99_step_s},
          {"max", 1e6 * times.max_step_s}};
}

nlohmann::json overlap_us(const OverlapTimes& overlap) {
  return {{"frame_us", 1e6 * overlap.frame_s},
          {"interior_alone_us", 1e6 * overlap.interior_s},
          {"communication_alone_us", 1e6 * overlap.communication_s},
          {"hidden", overlap.hidden}};
}

void add_step_results(nlohmann::json& results, const StepSummary& run, const Figures& figures,
                      const ReportOptions& options) {
  Figures all = figures;
  all.add(floor_figures(run, options));
  results["model"] = {{"exit_status", 0}, {"result", all.json()}};
  results["run"] = run_json(run, options);
  results["step_time_us"] = step_percentiles_us(run.times);
  if (run.times.overlap.measured) results["overlap"] = overlap_us(run.times.overlap);
}

}  // namespace haloflow::models
