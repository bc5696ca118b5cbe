#pragma once
// A heat3d run's typed result and its views: the report rank 0 prints (its header and the
// errors at the outputs also as the run goes), the benchmark line's figures, results.json's
// entries.

#include <optional>
#include <string>

#include "heat3d.hpp"
#include "model.hpp"
#include "step_report.hpp"

namespace haloflow::models {

//! The case's heat3d section, read and checked.
struct HeatSettings {
  HeatConfig config;  //!< cells, nu, mode, dt (run: unset)
  std::string precision = "double";
};

//! The report's first line: the grid, how it runs, dt, nu, the mode, the steps a frame (with
//! steps_per_frame "auto", `chosen`: what it measured and took).
[[nodiscard]] std::string heat_header(const HeatSettings& settings, const StepSummary& run,
                                      double dt, const std::optional<HeatStepsChoice>& chosen);

//! The line of the errors against the exact solution at an output step; nothing for a sample
//! without them.
[[nodiscard]] std::optional<std::string> heat_error_line(const StepSample& sample);

//! What a heat3d run returned, with how it ran.
template <class T>
class HeatRun final : public SteppedRun<HeatSettings, HeatResult<T>> {
 public:
  using SteppedRun<HeatSettings, HeatResult<T>>::SteppedRun;

  //! The benchmark line's figures: the common ones, then the errors.
  [[nodiscard]] Figures figures() const override;

 private:
  [[nodiscard]] std::string opening() const override;
  //! The amplitudes and the errors against the exact solution at the end.
  [[nodiscard]] std::string own_closing() const override;
  void add_own(nlohmann::json& results) const override;
};

}  // namespace haloflow::models
