#include "jacobi2d_report.hpp"

#include <fmt/format.h>

namespace haloflow::models {

std::string jacobi_header(const JacobiSettings& settings, const StepSummary& run) {
  const JacobiConfig& c = settings.config;
  // The steps a frame takes, and with auto why (more than two, or two do not fit): said once,
  // here.
  const JacobiFrameSteps frame = jacobi_frame_steps(c, run.process_grid);
  std::string frames = frame.steps == 1   ? "one step a frame"
                       : frame.steps == 2 ? "two steps a frame"
                                          : fmt::format("{} steps a frame", frame.steps);
  if (c.steps_per_frame == kAutoStepsPerFrame) {
    frames += !frame.thin.empty()
                  ? fmt::format(" (steps_per_frame auto: two do not fit a rank of {})", frame.thin)
              : !frame.why.empty() ? fmt::format(" (steps_per_frame auto: {})", frame.why)
                                   : " (steps_per_frame auto)";
  }
  return fmt::format(
      "jacobi2d: {} x {} ({} rows computed, periodic in y; columns 0 and {} fixed), {}, norm "
      "every {}, {}\n",
      c.nx, c.ny, c.ny - 2, c.nx - 1, describe_run(run), c.norm_every, frames);
}

std::optional<std::string> jacobi_norm_line(const JacobiSettings& settings, int steps,
                                            const NormSample& norm) {
  const bool last = norm.step == steps - 1;
  if (settings.print_every <= 0 || (norm.step % settings.print_every != 0 && !last)) {
    return std::nullopt;
  }
  return fmt::format("step {:5d}: L2 norm of the update {:.9e}\n", norm.step, norm.value);
}

template <class T>
Figures JacobiRun<T>::figures() const {
  Figures figures = step_figures(this->summary_);
  const JacobiResult<T>& r = this->result_;
  if (!r.norms.empty()) figures.add("final_norm", r.norms.back().value, "{:.9e}");
  return figures;
}

template <class T>
std::string JacobiRun<T>::opening() const {
  std::string text = jacobi_header(this->settings_, this->summary_);
  for (const NormSample& sample : this->result_.norms) {
    if (const auto line = jacobi_norm_line(this->settings_, this->summary_.steps, sample)) {
      text += *line;
    }
  }
  return text;
}

template <class T>
void JacobiRun<T>::add_own(nlohmann::json& results) const {
  const JacobiSettings& settings = this->settings_;
  const JacobiResult<T>& result = this->result_;
  const JacobiConfig& c = settings.config;
  nlohmann::json steps = nlohmann::json::array();
  nlohmann::json norms = nlohmann::json::array();
  for (const NormSample& sample : result.norms) {
    steps.push_back(sample.step);
    norms.push_back(sample.value);
  }
  // Every norm computed, not only the printed ones: the convergence history.
  results["jacobi2d"] = {
      {"nx", c.nx},
      {"ny", c.ny},
      {"rows_computed", c.ny - 2},
      {"split", c.split == 2 ? "2d" : "1d"},
      {"norm_every", c.norm_every},
      {"print_every", settings.print_every},
      {"norm_steps", std::move(steps)},
      {"norms", std::move(norms)},
      {"final_norm",
       result.norms.empty() ? nlohmann::json() : nlohmann::json(result.norms.back().value)}};
}

template class JacobiRun<float>;
template class JacobiRun<double>;

}  // namespace haloflow::models
