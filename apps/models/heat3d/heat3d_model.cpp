// heat3d as a case model: its section of a case (defaults and checks here, nowhere else), the
// stable time step, what it needs of the machine, and a run of run_heat3d (heat3d.cpp) returned
// as a HeatRun.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "heat3d_report.hpp"
#include "machine_fit.hpp"
#include "model.hpp"
#include "printable.hpp"

namespace haloflow::models {
namespace {

constexpr std::int64_t kMaxAxis = std::int64_t{1} << 30;
constexpr const char* kStepsPointer = "/heat3d/steps_per_frame";

//! The most steps a frame can take on `ranks` (heat3d.cpp's process grid, MPI_Dims_create): ghosts
//! k deep fit in the thinnest share along every axis (all periodic). At least 1, for the message.
int steps_that_fit(const Index3& cells, int ranks) {
  Coord3 grid{1, 1, 1};
  try {
    grid = balanced_process_grid(std::max(ranks, 1), 3, {});
  } catch (const Error&) {
    return 1;  // check_grid_fits reports the ranks that cannot be arranged
  }
  std::int64_t fit = kMostHeatStepsPerFrame;
  for (std::size_t axis = 0; axis < 3; ++axis) fit = std::min(fit, cells[axis] / grid[axis]);
  return static_cast<int>(std::max<std::int64_t>(fit, 1));
}

class Heat3dModel final : public Model {
 public:
  [[nodiscard]] std::string_view name() const override { return "heat3d"; }

  void read_section(JsonFields& fields, const nlohmann::json& section,
                    const std::string& /*case_name*/) override {
    const std::string at = "/heat3d";
    fields.only_keys(
        section, at,
        {"nx", "ny", "nz", "precision", "split", "nu", "mode", "dt", "steps_per_frame"});
    HeatConfig& c = settings_.config;
    c.cells[0] = fields.integer(section, at + "/nx", 256, 1, kMaxAxis);
    c.cells[1] = fields.integer(section, at + "/ny", c.cells[0], 1, kMaxAxis);
    c.cells[2] = fields.integer(section, at + "/nz", c.cells[0], 1, kMaxAxis);
    if (section.contains("precision")) {
      const auto chosen =
          fields.choice(section["precision"], at + "/precision", {"float", "double"});
      if (!chosen.empty()) settings_.precision = chosen;
    }
    if (section.contains("split")) (void)fields.choice(section["split"], at + "/split", {"3d"});
    c.nu = fields.number(section, at + "/nu", 1.0, 0, 1e12);
    if (section.contains("nu") && section["nu"].is_number() && section["nu"].get<double>() == 0) {
      fields.report(at + "/nu", "0 is not allowed; expected a positive diffusivity");
      c.nu = 1.0;
    }
    c.mode = static_cast<int>(fields.integer(section, at + "/mode", 1, 1, 1000000));
    c.dt = fields.number(section, at + "/dt", 0, 0, 1e12);
    c.steps_per_frame = 1;
    if (section.contains("steps_per_frame")) {
      const nlohmann::json& value = section["steps_per_frame"];
      if (value.is_number_integer() && value >= 1 && value <= kMostHeatStepsPerFrame) {
        c.steps_per_frame = value.get<int>();
      } else if (value == "auto") {
        c.steps_per_frame = kAutoHeatStepsPerFrame;
      } else {
        fields.report(kStepsPointer,
                      fmt::format("{} is not allowed; expected an integer from 1 to {} or "
                                  "\"auto\" (the fastest k measured on this machine)",
                                  input::shown(value), kMostHeatStepsPerFrame));
      }
    }
  }

  // nu dt sum 1/h^2 <= 1/2, with dt = h_min^2 / (8 nu) when the case leaves it at 0.
  void check_rules(JsonFields& fields) override {
    const HeatConfig& c = settings_.config;
    const auto n = [&](std::size_t axis) { return static_cast<double>(c.cells[axis]); };
    const double sum = n(0) * n(0) + n(1) * n(1) + n(2) * n(2);
    const double largest = std::max({n(0), n(1), n(2)});
    // A diffusivity so small that the largest stable step (or the automatic one) is beyond a
    // double's range bounds nothing: refused naming the smallest nu that does, never "dt <= inf".
    const double stable = 0.5 / (c.nu * sum);
    const double automatic = 1.0 / (8.0 * c.nu * largest * largest);
    if (!std::isfinite(stable) || (c.dt == 0 && !std::isfinite(automatic))) {
      const double big = std::numeric_limits<double>::max();
      // Divided in turn: sum * big would overflow.
      const double smallest =
          1.01 * std::max(0.5 / sum / big, 1.0 / (8.0 * largest * largest) / big);
      fields.report(
          "/heat3d/nu",
          fmt::format("{} is not allowed: too small to bound the time step (the largest "
                      "stable dt, 1 / (2 nu sum 1/h^2), is beyond a double's range on this "
                      "grid); expected a diffusivity from {:.3g} to 1e+12",
                      c.nu, smallest));
      return;
    }
    const double dt = c.dt > 0 ? c.dt : automatic;
    if (c.nu * dt * sum > 0.5) {
      fields.report("/heat3d/dt",
                    fmt::format("{} is not allowed: the explicit scheme is stable for dt <= {:.6g} "
                                "(nu dt sum 1/h^2 <= 1/2); expected 0 (automatic) or at most that",
                                c.dt, stable));
    }
  }

