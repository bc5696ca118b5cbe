#include "jacobi2d_report.hpp"

#include <fmt/format.h>

namespace haloflow::models {

template <class T>
Figures JacobiRun<T>::figures() const {
  Figures figures = step_figures(summary_);
  if (!result_.norms.empty()) figures.add("final_norm", result_.norms.back().value, "{:.9e}");
  return figures;
}

template <class T>
std::string JacobiRun<T>::report(const ReportOptions& options) const {
  const JacobiConfig& c = settings_.config;
  std::string text = fmt::format(
      "jacobi2d: {} x {} ({} rows computed, periodic in y; columns 0 and {} fixed), {}, norm "
      "every {}\n",
      c.nx, c.ny, c.ny - 2, c.nx - 1, describe_run(summary_), c.norm_every);
  for (std::size_t i = 0; i < result_.norms.size(); ++i) {
    const NormSample& sample = result_.norms[i];
    const bool last = i + 1 == result_.norms.size();
    if (settings_.print_every > 0 && (sample.step % settings_.print_every == 0 || last)) {
      text += fmt::format("step {:5d}: L2 norm of the update {:.9e}\n", sample.step, sample.value);
    }
  }
  return text + times_lines(summary_, options) + figures().line() + "\n";
}

template <class T>
void JacobiRun<T>::add_to(nlohmann::json& results, const ReportOptions& /*options*/) const {
  add_step_results(results, summary_, figures());
}

template class JacobiRun<float>;
template class JacobiRun<double>;

}  // namespace haloflow::models
