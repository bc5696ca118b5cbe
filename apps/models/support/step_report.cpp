#include "step_report.hpp"

#include <fmt/format.h>

#include <algorithm>
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
  if (t.overlap.measured) {
    const OverlapTimes& o = t.overlap;
    text += fmt::format(
        "overlap: step frame {:.1f} us, interior alone {:.1f} us, communication alone {:.1f} us: "
        "{:.1f} % of the shorter hidden (medians, slowest rank)\n",
        1e6 * o.frame_s, 1e6 * o.interior_s, 1e6 * o.communication_s, 100 * o.hidden);
  }
  const double bandwidth = run.bytes_per_step / t.median_step_s;
  text += fmt::format("bytes per step: {:.4g} GB ({}); achieved {:.3f} TB/s, {:.3f} TB/s per rank",
                      1e-9 * run.bytes_per_step, run.what_moves, 1e-12 * bandwidth,
                      1e-12 * bandwidth / run.ranks);
  const double copy = comparable_bandwidth(run, options);
  if (copy > 0) {
    text += fmt::format(" = {:.1f} % of the measured copy bandwidth {:.2f} TB/s\n",
                        100 * bandwidth / run.ranks / copy, 1e-12 * copy);
  } else {
    text += run.executor == ExecutorKind::host
                ? " (the host executor: no device copy bandwidth to compare with)\n"
                : " (no copy bandwidth measured to compare with)\n";
  }
  return text;
}

double comparable_bandwidth(const StepSummary& run, const ReportOptions& options) {
  return run.executor == ExecutorKind::host ? 0 : std::max(options.copy_bandwidth, 0.0);
}

nlohmann::json run_json(const StepSummary& run, const ReportOptions& options) {
  const double bandwidth = run.bytes_per_step / run.times.median_step_s;
  const double copy = comparable_bandwidth(run, options);
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
          {"what_moves", run.what_moves},
          {"achieved_Bps", bandwidth},
          {"achieved_per_rank_Bps", bandwidth / run.ranks},
          {"copy_bandwidth_Bps", copy > 0 ? nlohmann::json(copy) : nlohmann::json()},
          {"fraction_of_copy_bandwidth",
           copy > 0 ? nlohmann::json(bandwidth / run.ranks / copy) : nlohmann::json()}};
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
  results["model"] = {{"exit_status", 0}, {"result", figures.json()}};
  results["run"] = run_json(run, options);
  results["step_time_us"] = step_percentiles_us(run.times);
  if (run.times.overlap.measured) results["overlap"] = overlap_us(run.times.overlap);
}

}  // namespace haloflow::models
