#pragma once
// A euler2d run's typed result and its views: the report rank 0 prints (its header and the clock
// also as the run goes), the benchmark line's figures, results.json's entries.

#include <optional>
#include <string>

#include "euler2d.hpp"
#include "model.hpp"
#include "step_report.hpp"

namespace haloflow::models {

//! How the halos travel, for the header: "one exchange a step (ghosts 6 deep)".
[[nodiscard]] std::string exchange_mode(const EulerConfig& config);

//! The report's first line: the problem, the grid and its cell size, how it runs, the scheme.
//! The report's first line; `config.exchange_every` as run (never auto), and with exchange_every
//! "auto", `chosen`: what it measured and took.
[[nodiscard]] std::string euler_header(const EulerConfig& config, const StepSummary& run,
                                       const std::optional<EulerExchangeChoice>& chosen);

//! The line of the clock at a step (time and the step's dt); nothing for a sample without them.
[[nodiscard]] std::optional<std::string> euler_clock_line(const StepSample& sample);

//! What a euler2d run returned, with how it ran.
class EulerRun final : public SteppedRun<EulerConfig, EulerResult> {
 public:
  using SteppedRun::SteppedRun;

  //! The benchmark line's figures: the common ones, then the time reached and the errors.
  [[nodiscard]] Figures figures() const override;

 private:
  [[nodiscard]] std::string opening() const override;
  //! The time reached, the errors against the exact solution and the conservation.
  [[nodiscard]] std::string own_closing() const override;
  void add_own(nlohmann::json& results) const override;
};

//! "minmod", "vanleer" or "none"; "hllc" or "rusanov": the names the case and the report use.
[[nodiscard]] std::string limiter_name(int limiter);
//! The limiter named "minmod", "none" or (anything else) "vanleer".
[[nodiscard]] int limiter_from_name(const std::string& name);
[[nodiscard]] std::string flux_name(int flux);

}  // namespace haloflow::models
