// The seed as a case model: its section and run keys, the one rank it runs on, the measurement
// `haloflow run` makes of it (every executor, frame by frame) and the plain stepping of its frame
// that `haloflow replay` records.

#include <fmt/format.h>

#include "haloflow/device.hpp"
#include "haloflow/version.hpp"
#include "machine_fit.hpp"
#include "model.hpp"
#include "seed_case.hpp"
#include "seed_frame.hpp"
#include "seed_measure.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

//! The measurement: one row per executor, checked against the host reference.
class SeedMeasurement final : public ModelResult {
 public:
  SeedMeasurement(SeedCase seed, std::vector<ExecutorReport> reports)
      : seed_(std::move(seed)), reports_(std::move(reports)) {}

  [[nodiscard]] std::string report(const ReportOptions& /*options*/) const override {
    return format_reports(seed_, reports_);
  }

  void add_to(nlohmann::json& results, const ReportOptions& /*options*/) const override {
    nlohmann::json comparison = reports_to_json(seed_, reports_);
    const auto device = current_device();
    comparison["device"] = device ? device->name : "none (host executor)";
    comparison["haloflow_version"] = haloflow::version;
    results["executor_comparison"] = std::move(comparison);
  }

  [[nodiscard]] const StepTimes* times() const override { return nullptr; }

  [[nodiscard]] std::string failure() const override {
    for (const ExecutorReport& report : reports_) {
      if (!(report.max_error <= 1e-12)) {
        return fmt::format(
            "executor {} produced a grid that differs from the host reference by "
            "{:.3e}",
            to_string(report.executor), report.max_error);
      }
    }
    return {};
  }

 private:
  SeedCase seed_;
  std::vector<ExecutorReport> reports_;
};

//! The frame stepped as a solver steps it (what replay records).
class SeedSteps final : public ModelResult {
 public:
  SeedSteps(ExecutorKind executor, StepTimes times) : executor_(executor), times_(times) {}

  [[nodiscard]] std::string report(const ReportOptions& /*options*/) const override {
    return fmt::format("seed: {} frames on the {} executor, median {:.1f} us per frame\n",
                       times_.steps, to_string(executor_), 1e6 * times_.median_step_s);
  }
  void add_to(nlohmann::json& /*results*/, const ReportOptions& /*options*/) const override {}
  [[nodiscard]] const StepTimes* times() const override { return &times_; }

 private:
  ExecutorKind executor_;
  StepTimes times_;
};

//! The seed's frame stepped as a solver steps it: its fluxes patched before each launch.
class SeedStepping final : public SteppingState {
 public:
  SeedStepping(const SeedCase& seed, const RunOptions& options)
      : seed_(seed),
        seed_frame_(build_seed_frame(seed, backend_of(options.executor))),
        frame_(seed_frame_.plan, options.executor, options.frame_options()) {}

  int step(int /*step*/, int /*steps*/, int /*most*/, CUstream_st* stream) override {
    patch_seed_fluxes(seed_, seed_frame_, frame_);
    frame_.launch(stream);
    return 1;
  }
  void settle() override { frame_.wait(); }
  void reset() override {}  // the fluxes only apply sin() again: nothing to set back
  std::vector<Frame*> frames() override { return {&frame_}; }
  [[nodiscard]] const FramePlan* step_plan() const override { return &frame_.plan(); }

 private:
  const SeedCase& seed_;
  SeedFrame seed_frame_;
  Frame frame_;
};

class SeedModel final : public Model {
 public:
  [[nodiscard]] std::string_view name() const override { return "seed"; }

  void read_section(JsonFields& fields, const nlohmann::json& section,
                    const std::string& case_name) override {
    seed_.name = case_name;
    read_seed_section(fields, section, seed_);
  }

  // It measures frames, every executor by default, and writes no field.
  [[nodiscard]] RunShape run_shape() const override {
    return {.steps_in_time = false,
            .own_run_keys = seed_run_keys(),
            .length_keys = {"frames", "host_frames"},
            .default_executor = "all"};
  }
  void read_run(JsonFields& fields, const nlohmann::json& run) override {
    read_seed_run(fields, run, seed_);
  }

  void check_machine(JsonFields& fields, const MachineLimits& limits) override {
    if (limits.ranks != 1) {
      fields.report("/model", fmt::format("\"seed\" runs on one rank; this run has {} "
                                          "(--ranks or mpiexec -n); expected 1",
                                          limits.ranks));
    }
    bytes_per_rank_ = static_cast<double>(seed_.cells + 2 * seed_.halo_cells) * sizeof(double);
    const double budget = limits.memory_gib * kGiB;
    if (bytes_per_rank_ > budget) {
      fields.report(
          "/seed/cells",
          fmt::format("{} needs about {} GiB (grid and halos, doubles); the memory "
                      "budget is {} GiB ({}); expected a smaller grid",
                      seed_.cells, gib(bytes_per_rank_), gib(budget), kMemoryBudgetSource));
    }
  }

  [[nodiscard]] double bytes_per_rank() const override { return bytes_per_rank_; }

  [[nodiscard]] nlohmann::json resolved_section() const override {
    return {{"cells", seed_.cells},
            {"halo_cells", seed_.halo_cells},
            {"intensity", seed_.intensity},
            {"block_size", seed_.block_size},
            {"copy_blocks", seed_.copy_blocks},
            {"host_work_us", seed_.host_work_us}};
  }

  void resolve_run(nlohmann::json& run) const override {
    run["frames"] = seed_.frames;
    run["host_frames"] = seed_.host_frames;
    run["warmup_frames"] = seed_.warmup_frames;
    run["executors"] = nlohmann::json::array();
    for (const auto kind : seed_.executors) run["executors"].push_back(to_string(kind));
  }

  [[nodiscard]] std::string sizes() const override {
    return fmt::format("{} cells, {} halo cells", seed_.cells, seed_.halo_cells);
  }
  [[nodiscard]] std::string length(int /*steps*/) const override {
    return fmt::format("{} frames", seed_.frames);
  }

  [[nodiscard]] std::vector<ExecutorKind> all_executors(bool have_gpu) const override {
    std::vector<ExecutorKind> chosen;
    for (const auto kind : seed_.executors) {
      if (have_gpu || kind == ExecutorKind::host) chosen.push_back(kind);
    }
    if (chosen.empty()) chosen = {ExecutorKind::host};
    return chosen;
  }

  [[nodiscard]] std::unique_ptr<ModelResult> run(const RunRequest& request,
                                                 MPI_Comm /*communicator*/) const override {
    const RunOptions first = request.options(0);
    const bool progress_wanted = first.wants().progress;
    const auto progress = [&](long done, long total) {
      if (progress_wanted) first.tell().progress(static_cast<int>(done), static_cast<int>(total));
    };
    return std::make_unique<SeedMeasurement>(
        seed_,
        measure_seed(seed_, request.executors, progress, first.frame_options(), first.listener));
  }

  [[nodiscard]] std::unique_ptr<ModelResult> run_steps(const RunOptions& options,
                                                       MPI_Comm communicator) const override {
    SeedStepping stepping(seed_, options);
    return std::make_unique<SeedSteps>(options.executor,
                                       run_timed_steps(options, communicator, stepping));
  }

  [[nodiscard]] Stepping replay_length(ExecutorKind executor,
                                       const Stepping& /*stepping*/) const override {
    return {executor == ExecutorKind::host ? seed_.host_frames : seed_.frames, seed_.warmup_frames};
  }

 private:
  SeedCase seed_;
  double bytes_per_rank_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_seed_model() {
  return std::make_unique<SeedModel>();
}

}  // namespace haloflow::models
