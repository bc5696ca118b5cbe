// euler2d on the engine: builds the buffers, exchanges and frames (euler2d_frames.cpp: the step's
// clock, Runge-Kutta stages and CFL monitor; one exchange a stage, or with exchange_every = step
// one a step over a StepFrame of the stages), then steps them: the host launches steps without
// waiting and looks at the device clock every few steps; nothing patched, no wait per step.
// What is computed from the state on the host (outputs, totals, errors): euler2d_fields.cpp.

#include "euler2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "euler2d_fields.hpp"
#include "euler2d_frames.hpp"
#include "euler2d_problem.hpp"
#include "euler_kernels.hpp"
#include "field_gather.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "haloflow/steps.hpp"
#include "measured_choice.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

using euler::kGhosts;
using euler::kStencil;

//! With exchange_every = step, the stages as the sub-steps of one frame of this rank of `grid`;
//! nothing with one exchange a stage. \throws Error naming /euler2d/exchange_every when the ghosts
//! are deeper than the thinnest share along an axis with a neighbour (the same words on every
//! rank, and those of the case's check at validate).
std::optional<StepFrame> stage_frame(const EulerConfig& config,
                                     const CartesianDecomposition& grid) {
  if (config.exchange_every != ExchangeEvery::step) return std::nullopt;
  if (const auto refusal = euler::one_exchange_refusal(grid, config.stages)) throw Error(*refusal);
  return StepFrame(euler::stage_step(grid), config.stages, config.stages,
                   euler::kExchangeEveryField);
}

//! The halo plan of the state's four fields: the star 2 deep for one exchange a stage; the
//! StepFrame's stencil (a box, stages * 2 deep) for one a step.
HaloPlan state_halo_plan(const CartesianDecomposition& grid,
                         const std::optional<StepFrame>& frame) {
  if (!frame) return make_halo_plan(grid, kStencil, kGhosts, 4);
  return make_halo_plan(grid, frame->exchange_stencil(), frame->ghost_depth(), 4);
}

CartesianDecomposition decompose(const EulerConfig& c, MPI_Comm communicator) {
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {c.nx, c.ny, 1};
  if (c.problem == EulerCase::sod_x) spec.boundary[0] = Boundary::physical;
  if (c.problem == EulerCase::sod_y) spec.boundary[1] = Boundary::physical;
  return haloflow::decompose(communicator, spec);  // process grid from MPI_Dims_create
}

//! Steps a GPU run queues between looks at the clock (one wait each): few enough that a run to
//! an end time launches at most this many steps too many (the clock makes them no-ops), many
//! enough that the wait costs nothing measurable. The host executor looks after every step.
constexpr int kClockLookEvery = 32;

std::uint64_t bits_of(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

double double_of(std::uint64_t bits) {
  return std::bit_cast<double>(bits);
}

const EulerConfig& validated(const EulerConfig& config) {
  euler::validate(config);
  return config;
}

int rank_in(MPI_Comm communicator) {
  int rank = 0;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "euler2d");
  return rank;
}

int ranks_in(MPI_Comm communicator) {
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "euler2d");
  return ranks;
}

//! A euler2d run's state on this rank: U and the stage fields, the device clock and CFL monitor,
//! one exchange per stage (or one a step), the step frame and the initial state's monitor frame.
//! The host launches steps without waiting and looks at the clock's mirror only every few steps
//! (after a wait, so that every rank sees the same frame's clock and stops at the same step): a bad
//! state throws, a reached end time stops the launches.
class EulerStepping final : public SteppingState {
 public:
  EulerStepping(const EulerConfig& config, MPI_Comm communicator)
      : config_(validated(config)),
        grid_(decompose(config, communicator)),
        stage_frame_(stage_frame(config, grid_)),
        halo_(state_halo_plan(grid_, stage_frame_)),
        layout_(halo_.layout),
        backend_(backend_of(config.run.executor)),
        fs_(layout_.field_elements()),
        bytes_(static_cast<std::size_t>(4 * fs_) * sizeof(double)),
        cell_(euler_cell_size(config)),
        rank_(rank_in(communicator)),
        alone_(ranks_in(communicator) == 1),
        collectives_(communicator, config.run.exchange_timeout),
        buffers_(bytes_, backend_),
        host_clock_(buffers_.mirror.as<const kernels::EulerClock>()),
        initial_(loaded(euler::initial_state(config, grid_, layout_))),
        exchanges_(make_exchanges(communicator)),
        cfl_comm_(communicator, config.run.exchange_timeout),
        frame_(euler::step_plan(plan_inputs()), config.run.executor, config.run.frame_options()),
        cfl_frame_(euler::cfl_plan(plan_inputs()), config.run.executor,
                   config.run.frame_options()) {
    start();
  }

