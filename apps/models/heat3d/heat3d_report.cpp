#include "heat3d_report.hpp"

#include <fmt/format.h>

namespace haloflow::models {

template <class T>
Figures HeatRun<T>::figures() const {
  Figures figures = step_figures(summary_);
  figures.add("error_max", result_.error_max, "{:.9e}")
      .add("predicted_error_max", result_.predicted_error_max, "{:.9e}");
  return figures;
}

template <class T>
std::string HeatRun<T>::report(const ReportOptions& options) const {
  const HeatConfig& c = settings_.config;
  const HeatResult<T>& r = result_;
  std::string text = fmt::format(
      "heat3d: {} x {} x {} cells on the periodic box [0,1)^3, {}, dt {:.6e}, nu {}, mode k = "
      "{}\n",
      c.cells[0], c.cells[1], c.cells[2], describe_run(summary_), r.dt, c.nu, c.mode);
  text += fmt::format(
      "t = {:.6e}: amplitude exact {:.12f}, scheme {:.12f}; max error {:.6e} (predicted from "
      "the scheme's amplification factor {:.6e}), rms error {:.6e}\n",
      r.final_time, r.amplitude_exact, r.amplitude_scheme, r.error_max, r.predicted_error_max,
      r.error_rms);
  return text + times_lines(summary_, options) + figures().line() + "\n";
}

template <class T>
void HeatRun<T>::add_to(nlohmann::json& results, const ReportOptions& /*options*/) const {
  add_step_results(results, summary_, figures());
}

template class HeatRun<float>;
template class HeatRun<double>;

}  // namespace haloflow::models
