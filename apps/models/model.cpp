// What every model shares unless it says otherwise: which executors `--executor all` compares,
// and how: each in turn, the first run with the outputs, the others timed for the comparison.

#include "model.hpp"

#include <fmt/format.h>

#include <chrono>

#include "step_report.hpp"

namespace haloflow::models {
namespace {

struct ComparedRun {
  ExecutorKind executor = ExecutorKind::host;
  double wall_s = 0;
  std::unique_ptr<ModelResult> result;
};

//! The first run's result, with the others' times beside it.
class ComparedResult final : public ModelResult {
 public:
  explicit ComparedResult(std::vector<ComparedRun> runs) : runs_(std::move(runs)) {}

  [[nodiscard]] std::string report(const ReportOptions& options) const override {
    return runs_.front().result->report(options) + comparison();
  }
  [[nodiscard]] std::string closing(const ReportOptions& options) const override {
    return runs_.front().result->closing(options) + comparison();
  }

  //! The table of the executors compared (none for one).
  [[nodiscard]] std::string comparison() const {
    if (runs_.size() < 2) return {};
    std::string text = fmt::format("\n{:<9} {:>11} {:>9} {:>9} {:>9}\n", "executor", "median us",
                                   "p90 us", "p99 us", "hidden");
    for (const ComparedRun& run : runs_) {
      const StepTimes* t = run.result->times();
      if (t == nullptr) continue;
      text += fmt::format("{:<9} {:>11.1f} {:>9.1f} {:>9.1f} {:>9}\n", to_string(run.executor),
                          1e6 * t->median_step_s, 1e6 * t->p90_step_s, 1e6 * t->p99_step_s,
                          t->overlap.measured ? fmt::format("{:.1f} %", 100 * t->overlap.hidden)
                                              : std::string("n/a"));
    }
    return text;
  }

  void add_to(nlohmann::json& results, const ReportOptions& options) const override {
    runs_.front().result->add_to(results, options);
    results["model"]["wall_s"] = runs_.front().wall_s;
    if (runs_.size() < 2) return;
    nlohmann::json rows = nlohmann::json::array();
    int steps = 0;
    for (const ComparedRun& run : runs_) {
      const StepTimes* t = run.result->times();
      if (t == nullptr) continue;
      nlohmann::json row = {{"executor", to_string(run.executor)},
                            {"step_time_us", step_percentiles_us(*t)},
                            {"total_s", t->total_s}};
      if (t->overlap.measured) row["overlap"] = overlap_us(t->overlap);
      rows.push_back(std::move(row));
      steps = t->steps;
    }
    results["executor_comparison"] = {{"runs", std::move(rows)}, {"steps", steps}};
  }

  [[nodiscard]] const StepTimes* times() const override { return runs_.front().result->times(); }
  [[nodiscard]] GlobalField field() const override { return runs_.front().result->field(); }
  [[nodiscard]] std::string failure() const override { return runs_.front().result->failure(); }

 private:
  std::vector<ComparedRun> runs_;
};

}  // namespace

std::vector<ExecutorKind> Model::all_executors(bool have_gpu) const {
  if (!have_gpu) return {ExecutorKind::host};
  return {ExecutorKind::graph, ExecutorKind::streams, ExecutorKind::serial};
}

std::unique_ptr<ModelResult> Model::run(const RunRequest& request, MPI_Comm communicator) const {
  std::vector<ComparedRun> runs;
  for (std::size_t i = 0; i < request.executors.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto result = run_steps(request.options(i), communicator);
    runs.push_back({request.executors[i],
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                    std::move(result)});
  }
  return std::make_unique<ComparedResult>(std::move(runs));
}

std::string Model::length(int steps) const {
  return fmt::format("{} steps", steps);
}

Stepping Model::replay_length(ExecutorKind executor, const Stepping& stepping) const {
  return {stepping.steps, stepping.warmup >= 0 ? stepping.warmup : default_warmup(executor)};
}

}  // namespace haloflow::models