  int step(int step_index, int steps, int /*most*/, CUstream_st* stream) override {
    if (stopped_) return 1;  // the end time was reached: the rest are no-ops
    if (launched_ == 0 && host_clock_->frames != frames_expected_) {
      // Other frames of this plan moved the state and the clock: start from the initial state.
      load_initial();
      start();
    }
    frame_.launch(stream);
    ++launched_;
    if (--until_look_ == 0 || step_index == steps - 1) look();
    return 1;
  }

  void settle() override {
    frame_.wait();
    cfl_frame_.wait();
    look();
  }

  void reset() override {
    stopped_ = false;
    until_look_ = 1;
    looked_ = {};
    sampled_ = 0;
    output_taken_ = -1;
    load_initial();
    start();
  }

  std::vector<Frame*> frames() override { return {&frame_, &cfl_frame_}; }
  [[nodiscard]] const FramePlan* step_plan() const override { return &frame_.plan(); }
  [[nodiscard]] Coord3 process_grid() const override { return grid_.process_grid(); }

  [[nodiscard]] bool has_field() const override { return true; }

  // Finite volumes: the values are the cells' averages, cell (i, j) spanning [i dx, (i+1) dx] x
  // [j dy, (j+1) dy]. ParaView gets the primitive variables and the Mach number; the step is the
  // steps that advanced the state (with t_end, the later steps are no-ops).
  void output(int /*done*/) override {
    if (host_clock_->steps_taken == output_taken_) return;
    output_taken_ = host_clock_->steps_taken;
    OwnedField out{.step = static_cast<int>(host_clock_->steps_taken),
                   .time = host_clock_->time,
                   .dimensions = 2,
                   .centring = Centring::cells,
                   .spacing = {cell_[0], cell_[1], 1.0}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_samples[axis] = grid_.spec().global_cells[axis];
      out.offset[axis] = grid_.global_offset()[axis];
      out.samples[axis] = layout_.owned[axis];
    }
    out.arrays = euler::primitive_arrays(state_now(), grid_, layout_, config_.gamma);
    config_.run.tell().field(out);
  }

  // The clock as the last look saw it: no wait of its own (a GPU run looks every few steps).
  void sample(int done) override {
    const bool due = done == config_.run.steps || done % std::max(config_.run.sample_every, 1) == 0;
    if (!due || looked_.steps_taken <= sampled_) return;
    sampled_ = looked_.steps_taken;
    config_.run.tell().sample(
        {.step = static_cast<int>(looked_.steps_taken), .time = looked_.time, .dt = looked_.dt});
  }

  [[nodiscard]] bool saves_state() const override { return true; }

  // The owned cells of U's four fields (x fastest), then time, the next step's wave speed and the
  // steps taken, so that a restart continues bitwise. Not the ghosts, whose depth depends on
  // exchange_every (a checkpoint restarts under either), nor the stage fields: every stage writes
  // each cell the next one reads before it reads it (the exchange or the stage before, and the
  // walls), so what they hold between steps is never read.
  std::vector<unsigned char> save() override {
    const std::vector<double> owned = owned_cells(state_now());
    const std::size_t owned_bytes = owned.size() * sizeof(double);
    std::vector<unsigned char> state(owned_bytes + 3 * sizeof(double));
    std::memcpy(state.data(), owned.data(), owned_bytes);
    const double scalars[3] = {host_clock_->time, double_of(reduced_now().speed_bits),
                               static_cast<double>(host_clock_->steps_taken)};
    std::memcpy(state.data() + owned_bytes, scalars, sizeof(scalars));
    return state;
  }

