#include "heat3d_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "haloflow/steps.hpp"

namespace haloflow::models {

namespace {

//! ", k steps a frame (ghosts k deep)" for an explicit k > 1; nothing for 1.
std::string asked_steps(int steps) {
  return steps == 1 ? "" : fmt::format(", {0} steps a frame (ghosts {0} deep)", steps);
}

//! What steps_per_frame "auto" took and why: the measured step of each k, or the share too thin
//! for more than one.
std::string chosen_steps(const HeatStepsChoice& chosen) {
  const std::string frames = chosen.steps == 1
                                 ? "1 step a frame"
                                 : fmt::format("{0} steps a frame, ghosts {0} deep", chosen.steps);
  if (chosen.seconds_per_step.empty()) {
    return fmt::format(", {} (auto: a rank's share is too thin for ghosts 2 deep)", frames);
  }
  std::vector<std::string> times;
  std::vector<int> ks;
  for (std::size_t k = 0; k < chosen.seconds_per_step.size(); ++k) {
    times.push_back(fmt::format("{:.1f}", 1e6 * chosen.seconds_per_step[k]));
    ks.push_back(static_cast<int>(k) + 1);
  }
  return fmt::format(
      ", {} (auto: a step took {} us with {} steps a frame, median of {} steps, slowest rank; the "
      "fewest within {:.0f} % of the fastest; measured in {:.2f} s)",
      frames, fmt::join(times, " / "), fmt::join(ks, " / "), chosen.steps_timed,
      100 * kStepsPerFrameTolerance, chosen.seconds);
}

}  // namespace

std::string heat_header(const HeatSettings& settings, const StepSummary& run, double dt,
                        const std::optional<HeatStepsChoice>& chosen) {
  const HeatConfig& c = settings.config;
  const std::string frames = chosen ? chosen_steps(*chosen) : asked_steps(c.steps_per_frame);
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
  return heat_header(this->settings_, this->summary_, this->result_.dt, this->result_.auto_steps);
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
  if (r.auto_steps) {
    results["heat3d"]["steps_per_frame_auto"] = {
        {"seconds_per_step", r.auto_steps->seconds_per_step},
        {"steps_timed", r.auto_steps->steps_timed},
        {"tolerance", kStepsPerFrameTolerance},
        {"measuring_seconds", r.auto_steps->seconds}};
  }
}

template class HeatRun<float>;
template class HeatRun<double>;

}  // namespace haloflow::models
