#include "euler2d_report.hpp"

#include "haloflow/steps.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

#include "euler_kernels.hpp"

namespace haloflow::models {
namespace {

constexpr std::array<const char*, 4> kConserved = {"mass", "x-momentum", "y-momentum", "energy"};
// Sod's waves in the order EulerResult::error_l1_waves holds them.
constexpr std::array<const char*, 3> kWaves = {"rarefaction", "contact", "shock"};

bool is_sod(EulerCase problem) {
  return problem == EulerCase::sod_x || problem == EulerCase::sod_y;
}

double change(const EulerResult& r, std::size_t f) {
  return std::abs(r.totals_final[f] - r.totals_initial[f]);
}

// |change| / sum |initial|; a field that starts at zero everywhere (Sod's momentum) has no scale:
// its absolute change is what there is to show.
std::optional<double> relative_change(const EulerResult& r, std::size_t f) {
  if (!(r.totals_scale[f] > 0)) return std::nullopt;
  return change(r, f) / r.totals_scale[f];
}

}  // namespace

std::string limiter_name(int limiter) {
  if (limiter == kernels::kNoLimiter) return "none";
  return limiter == kernels::kMinmod ? "minmod" : "vanleer";
}

int limiter_from_name(const std::string& name) {
  if (name == "none") return kernels::kNoLimiter;
  return name == "minmod" ? kernels::kMinmod : kernels::kVanLeer;
}

std::string flux_name(int flux) {
  return flux == kernels::kHllc ? "hllc" : "rusanov";
}

//! "one exchange a step (ghosts 6 deep)", and what auto measured when it chose.
std::string exchange_mode(const EulerConfig& config,
                          const std::optional<EulerExchangeChoice>& chosen) {
  const std::string mode = fmt::format("one exchange a {} (ghosts {} deep",
                                       to_string(config.exchange_every), euler_ghost_depth(config));
  if (!chosen) return mode + ")";
  if (chosen->seconds_per_step.size() != 2)
    return fmt::format("{}; auto: {})", mode, chosen->why_not);
  return fmt::format(
      "{}; auto: a step took {:.1f} us exchanging every stage, {:.1f} us once a step, median of {} "
      "steps, slowest rank; a step only if faster by more than {:.0f} %; measured in {:.2f} s)",
      mode, 1e6 * chosen->seconds_per_step[0], 1e6 * chosen->seconds_per_step[1],
      chosen->steps_timed, 100 * kStepsPerFrameTolerance, chosen->seconds);
}

std::string euler_header(const EulerConfig& config, const StepSummary& run,
                         const std::optional<EulerExchangeChoice>& chosen) {
  const std::array<double, 2> h = euler_cell_size(config);
  return fmt::format(
      "euler2d: case {}, {} x {} cells (dx {:.6g}, dy {:.6g}), {}, SSP-RK{}, {}, {}, cfl {}, {}\n",
      to_string(config.problem), config.nx, config.ny, h[0], h[1], describe_run(run), config.stages,
      limiter_name(config.limiter), flux_name(config.flux), config.cfl,
      exchange_mode(config, chosen));
}

std::optional<std::string> euler_clock_line(const StepSample& sample) {
  if (!sample.time || !sample.dt) return std::nullopt;
  return fmt::format("step {:5d}: t = {:.9g}, dt = {:.6e}\n", sample.step, *sample.time,
                     *sample.dt);
}

Figures EulerRun::figures() const {
  Figures figures = step_figures(summary_);
  figures.add("t", result_.final_time, "{:.9g}")
      .add("steps_taken", static_cast<long long>(result_.steps_taken))
      .add("error_l1", result_.error_l1, "{:.9e}")
      .add("error_linf", result_.error_linf, "{:.9e}");
  return figures;
}

std::string EulerRun::opening() const {
  return euler_header(settings_, summary_, result_.exchange_auto);
}

std::string EulerRun::own_closing() const {
  const EulerResult& r = result_;
  std::string text = fmt::format("t = {:.9g} after {} steps\n", r.final_time, r.steps_taken);
  if (r.has_exact) {
    text +=
        fmt::format("density error against the exact solution: L1 {:.6e}, L2 {:.6e}, Linf {:.6e}\n",
                    r.error_l1, r.error_l2, r.error_linf);
  }
  if (r.has_exact && is_sod(settings_.problem)) {
    text += fmt::format(
        "density L1 error by the wave nearest each cell: {} {:.6e}, {} {:.6e}, {} "
        "{:.6e}\n",
        kWaves[0], r.error_l1_waves[0], kWaves[1], r.error_l1_waves[1], kWaves[2],
        r.error_l1_waves[2]);
  }
  std::string drift;
  for (std::size_t f = 0; f < 4; ++f) {
    const auto relative = relative_change(r, f);
    drift += fmt::format("{}{} {}", f == 0 ? "" : ", ", kConserved[f],
                         relative ? fmt::format("{:.3e}", *relative)
                                  : fmt::format("{:.3e} (absolute: it starts at 0)", change(r, f)));
  }
  text += fmt::format("conservation, |change| / sum |initial|: {}\n", drift);
  if (settings_.exchange_every == ExchangeEvery::step) {
    text += fmt::format(
        "one exchange a step: {} cells a step computed outside their owners' boxes ({:.1f} % of "
        "the step's owned work)\n",
        r.redundant_cells_per_step, 100 * r.redundant_fraction);
  }
  return text;
}

namespace {

//! results.json's account of exchange_every "auto"; null when it was not asked for.
nlohmann::json exchange_auto_json(const std::optional<EulerExchangeChoice>& chosen) {
  if (!chosen) return nullptr;
  return {{"seconds_per_step", chosen->seconds_per_step.size() == 2
                                   ? nlohmann::json{{"stage", chosen->seconds_per_step[0]},
                                                    {"step", chosen->seconds_per_step[1]}}
                                   : nlohmann::json()},
          {"steps_timed", chosen->steps_timed},
          {"tolerance", kStepsPerFrameTolerance},
          {"measuring_seconds", chosen->seconds},
          {"not_measured",
           chosen->why_not.empty() ? nlohmann::json() : nlohmann::json(chosen->why_not)}};
}

}  // namespace

void EulerRun::add_own(nlohmann::json& results) const {
  const EulerResult& r = result_;
  nlohmann::json errors;  // null without an exact solution (Kelvin-Helmholtz)
  if (r.has_exact) {
    errors = {{"l1", r.error_l1}, {"l2", r.error_l2}, {"linf", r.error_linf}};
    if (is_sod(settings_.problem)) {
      errors["l1_by_wave"] = {{kWaves[0], r.error_l1_waves[0]},
                              {kWaves[1], r.error_l1_waves[1]},
                              {kWaves[2], r.error_l1_waves[2]}};
    }
  }
  nlohmann::json conservation = nlohmann::json::object();
  for (std::size_t f = 0; f < 4; ++f) {
    conservation[kConserved[f]] = {
        {"initial", r.totals_initial[f]},
        {"final", r.totals_final[f]},
        {"sum_abs_initial", r.totals_scale[f]},
        {"change", change(r, f)},
        {"relative_change",
         relative_change(r, f) ? nlohmann::json(*relative_change(r, f)) : nlohmann::json()}};
  }
  results["euler2d"] = {{"case", to_string(settings_.problem)},
                        {"nx", settings_.nx},
                        {"ny", settings_.ny},
                        {"dx", r.dx},
                        {"dy", r.dy},
                        {"rk", settings_.stages},
                        {"limiter", limiter_name(settings_.limiter)},
                        {"riemann", flux_name(settings_.flux)},
                        {"cfl", settings_.cfl},
                        {"gamma", settings_.gamma},
                        {"t_end", settings_.t_end},
                        {"t", r.final_time},
                        {"steps_taken", r.steps_taken},
                        {"exchange_every", to_string(settings_.exchange_every)},
                        {"ghost_depth", euler_ghost_depth(settings_)},
                        {"redundant_cells_per_step", r.redundant_cells_per_step},
                        {"redundant_fraction", r.redundant_fraction},
                        {"exchange_every_auto", exchange_auto_json(r.exchange_auto)},
                        {"density_error", std::move(errors)},
                        {"conservation", std::move(conservation)}};
}

}  // namespace haloflow::models