  // Also the state of checkpoints written before 2026-12-02 (U, S1 and S2 whole, with their two
  // ghost layers, then the same three scalars): its owned cells of U restart bitwise, as the
  // stage fields are never read before a stage rewrites them.
  void restart_at(int step, const std::vector<unsigned char>& state) override {
    const std::size_t owned_bytes = static_cast<std::size_t>(4 * owned_count()) * sizeof(double);
    const FieldLayout earlier = make_halo_plan(grid_, kStencil, kGhosts, 4).layout;
    const std::size_t earlier_bytes =
        static_cast<std::size_t>(4 * earlier.field_elements()) * sizeof(double);
    const bool whole_fields = state.size() == 3 * earlier_bytes + 3 * sizeof(double);
    if (!whole_fields) check_state_size("euler2d", state.size(), owned_bytes + 3 * sizeof(double));
    std::vector<double> owned(static_cast<std::size_t>(4 * owned_count()));
    std::size_t scalars_at = owned_bytes;
    if (whole_fields) {
      std::vector<double> u(static_cast<std::size_t>(4 * earlier.field_elements()));
      std::memcpy(u.data(), state.data(), earlier_bytes);
      owned = owned_cells(u, earlier);
      scalars_at = 3 * earlier_bytes;
    } else {
      std::memcpy(owned.data(), state.data(), owned_bytes);
    }
    // U's ghosts as in the initial state (a valid gas: each is rewritten before a stage reads
    // it), and the stage fields the same as U (never read before a stage rewrites them).
    upload_state(with_owned(initial_, owned));
    double scalars[3] = {0, 0, 0};
    std::memcpy(scalars, state.data() + scalars_at, sizeof(scalars));
    // The clock counts frames from the restart step, so a bad state names the same step.
    set_clock(scalars[0], static_cast<long long>(scalars[2]), step, scalars[1]);
    stopped_ = false;
    until_look_ = 1;
    looked_ = *host_clock_;
    sampled_ = looked_.steps_taken;
  }

  [[nodiscard]] std::optional<int> steps_advanced() const override {
    return static_cast<int>(host_clock_->steps_taken);
  }

  //! The sums of the conserved fields (and of their magnitudes) over the initial state.
  //! Collective.
  [[nodiscard]] std::array<double, 8> initial_totals() const {
    return euler::conserved_totals(initial_, grid_, layout_, cell_[0] * cell_[1], collectives_);
  }

