#pragma once
// A euler2d run's typed result and its views: the report rank 0 prints (its header and the clock
// also as the run goes), the benchmark line's figures, results.json's entries.

#include <optional>
#include <string>

#include "euler2d.hpp"
#include "model.hpp"
#include "step_report.hpp"

namespace haloflow::models {

//! The report's first line: the problem, the grid and its cell size, how it runs, the scheme.
[[nodiscard]] std::string euler_header(const EulerConfig& config, const StepSummary& run);

//! The line of the clock at a step (time and the step's dt); nothing for a sample without them.
[[nodiscard]] std::optional<std::string> euler_clock_line(const StepSample& sample);

//! What a euler2d run returned, with how it ran.
class EulerRun final : public ModelResult {
 public:
  EulerRun(EulerConfig config, StepSummary summary, EulerResult result)
      : config_(std::move(config)), summary_(std::move(summary)), result_(std::move(result)) {}

  [[nodiscard]] std::string report(const ReportOptions& options) const override;
  [[nodiscard]] std::string closing(const ReportOptions& options) const override;
  void add_to(nlohmann::json& results, const ReportOptions& options) const override;
  [[nodiscard]] const StepTimes* times() const override { return &result_.times; }
  [[nodiscard]] GlobalField field() const override {
    return std::span<const double>(result_.field);
  }

  //! The benchmark line's figures: the common ones, then the time reached and the errors.
  [[nodiscard]] Figures figures() const;

 private:
  EulerConfig config_;
  StepSummary summary_;
  EulerResult result_;
};

//! "minmod", "vanleer" or "none"; "hllc" or "rusanov": the names the case and the report use.
[[nodiscard]] std::string limiter_name(int limiter);
//! The limiter named "minmod", "none" or (anything else) "vanleer".
[[nodiscard]] int limiter_from_name(const std::string& name);
[[nodiscard]] std::string flux_name(int flux);

}  // namespace haloflow::models
