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
class JacobiRun final : public SteppedRun<JacobiSettings, JacobiResult<T>> {
 public:
  using SteppedRun<JacobiSettings, JacobiResult<T>>::SteppedRun;

  //! The benchmark line's figures: the common ones, then final_norm.
  [[nodiscard]] Figures figures() const override;

 private:
  //! The header and the norm lines.
  [[nodiscard]] std::string opening() const override;
  void add_own(nlohmann::json& results) const override;
};

}  // namespace haloflow::models