  //! What the run found: the clock, the conserved totals at the end against `initial`, the
  //! density errors against the exact solution and (with run.gather) the fields on rank 0.
  //! Collective.
  void finish(const std::array<double, 8>& initial, EulerResult& result) const {
    const kernels::EulerClock final_clock = *host_clock_;
    const double time = final_clock.time;
    result.steps_taken = static_cast<int>(final_clock.steps_taken);
    result.final_time = time;
    const double cell_count = static_cast<double>(config_.nx) * static_cast<double>(config_.ny);
    if (stage_frame_) {
      // Every rank's redundant cells (collective), and their share of a step's owned work.
      const std::int64_t redundant = stage_frame_->redundant_cells();
      collectives_.allreduce(&redundant, &result.redundant_cells_per_step, 1, MPI_INT64_T, MPI_SUM,
                             "euler2d redundant cells");
      result.redundant_fraction =
          static_cast<double>(result.redundant_cells_per_step) / (cell_count * config_.stages);
    }
    // What a step must move: the first stage reads its input and writes its output, every later
    // stage also reads U, and the CFL monitor reads U once (4 fields each).
    const double fields_moved = 2.0 + 3.0 * (config_.stages - 1) + 1.0;
    result.bytes_per_step = fields_moved * 4.0 * cell_count * sizeof(double);

    const std::vector<double> q = state_now();
    const auto final_totals =
        euler::conserved_totals(q, grid_, layout_, cell_[0] * cell_[1], collectives_);
    for (std::size_t f = 0; f < 4; ++f) {
      result.totals_initial[f] = initial[f];
      result.totals_final[f] = final_totals[f];
      result.totals_scale[f] = initial[f + 4];
    }

    if (config_.problem != EulerCase::kelvin_helmholtz) {
      result.has_exact = true;
      euler::density_errors(config_, q, time, grid_, layout_, collectives_, result);
    }

    if (config_.run.gather) {
      for (std::int64_t f = 0; f < 4; ++f) {
        Buffer one(Memory::device, static_cast<std::size_t>(fs_) * sizeof(double), "euler2d field",
                   Backend::cpu);
        one.upload(q.data() + f * fs_, static_cast<std::size_t>(fs_) * sizeof(double));
        const std::vector<double> global = gather_global<double>(one, layout_, grid_, collectives_);
        result.field.insert(result.field.end(), global.begin(), global.end());
      }
    }
  }

  // Every stage's exchange (or the step's one) goes to the same neighbours: the first says it.
  [[nodiscard]] std::vector<HaloRoute> halo_routes() const override {
    return exchanges_.empty() ? std::vector<HaloRoute>{} : exchanges_.front().routes();
  }

 private:
  //! `initial` loaded into U and the stage fields with the clock at 0, returned.
  std::vector<double> loaded(std::vector<double> initial) {
    upload_state(initial);
    return initial;
  }

  void load_initial() { upload_state(initial_); }

  void upload_state(const std::vector<double>& state) {
    buffers_.u.upload(state.data(), bytes_);
    buffers_.s1.upload(state.data(), bytes_);
    buffers_.s2.upload(state.data(), bytes_);
    set_clock(0, 0, 0, 0);
  }

  // Sets the clock (time, steps taken, frames) and the wave speed its next step starts from.
  void set_clock(double time, long long steps_taken, long long frames, double speed) {
    frames_expected_ = frames;
    launched_ = 0;
    const kernels::EulerClock c{.time = time, .steps_taken = steps_taken, .frames = frames};
    buffers_.clock.upload(&c, sizeof c);
    std::memcpy(buffers_.mirror.data(), &c, sizeof c);
    const kernels::EulerMonitor m{.speed_bits = bits_of(speed), .first_bad = ~0ULL};
    if (alone_) {
      buffers_.monitor.upload(&m, sizeof m);
    } else {
      std::memcpy(buffers_.pinned_reduced(), &m, sizeof m);
    }
  }

  //! One exchange a stage, of its input ("stageK.halo"); or one a step, of U ("halo").
  std::vector<HaloExchange<double>> make_exchanges(MPI_Comm communicator) const {
    std::vector<HaloExchange<double>> exchanges;
    if (stage_frame_) {
      exchanges.emplace_back(halo_, communicator,
                             std::vector<std::vector<double*>>{euler::fields_of(buffers_.u, fs_)},
                             backend_,
                             ExchangeOptions{.exchange_id = 0,
                                             .timeout = config_.run.exchange_timeout,
                                             .transport = config_.run.transport,
                                             .self_on_device = config_.run.self_on_device,
                                             .name = "halo"});
      return exchanges;
    }
    exchanges.reserve(static_cast<std::size_t>(config_.stages));
    for (int k = 0; k < config_.stages; ++k) {
      exchanges.emplace_back(halo_, communicator,
                             std::vector<std::vector<double*>>{euler::fields_of(
                                 *buffers_.inputs()[static_cast<std::size_t>(k)], fs_)},
                             backend_,
                             ExchangeOptions{.exchange_id = k,
                                             .timeout = config_.run.exchange_timeout,
                                             .transport = config_.run.transport,
                                             .self_on_device = config_.run.self_on_device,
                                             .name = fmt::format("stage{}.halo", k)});
    }
    return exchanges;
  }

