#pragma once
// What the report of every model that steps in time shows besides its own lines: how it ran, the
// time per step, the overlap measurement, the bandwidth, and the benchmark line's common figures;
// and the results.json entries they give.

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>

#include "bandwidth_floors.hpp"
#include "figures.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/frame.hpp"
#include "model.hpp"
#include "run_options.hpp"

namespace haloflow::models {

//! A stepping model's run as its report describes it: how it ran, and what it measured.
struct StepSummary : StepMeasures {
  std::string model;      //!< "jacobi2d"
  std::string precision;  //!< "float" or "double"
  ExecutorKind executor = ExecutorKind::host;
  int ranks = 1;
  int steps = 0;           //!< the steps asked for
  int warmup = 0;          //!< the warm-up steps run first
  int dimensions = 2;      //!< axes of the process grid shown
  std::string what_moves;  //!< the bytes a step moves in words ("read a + write a_new")
};

//! What a run's summary holds before it starts: `model`, `precision`, the executor, steps and
//! warm-up of `options`, the ranks of `communicator`, the axes of its process grid and what a
//! step moves, in words.
[[nodiscard]] StepSummary summary_before_run(std::string model, std::string precision,
                                             const RunOptions& options, MPI_Comm communicator,
                                             int dimensions, std::string what_moves);

//! Fills in what the run measured: a model result's process grid, step times and bytes per step.
inline void take_measurements(StepSummary& summary, const StepMeasures& measured) {
  static_cast<StepMeasures&>(summary) = measured;
}

//! "float, 2 ranks as 1 x 2, host executor, 100 steps (0 warm-up)".
[[nodiscard]] std::string describe_run(const StepSummary& run);

//! The time per step, the overlap (when measured), the bandwidth against the copy kernel's rates
//! (no percentage above them, bandwidth_words) and the floors of each mode, a line each.
[[nodiscard]] std::string times_lines(const StepSummary& run, const ReportOptions& options);

//! The benchmark line's common figures: model, precision, executor, ranks, steps, the times,
//! bytes_per_step, steps_per_pass, bandwidth_Bps, and the overlap's when measured; a model appends
//! its own (benchmark_line adds the floors).
[[nodiscard]] Figures step_figures(const StepSummary& run);

//! The run header's line on how this rank's halos travel: "halos of this rank: peer to rank 1
//! (+y, -y): same node, same GPU (CUDA IPC)", the directions of one neighbour that travel alike
//! said together.
[[nodiscard]] std::string halo_routes_line(const std::vector<HaloRoute>& routes);

//! results.json's entries of a stepping run: "model" (its `figures` and floor_figures as "result"),
//! "run" (run_json), the per-step percentiles ("step_time_us", microseconds) and, when measured,
//! "overlap".
void add_step_results(nlohmann::json& results, const StepSummary& run, const Figures& figures,
                      const ReportOptions& options);

//! results.json's "run": how it ran (precision, executor, ranks, process grid, steps, warm-up)
//! and what it moved (bytes per step, steps a pass, a rank's working set, achieved bandwidth, the
//! copy kernel's rates, the floors of each mode, and the fraction of the DRAM copy rate when there
//! is one to compare with and the run is below it: null on the host executor, without a
//! measurement or above it, when above_copy_bandwidth says which).
[[nodiscard]] nlohmann::json run_json(const StepSummary& run, const ReportOptions& options);

//! What a step moves, as the floors take it.
[[nodiscard]] StepTraffic step_traffic(const StepSummary& run);

//! The copy kernel's rates a run is compared with: `options`' for a GPU executor with a DRAM rate
//! measured, none (all 0) for the host executor or when none was measured.
[[nodiscard]] CopyRates comparable_rates(const StepSummary& run, const ReportOptions& options);

//! The benchmark line's figures of the comparison, when there is a DRAM rate: copy_dram_Bps,
//! floor_one_step_dram_s, floor_k_step_dram_s (k > 1), copy_l2_Bps and floor_l2_s (L2-resident),
//! floor_s (the run's own mode), and dram_fraction (at most 1) or above_dram_copy (l2_resident
//! or not_l2_resident).
[[nodiscard]] Figures floor_figures(const StepSummary& run, const ReportOptions& options);

//! "result: ..." with `figures` (a model's) and then floor_figures.
[[nodiscard]] std::string benchmark_line(const StepSummary& run, Figures figures,
                                         const ReportOptions& options);

//! A stepping model's lines said as the run goes, through the command's listener: when that wants
//! lines, started() says header(process grid) and sample() says line(sample) whenever that gives
//! a line (and samples are asked for only then, and only when `samples`); everything else passes
//! through to it.
class SpokenRun final : public RunListener {
 public:
  using Header = std::function<std::string(const Coord3& process_grid)>;
  using Line = std::function<std::optional<std::string>(const StepSample& sample)>;
  SpokenRun(RunListener& command, Header header, Line line, bool samples = true);

  [[nodiscard]] Wants wants() const override;
  void frames_built(const std::vector<Frame*>& frames) override;
  void frame_begins(int frame) override;
  void frame_ends(int frame) override;
  void started(const Coord3& process_grid) override;
  void field(const OwnedField& field) override;
  void sample(const StepSample& sample) override;
  void say(const std::string& line) override;
  void checkpoint(int done, const std::vector<unsigned char>& state) override;
  void progress(int done, int steps) override;

 private:
  RunListener& command_;
  Header header_;
  Line line_;
  bool samples_;
};

//! The per-step percentiles in microseconds, as results.json holds them.
[[nodiscard]] nlohmann::json step_percentiles_us(const StepTimes& times);
//! The overlap measurement in microseconds, as results.json holds it.
[[nodiscard]] nlohmann::json overlap_us(const OverlapTimes& overlap);

//! What a stepping model's run returned, with how it ran: the model's settings, its StepSummary
//! and its typed result. Every stepping model shows it alike (its header and per-step lines, its
//! own closing lines, the times, the benchmark line; results.json's common entries, then its
//! section); a model says only its own parts.
template <class Settings, class Result>
class SteppedRun : public ModelResult {
 public:
  SteppedRun(Settings settings, StepSummary summary, Result result)
      : settings_(std::move(settings)), summary_(std::move(summary)), result_(std::move(result)) {}

  [[nodiscard]] std::string report(const ReportOptions& options) const final {
    return opening() + closing(options);
  }
  [[nodiscard]] std::string closing(const ReportOptions& options) const final {
    return own_closing() + times_lines(summary_, options) +
           benchmark_line(summary_, figures(), options) + "\n";
  }
  void add_to(nlohmann::json& results, const ReportOptions& options) const final {
    add_step_results(results, summary_, figures(), options);
    add_own(results);
  }
  [[nodiscard]] const StepTimes* times() const final { return &result_.times; }
  [[nodiscard]] GlobalField field() const final {
    return std::span<const typename decltype(Result::field)::value_type>(result_.field);
  }
  //! The benchmark line's figures: the common ones (step_figures), then the model's.
  [[nodiscard]] virtual Figures figures() const = 0;

 protected:
  //! The report's header and the lines it says as the run goes.
  [[nodiscard]] virtual std::string opening() const = 0;
  //! The model's lines before the times (its errors, its clock); none by default.
  [[nodiscard]] virtual std::string own_closing() const { return {}; }
  //! The model's own section of results.json.
  virtual void add_own(nlohmann::json& results) const = 0;

  Settings settings_;
  StepSummary summary_;
  Result result_;
};

}  // namespace haloflow::models