  [[nodiscard]] RunShape run_shape() const override {
    return {.field_samples = settings_.config.cells};
  }

  // With k steps a frame the halo is k deep (heat3d.cpp's StepFrame): a grid too thin for it is
  // refused at /heat3d/steps_per_frame, naming the k that fits.
  // auto is never refused: it measures only the k that fit, 1 at least.
  void check_machine(JsonFields& fields, const MachineLimits& limits) override {
    const Index3& cells = settings_.config.cells;
    const int k = std::max(settings_.config.steps_per_frame, 1);
    const std::string value = std::to_string(k);
    bytes_per_rank_ = check_grid_fits(
        fields,
        {.section = "/heat3d",
         .dimensions = 3,
         .values = cells,
         .cells = cells,
         .cells_per_rank = 1,
         .ghost_cells = 2 * k,
         .fields = 2,  // u and u_new
         .precision = settings_.precision,
         .halo_depth = k,
         .periodic = {true, true, true},
         .depth_reason = k > 1 ? fmt::format("{} steps a frame ({} {})", k, kStepsPointer, k) : "",
         .depth_advice =
             k > 1 ? fmt::format("at most {}", steps_that_fit(cells, limits.ranks)) : "",
         .depth_pointer = k > 1 ? kStepsPointer : "",
         .depth_value = value},
        limits);
  }

  [[nodiscard]] double bytes_per_rank() const override { return bytes_per_rank_; }

  [[nodiscard]] nlohmann::json resolved_section() const override {
    const HeatConfig& c = settings_.config;
    return {{"nx", c.cells[0]},
            {"ny", c.cells[1]},
            {"nz", c.cells[2]},
            {"precision", settings_.precision},
            {"split", "3d"},
            {"nu", c.nu},
            {"mode", c.mode},
            {"dt", c.dt},
            {"steps_per_frame", c.steps_per_frame == kAutoHeatStepsPerFrame
                                    ? nlohmann::json("auto")
                                    : nlohmann::json(c.steps_per_frame)}};
  }

  // A checkpoint holds the owned cells only, the same whatever steps a frame takes: a restart
  // may take them differently.
  [[nodiscard]] nlohmann::json checkpoint_section() const override {
    nlohmann::json section = resolved_section();
    section.erase("steps_per_frame");
    return section;
  }

  [[nodiscard]] std::string sizes() const override {
    const Index3& n = settings_.config.cells;
    return fmt::format("{} x {} x {} {}", n[0], n[1], n[2], settings_.precision);
  }

  [[nodiscard]] std::unique_ptr<ModelResult> run_steps(const RunOptions& options,
                                                       MPI_Comm communicator) const override {
    return settings_.precision == "float" ? run_as<float>(options, communicator)
                                          : run_as<double>(options, communicator);
  }

 private:
  template <class T>
  std::unique_ptr<ModelResult> run_as(const RunOptions& options, MPI_Comm communicator) const {
    StepSummary summary = summary_before_run("heat3d", settings_.precision, options, communicator,
                                             3, "read u + write u_new");
    HeatConfig config = settings_.config;
    config.run = options;
    // auto is measured before the run starts, so that its header can say what it chose and why.
    std::optional<HeatStepsChoice> chosen;
    if (config.steps_per_frame == kAutoHeatStepsPerFrame) {
      chosen = choose_heat_steps_per_frame<T>(config, communicator);
      config.steps_per_frame = chosen->steps;
    }
    SpokenRun spoken(
        options.tell(),
        [this, summary, chosen, dt = heat_time_step(config)](const Coord3& grid) mutable {
          summary.process_grid = grid;
          return heat_header(settings_, summary, dt, chosen);
        },
        heat_error_line);
    config.run.listener = &spoken;
    HeatResult<T> result = run_heat3d<T>(config, communicator);
    result.auto_steps = std::move(chosen);
    take_measurements(summary, result);
    return std::make_unique<HeatRun<T>>(settings_, std::move(summary), std::move(result));
  }

  HeatSettings settings_;
  double bytes_per_rank_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_heat3d_model() {
  return std::make_unique<Heat3dModel>();
}

}  // namespace haloflow::models