  euler::PlanInputs plan_inputs() {
    return {.config = config_,
            .grid = grid_,
            .layout = layout_,
            .buffers = buffers_,
            .exchanges = exchanges_,
            .cfl_comm = cfl_comm_.get(),
            .alone = alone_,
            .step_frame = stage_frame_ ? &*stage_frame_ : nullptr};
  }

  [[nodiscard]] std::int64_t owned_count() const { return layout_.owned[0] * layout_.owned[1]; }

  //! The owned cells of the four fields of `state` (laid out as U), field by field, x fastest.
  [[nodiscard]] std::vector<double> owned_cells(const std::vector<double>& state) const {
    return owned_cells(state, layout_);
  }

  //! The same of a state laid out as `layout` (the same owned cells, other ghosts).
  [[nodiscard]] std::vector<double> owned_cells(const std::vector<double>& state,
                                                const FieldLayout& layout) const {
    std::vector<double> owned(static_cast<std::size_t>(4 * owned_count()));
    const std::int64_t fs = layout.field_elements();
    std::size_t next = 0;
    euler::for_owned_cells(grid_, layout, [&](std::int64_t at, std::int64_t, std::int64_t) {
      for (std::size_t f = 0; f < 4; ++f) {
        owned[next + f * static_cast<std::size_t>(owned_count())] =
            state[static_cast<std::size_t>(at + static_cast<std::int64_t>(f) * fs)];
      }
      ++next;
    });
    return owned;
  }

  //! `state` (laid out as U) with its owned cells replaced by `owned` (as owned_cells gives them).
  [[nodiscard]] std::vector<double> with_owned(std::vector<double> state,
                                               const std::vector<double>& owned) const {
    std::size_t next = 0;
    euler::for_owned_cells(grid_, layout_, [&](std::int64_t at, std::int64_t, std::int64_t) {
      for (std::size_t f = 0; f < 4; ++f) {
        state[static_cast<std::size_t>(at + static_cast<std::int64_t>(f) * fs_)] =
            owned[next + f * static_cast<std::size_t>(owned_count())];
      }
      ++next;
    });
    return state;
  }

  //! U (ghosts included), downloaded.
  [[nodiscard]] std::vector<double> state_now() const {
    std::vector<double> q(static_cast<std::size_t>(4 * fs_));
    buffers_.u.download(q.data(), bytes_);
    return q;
  }

  // Names the first bad cell (on every rank) and throws; `bad_step` is the step whose result was
  // bad (-1: the initial state). Collective.
  void report_bad_state(long long bad_step) const {
    kernels::EulerMonitor m{};
    buffers_.monitor.download(&m, sizeof m);
    euler::report_bad_state(config_, grid_, layout_, rank_, m.first_bad, bad_step, collectives_,
                            [&] { return state_now(); });
  }

  // The wave speed and bad flag of the current state over all ranks, as the next clock reads it.
  [[nodiscard]] kernels::EulerMonitor reduced_now() const {
    kernels::EulerMonitor m{};
    if (alone_) {
      buffers_.monitor.download(&m, sizeof m);
    } else {
      std::memcpy(&m, buffers_.pinned_reduced(), sizeof m);
    }
    return m;
  }

  void start() {
    cfl_frame_.run();
    if (reduced_now().first_bad != ~0ULL) report_bad_state(-1);
  }

  void look() {
    frame_.wait();
    const kernels::EulerClock c = *host_clock_;
    looked_ = c;
    if (c.state == kernels::kBadState) report_bad_state(c.bad_after);
    stopped_ = c.state != kernels::kRunning || (config_.t_end > 0 && c.time >= config_.t_end);
    until_look_ = backend_ == Backend::cpu ? 1 : kClockLookEvery;
    if (config_.t_end > 0 && c.dt > 0) {  // look again about when the end time is reached
      const double remaining = std::floor((config_.t_end - c.time) / c.dt);
      until_look_ = static_cast<int>(std::clamp(remaining, 1.0, static_cast<double>(until_look_)));
    }
  }

