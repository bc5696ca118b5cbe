// euler2d as a case model: its section of a case (defaults and checks here, nowhere else), what
// it needs of the machine, and a run of run_euler2d (euler2d.cpp) returned as an EulerRun.

#include <fmt/format.h>

#include "euler2d_frames.hpp"
#include "euler2d_report.hpp"
#include "euler_kernels.hpp"
#include "haloflow/mpi_session.hpp"
#include "machine_fit.hpp"
#include "model.hpp"

namespace haloflow::models {
namespace {

constexpr std::int64_t kMaxAxis = std::int64_t{1} << 30;

class Euler2dModel final : public Model {
 public:
  [[nodiscard]] std::string_view name() const override { return "euler2d"; }

  void read_section(JsonFields& fields, const nlohmann::json& section,
                    const std::string& /*case_name*/) override {
    const std::string at = "/euler2d";
    fields.only_keys(
        section, at,
        {"case", "nx", "ny", "cfl", "t_end", "rk", "limiter", "riemann", "exchange_every"});
    EulerConfig& c = config_;
    if (section.contains("case")) {
      const auto chosen =
          fields.choice(section["case"], at + "/case", {"vortex", "sod-x", "sod-y", "kh"});
      if (!chosen.empty()) c.problem = euler_case_from_string(chosen);
    }
    c.nx = fields.integer(section, at + "/nx", 64, 4, kMaxAxis);
    c.ny = fields.integer(section, at + "/ny", c.nx, 4, kMaxAxis);
    c.cfl = fields.number(section, at + "/cfl", 0.4, 0, 4);
    if (section.contains("cfl") && section["cfl"].is_number() &&
        section["cfl"].get<double>() == 0) {
      fields.report(at + "/cfl", "0 is not allowed; expected a number in (0, 4]");
      c.cfl = 0.4;
    }
    c.t_end = fields.number(section, at + "/t_end", 0, 0, 1e12);
    c.stages = static_cast<int>(fields.integer(section, at + "/rk", 3, 2, 3));
    if (section.contains("limiter")) {
      const auto chosen =
          fields.choice(section["limiter"], at + "/limiter", {"minmod", "vanleer", "none"});
      if (!chosen.empty()) c.limiter = limiter_from_name(chosen);
    }
    if (section.contains("riemann")) {
      const auto chosen = fields.choice(section["riemann"], at + "/riemann", {"hllc", "rusanov"});
      if (!chosen.empty()) c.flux = chosen == "hllc" ? kernels::kHllc : kernels::kRusanov;
    }
    if (section.contains("exchange_every")) {
      const auto chosen = fields.choice(section["exchange_every"], at + "/exchange_every",
                                        {"stage", "step", "auto"});
      if (!chosen.empty()) {
        c.exchange_every = chosen == "step"   ? ExchangeEvery::step
                           : chosen == "auto" ? ExchangeEvery::automatic
                                              : ExchangeEvery::stage;
      }
    }
  }

  [[nodiscard]] RunShape run_shape() const override {
    return {.field_samples = {config_.nx, config_.ny, 1}};
  }

  void check_machine(JsonFields& fields, const MachineLimits& limits) override {
    // MUSCL reads two ghost layers: each rank owns at least 2 cells per axis. A rank holds the
    // state, the stage input and output and the wave-speed scratch, 4 conserved fields each.
    // One exchange a step fills stages * 2 layers: a grid too thin for them is refused at
    // /euler2d/exchange_every (with the words the run would refuse it with). auto is never refused
    // for depth: where one exchange a step does not fit, it exchanges every stage.
    const bool once = config_.exchange_every == ExchangeEvery::step;
    const int depth = euler_ghost_depth(config_);
    GridNeeds needs{.section = "/euler2d",
                    .dimensions = 2,
                    .values = {config_.nx, config_.ny, 1},
                    .cells = {config_.nx, config_.ny, 1},
                    .cells_per_rank = 2,
                    .ghost_cells = 2 * depth,
                    .fields = 16,
                    .precision = "double"};
    if (once) {
      needs.halo_depth = depth;
      needs.periodic = {config_.problem != EulerCase::sod_x, config_.problem != EulerCase::sod_y,
                        false};
      needs.depth_reason = "one exchange a step (/euler2d/exchange_every step)";
      needs.depth_advice = euler::kStageAdvice;
      needs.depth_pointer = euler::kExchangeEveryField;
      needs.depth_value = "step";
    }
    bytes_per_rank_ = check_grid_fits(fields, needs, limits);
  }

  [[nodiscard]] double bytes_per_rank() const override { return bytes_per_rank_; }

  [[nodiscard]] nlohmann::json resolved_section() const override {
    return {{"case", to_string(config_.problem)},
            {"nx", config_.nx},
            {"ny", config_.ny},
            {"cfl", config_.cfl},
            {"t_end", config_.t_end},
            {"rk", config_.stages},
            {"limiter", limiter_name(config_.limiter)},
            {"riemann", flux_name(config_.flux)},
            {"exchange_every", to_string(config_.exchange_every)}};
  }

  // A checkpoint holds U's owned cells only, the same whichever way the halos travel: a restart
  // may exchange them the other way.
  [[nodiscard]] nlohmann::json checkpoint_section() const override {
    nlohmann::json section = resolved_section();
    section.erase("exchange_every");
    return section;
  }

  [[nodiscard]] std::string sizes() const override {
    return fmt::format("{} x {} double, case {}", config_.nx, config_.ny,
                       to_string(config_.problem));
  }

  [[nodiscard]] std::string length(int steps) const override {
    return config_.t_end > 0 ? fmt::format("to t = {} (at most {} steps)", config_.t_end, steps)
                             : Model::length(steps);
  }

  [[nodiscard]] std::unique_ptr<ModelResult> run_steps(const RunOptions& options,
                                                       MPI_Comm communicator) const override {
    StepSummary summary =
        summary_before_run("euler2d", "double", options, communicator, 2,
                           "per stage read in and U, write out; read U for the CFL");
    EulerConfig config = config_;
    config.run = options;
    // The clock every progress interval: what the run's looks at it saw, no wait of its own.
    config.run.sample_every = options.progress_every;
    // auto is measured before the run starts, so that its header can say what it chose and why.
    std::optional<EulerExchangeChoice> chosen;
    if (config.exchange_every == ExchangeEvery::automatic) {
      chosen = choose_euler_exchange(config, communicator);
      config.exchange_every = chosen->chosen;
    }
    SpokenRun spoken(
        options.tell(),
        [config, summary, chosen](const Coord3& grid) mutable {
          summary.process_grid = grid;
          return euler_header(config, summary, chosen);
        },
        euler_clock_line);
    config.run.listener = &spoken;
    EulerResult result = run_euler2d(config, communicator);
    result.exchange_auto = std::move(chosen);
    take_measurements(summary, result);
    EulerConfig as_run = config_;  // the report's settings: auto as it chose
    as_run.exchange_every = config.exchange_every;
    return std::make_unique<EulerRun>(as_run, std::move(summary), std::move(result));
  }

 private:
  EulerConfig config_;
  double bytes_per_rank_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_euler2d_model() {
  return std::make_unique<Euler2dModel>();
}

}  // namespace haloflow::models
