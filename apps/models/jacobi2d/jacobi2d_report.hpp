#pragma once
// A jacobi2d run's typed result and its views: the report rank 0 prints (its header and norm
// lines also as the run goes), the benchmark line's figures, results.json's entries.

#include <optional>
#include <string>

#include "jacobi2d.hpp"
#include "model.hpp"
#include "step_report.hpp"

namespace haloflow::models {

//! The case's jacobi2d section, read and checked: the solver's configuration and what the report
//! shows of it.
struct JacobiSettings {
  JacobiConfig config;  //!< nx, ny, split, norm_every, rows_per_thread (run: unset)
  std::string precision = "float";
  int print_every = 100;  //!< which computed norms the report lists
};

//! The report's first line: the grid, how it runs, the norm's interval.
[[nodiscard]] std::string jacobi_header(const JacobiSettings& settings, const StepSummary& run);

//! The report's line of a norm: of steps that are multiples of print_every and of the last
//! (`steps` - 1); nothing for the others.
[[nodiscard]] std::optional<std::string> jacobi_norm_line(const JacobiSettings& settings, int steps,
                                                          const NormSample& norm);

//! What a jacobi2d run returned, with how it ran.
template <class T>
class JacobiRun final : public ModelResult {
 public:
  JacobiRun(JacobiSettings settings, StepSummary summary, JacobiResult<T> result)
      : settings_(std::move(settings)), summary_(std::move(summary)), result_(std::move(result)) {}

  [[nodiscard]] std::string report(const ReportOptions& options) const override;
  [[nodiscard]] std::string closing(const ReportOptions& options) const override;
  void add_to(nlohmann::json& results, const ReportOptions& options) const override;
  [[nodiscard]] const StepTimes* times() const override { return &result_.times; }
  [[nodiscard]] GlobalField field() const override { return std::span<const T>(result_.field); }

  //! The benchmark line's figures: the common ones, then final_norm.
  [[nodiscard]] Figures figures() const;

 private:
  JacobiSettings settings_;
  StepSummary summary_;
  JacobiResult<T> result_;
};

}  // namespace haloflow::models