  const EulerConfig& config_;
  const CartesianDecomposition grid_;
  const std::optional<StepFrame> stage_frame_;  // exchange_every = step: the stages' frame
  const HaloPlan halo_;
  const FieldLayout& layout_;
  const Backend backend_;
  const std::int64_t fs_;
  const std::size_t bytes_;
  const std::array<double, 2> cell_;  // dx, dy
  const int rank_;
  const bool alone_;
  const BoundedCollectives collectives_;
  euler::StateBuffers buffers_;
  const kernels::EulerClock* host_clock_;
  // The clock's frame count with no step frame of this run in flight, and the frames launched
  // since the clock was set: a count that does not match at the first launch means that frames
  // built from this plan elsewhere (the overlap measurement's) ran the clock since.
  long long frames_expected_ = 0;
  long long launched_ = 0;
  const std::vector<double> initial_;
  std::vector<HaloExchange<double>> exchanges_;
  const euler::OwnComm cfl_comm_;
  Frame frame_;
  Frame cfl_frame_;
  bool stopped_ = false;
  int until_look_ = 1;
  kernels::EulerClock looked_{};  // the clock the last look saw, for RunListener::sample
  long long sampled_ = 0;         // the steps taken that RunListener::sample has been told of
  long long output_taken_ = -1;   // the steps taken at the last output: after t_end, no repeats
};

}  // namespace

EulerExchangeChoice choose_euler_exchange(const EulerConfig& config, MPI_Comm communicator) {
  euler::validate(config);
  EulerExchangeChoice choice;
  if (euler::one_exchange_refusal(decompose(config, communicator), config.stages)) {
    choice.why_not =
        fmt::format("a rank's share is too thin for ghosts {} deep", kGhosts * config.stages);
    return choice;
  }
  // One configuration each, alive while its trial's state refers to it.
  std::array<EulerConfig, 2> trials{config, config};
  trials[0].exchange_every = ExchangeEvery::stage;
  trials[1].exchange_every = ExchangeEvery::step;
  std::vector<MeasuredCandidate> candidates;
  for (const EulerConfig& trial : trials) {
    candidates.push_back({.build = [&trial, communicator] {
      return std::make_unique<EulerStepping>(trial, communicator);
    }});
  }
  const MeasuredChoice measured =
      choose_by_measuring(config.run, communicator, candidates, kStepsPerFrameTolerance);
  choice.chosen = trials[measured.chosen].exchange_every;
  choice.seconds_per_step = measured.seconds_per_step;
  choice.steps_timed = measured.steps_timed;
  choice.seconds = measured.seconds;
  if (choice.seconds_per_step.empty()) choice.why_not = "the run ends within the measurement";
  return choice;
}

EulerResult run_euler2d(const EulerConfig& asked, MPI_Comm communicator) {
  std::optional<EulerExchangeChoice> chosen;
  EulerConfig config = asked;
  if (asked.exchange_every == ExchangeEvery::automatic) {
    chosen = choose_euler_exchange(asked, communicator);
    config.exchange_every = chosen->chosen;
  }
  EulerStepping state(config, communicator);
  const std::array<double, 8> initial_totals = state.initial_totals();
  EulerResult result;
  result.process_grid = state.process_grid();
  const std::array<double, 2> cell = euler_cell_size(config);
  result.dx = cell[0];
  result.dy = cell[1];
  result.times = run_timed_steps(config.run, communicator, state);
  state.finish(initial_totals, result);
  result.exchange_auto = std::move(chosen);
  return result;
}

int euler_ghost_depth(const EulerConfig& config) {
  return config.exchange_every == ExchangeEvery::step ? kGhosts * config.stages : kGhosts;
}

}  // namespace haloflow::models
