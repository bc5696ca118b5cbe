#include "euler2d_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "euler_kernels.hpp"

namespace haloflow::models {

std::string limiter_name(int limiter) {
  return limiter == kernels::kMinmod ? "minmod" : "vanleer";
}

std::string flux_name(int flux) {
  return flux == kernels::kHllc ? "hllc" : "rusanov";
}

Figures EulerRun::figures() const {
  Figures figures = step_figures(summary_);
  figures.add("t", result_.final_time, "{:.9g}")
      .add("steps_taken", static_cast<long long>(result_.steps_taken))
      .add("error_l1", result_.error_l1, "{:.9e}")
      .add("error_linf", result_.error_linf, "{:.9e}");
  return figures;
}

std::string EulerRun::report(const ReportOptions& options) const {
  const EulerResult& r = result_;
  std::string text = fmt::format(
      "euler2d: case {}, {} x {} cells (dx {:.6g}, dy {:.6g}), {}, SSP-RK{}, {}, {}, cfl {}\n",
      to_string(config_.problem), config_.nx, config_.ny, r.dx, r.dy, describe_run(summary_),
      config_.stages, limiter_name(config_.limiter), flux_name(config_.flux), config_.cfl);
  text += fmt::format("t = {:.9g} after {} steps\n", r.final_time, r.steps_taken);
  if (r.has_exact) {
    text +=
        fmt::format("density error against the exact solution: L1 {:.6e}, L2 {:.6e}, Linf {:.6e}\n",
                    r.error_l1, r.error_l2, r.error_linf);
  }
  const char* names[4] = {"mass", "x-momentum", "y-momentum", "energy"};
  std::string drift;
  for (std::size_t f = 0; f < 4; ++f) {
    drift += fmt::format("{}{} {:.3e}", f == 0 ? "" : ", ", names[f],
                         std::abs(r.totals_final[f] - r.totals_initial[f]) / r.totals_scale[f]);
  }
  text += fmt::format("conservation, |change| / sum |initial|: {}\n", drift);
  return text + times_lines(summary_, options) + figures().line() + "\n";
}

void EulerRun::add_to(nlohmann::json& results, const ReportOptions& /*options*/) const {
  add_step_results(results, summary_, figures());
}

}  // namespace haloflow::models
