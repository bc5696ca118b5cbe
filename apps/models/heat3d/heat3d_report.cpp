#include "heat3d_report.hpp"

#include <fmt/format.h>

namespace haloflow::models {

std::string heat_header(const HeatSettings& settings, const StepSummary& run, double dt) {
  const HeatConfig& c = settings.config;
  const std::string frames =
      c.steps_per_frame == 1
          ? ""
          : fmt::format(", {0} steps a frame (ghosts {0} deep)", c.steps_per_frame);
  return fmt::format(
      "heat3d: {} x {} x {} cells on the periodic box [0,1)^3, {}, dt {:.6e}, nu {}, mode k = "
      "{}{}\n",
      c.cells[0], c.cells[1], c.cells[2], describe_run(run), dt, c.nu, c.mode, frames);
}

std::optional<std::string> heat_error_line(const StepSample& sample) {
  if (!sample.error_max || !sample.error_rms || !sample.time) return std::nullopt;
  return fmt::format("step {:5d}: t = {:.6e}, max error {:.6e}, rms error {:.6e}\n", sample.step,
                     *sample.time, *sample.error_max, *sample.error_rms);
}

template <class T>
Figures HeatRun<T>::figures() const {
  Figures figures = step_figures(this->summary_);
  figures.add("error_max", this->result_.error_max, "{:.9e}")
      .add("predicted_error_max", this->result_.predicted_error_max, "{:.9e}");
  return figures;
}

template <class T>
std::string HeatRun<T>::opening() const {
  return heat_header(this->settings_, this->summary_, this->result_.dt);
}

template <class T>
std::string HeatRun<T>::own_closing() const {
  const HeatResult<T>& r = this->result_;
  const std::string frames =
      r.steps_per_frame == 1
          ? ""
          : fmt::format(
                "{} steps a frame: {} cells a frame computed outside their owners' boxes ({:.1f} "
                "% of the frame's owned work)\n",
                r.steps_per_frame, r.redundant_cells_per_frame, 100 * r.redundant_fraction);
  return fmt::format(
      "t = {:.6e}: amplitude exact {:.12f}, scheme {:.12f}; max error {:.6e} (predicted from "
      "the scheme's amplification factor {:.6e}), rms error {:.6e}\n{}",
      r.final_time, r.amplitude_exact, r.amplitude_scheme, r.error_max, r.predicted_error_max,
      r.error_rms, frames);
}

template <class T>
void HeatRun<T>::add_own(nlohmann::json& results) const {
  const HeatConfig& c = this->settings_.config;
  const HeatResult<T>& r = this->result_;
  results["heat3d"] = {{"cells", {c.cells[0], c.cells[1], c.cells[2]}},
                       {"nu", c.nu},
                       {"mode", c.mode},
                       {"dt", r.dt},
                       {"t", r.final_time},
                       {"amplitude_exact", r.amplitude_exact},
                       {"amplitude_scheme", r.amplitude_scheme},
                       {"error_max", r.error_max},
                       {"predicted_error_max", r.predicted_error_max},
                       {"error_rms", r.error_rms},
                       {"steps_per_frame", r.steps_per_frame},
                       {"redundant_cells_per_frame", r.redundant_cells_per_frame},
                       {"redundant_fraction", r.redundant_fraction}};
}

template class HeatRun<float>;
template class HeatRun<double>;

}  // namespace haloflow::models
