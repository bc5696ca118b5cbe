// jacobi2d as a case model: its section of a case (defaults and checks here, nowhere else), what
// it needs of the machine, and a run of run_jacobi2d (jacobi2d.cpp) returned as a JacobiRun.

#include <fmt/format.h>

#include <algorithm>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "jacobi2d_report.hpp"
#include "machine_fit.hpp"
#include "model.hpp"
#include "printable.hpp"

namespace haloflow::models {
namespace {

constexpr std::int64_t kMaxAxis = std::int64_t{1} << 30;
constexpr std::int64_t kMaxSteps = 100000000;
constexpr const char* kOneStepAdvice =
    "1 (one ghost layer) or \"auto\" (the most of 8, 4 and 2 steps a frame that fit, else one)";

class Jacobi2dModel final : public Model {
 public:
  [[nodiscard]] std::string_view name() const override { return "jacobi2d"; }

  void read_section(JsonFields& fields, const nlohmann::json& section,
                    const std::string& /*case_name*/) override {
    const std::string at = "/jacobi2d";
    fields.only_keys(section, at,
                     {"nx", "ny", "norm_every", "print_every", "precision", "split",
                      "rows_per_thread", "steps_per_frame"});
    JacobiConfig& c = settings_.config;
    c.nx = fields.integer(section, at + "/nx", 16384, 3, kMaxAxis);
    c.ny = fields.integer(section, at + "/ny", 16384, 3, kMaxAxis);
    if (section.contains("precision")) {
      const auto chosen =
          fields.choice(section["precision"], at + "/precision", {"float", "double"});
      if (!chosen.empty()) settings_.precision = chosen;
    }
    if (section.contains("split")) {
      const auto chosen = fields.choice(section["split"], at + "/split", {"1d", "2d"});
      if (!chosen.empty()) c.split = chosen == "2d" ? 2 : 1;
    }
    c.norm_every = static_cast<int>(fields.integer(section, at + "/norm_every", 100, 0, kMaxSteps));
    settings_.print_every =
        static_cast<int>(fields.integer(section, at + "/print_every", 100, 0, kMaxSteps));
    c.rows_per_thread =
        static_cast<int>(fields.integer(section, at + "/rows_per_thread", 8, 1, 65536));
    c.steps_per_frame = kAutoStepsPerFrame;
    if (section.contains("steps_per_frame")) {
      const nlohmann::json& value = section["steps_per_frame"];
      if (value.is_number_integer() && (value == 1 || value == 2 || value == 4 || value == 8)) {
        c.steps_per_frame = value.get<int>();
      } else if (value != "auto") {
        fields.report(at + "/steps_per_frame",
                      fmt::format("{} is not allowed; expected 1, 2, 4, 8 or \"auto\" (8 or 4 "
                                  "steps a frame where every rank computes at least {} or {} "
                                  "cells along each axis, else 2 where it owns two along each "
                                  "axis with a neighbour, else one)",
                                  input::shown(value), kDeepShare[0], kDeepShare[1]));
      }
    }
  }

  [[nodiscard]] RunShape run_shape() const override {
    return {.default_steps = 1000,
            .field_samples = {settings_.config.nx, settings_.config.ny - 2, 1}};  // computed rows
  }

  void check_machine(JsonFields& fields, const MachineLimits& limits) override {
    const JacobiConfig& c = settings_.config;
    // auto: 8 or 4 steps a frame where the ranks' shares are thick enough, 2 where they are at
    // least the 2 ghost layers deep, else one (the run decides the same from its process grid:
    // jacobi_frame_steps).
    const bool automatic = c.steps_per_frame == kAutoStepsPerFrame;
    int steps_per_frame = c.steps_per_frame;
    if (automatic) {
      Coord3 grid{1, std::max(limits.ranks, 1), 1};
      try {
        if (c.split == 2) grid = balanced_process_grid(limits.ranks, 2, {});
      } catch (const Error&) {
        // check_grid_fits reports the ranks that cannot be arranged
      }
      steps_per_frame = jacobi_frame_steps(c, grid).steps;
    }
    const bool asked = c.steps_per_frame > 1;
    const std::string reason =
        fmt::format("{0} steps a frame (/jacobi2d/steps_per_frame {0})", c.steps_per_frame);
    bytes_per_rank_ = check_grid_fits(fields,
                                      {.section = "/jacobi2d",
                                       .dimensions = 2,
                                       .values = {c.nx, c.ny, 1},
                                       .cells = {c.nx, c.ny - 2, 1},  // the copy rows are halo
                                       .rows_only = c.split == 1,
                                       .cells_per_rank = 1,
                                       .ghost_cells = 2 * steps_per_frame,
                                       .fields = 2,  // a and a_new
                                       .precision = settings_.precision,
                                       .copy_rows_in_y = true,
                                       // jacobi2d.cpp's halo: k deep for k steps a frame
                                       // (k_steps), else 1; x fixed columns, y periodic.
                                       .halo_depth = steps_per_frame,
                                       .periodic = {false, true, false},
                                       .depth_reason = asked ? reason : "",
                                       .depth_advice = asked ? kOneStepAdvice : "",
                                       .depth_pointer = asked ? "/jacobi2d/steps_per_frame" : "",
                                       .depth_value = std::to_string(c.steps_per_frame)},
                                      limits);
  }

  [[nodiscard]] double bytes_per_rank() const override { return bytes_per_rank_; }

  [[nodiscard]] nlohmann::json resolved_section() const override {
    const JacobiConfig& c = settings_.config;
    return {{"nx", c.nx},
            {"ny", c.ny},
            {"precision", settings_.precision},
            {"split", c.split == 2 ? "2d" : "1d"},
            {"norm_every", c.norm_every},
            {"print_every", settings_.print_every},
            {"rows_per_thread", c.rows_per_thread},
            {"steps_per_frame", c.steps_per_frame == kAutoStepsPerFrame
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
    return fmt::format("{} x {} {}", settings_.config.nx, settings_.config.ny, settings_.precision);
  }

  [[nodiscard]] std::unique_ptr<ModelResult> run_steps(const RunOptions& options,
                                                       MPI_Comm communicator) const override {
    return settings_.precision == "float" ? run_as<float>(options, communicator)
                                          : run_as<double>(options, communicator);
  }

 private:
  template <class T>
  std::unique_ptr<ModelResult> run_as(const RunOptions& options, MPI_Comm communicator) const {
    StepSummary summary = summary_before_run("jacobi2d", settings_.precision, options, communicator,
                                             2, "read a + write a_new");
    JacobiConfig config = settings_.config;
    config.run = options;
    // The norm lines as the norms come: the steps that print one wait for it.
    config.run.sample_every = settings_.print_every;
    SpokenRun spoken(
        options.tell(),
        [this, summary](const Coord3& grid) mutable {
          summary.process_grid = grid;
          return jacobi_header(settings_, summary);
        },
        [this, steps = options.steps](const StepSample& sample) -> std::optional<std::string> {
          if (!sample.norm) return std::nullopt;
          return jacobi_norm_line(settings_, steps, {.step = sample.step, .value = *sample.norm});
        },
        settings_.print_every > 0 && config.norm_every > 0);
    config.run.listener = &spoken;
    JacobiResult<T> result = run_jacobi2d<T>(config, communicator);
    take_measurements(summary, result);
    return std::make_unique<JacobiRun<T>>(settings_, std::move(summary), std::move(result));
  }

  JacobiSettings settings_;
  double bytes_per_rank_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_jacobi2d_model() {
  return std::make_unique<Jacobi2dModel>();
}

}  // namespace haloflow::models
