// euler2d on the engine: builds the buffers, exchanges and frames (euler2d_frames.cpp: the step's
// clock, Runge-Kutta stages and CFL monitor), then steps them: the host launches steps without
// waiting and looks at the device clock every few steps; nothing patched, no wait per step.
// What is computed from the state on the host (outputs, totals, errors): euler2d_fields.cpp.

#include "euler2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
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
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

using euler::kGhosts;
using euler::kStencil;

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

}  // namespace

EulerResult run_euler2d(const EulerConfig& config, MPI_Comm communicator) {
  euler::validate(config);
  const CartesianDecomposition grid = decompose(config, communicator);
  const HaloPlan halo = make_halo_plan(grid, kStencil, kGhosts, 4);
  const FieldLayout& layout = halo.layout;
  const Backend backend = backend_of(config.run.executor);
  const std::int64_t fs = layout.field_elements();
  const auto bytes = static_cast<std::size_t>(4 * fs) * sizeof(double);
  const std::array<double, 2> cell = euler_cell_size(config);
  const double dx = cell[0];
  const double dy = cell[1];
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "euler2d");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "euler2d");
  const BoundedCollectives collectives(communicator, config.run.exchange_timeout);

  euler::StateBuffers buffers(bytes, backend);
  Buffer& u = buffers.u;
  Buffer& s1 = buffers.s1;
  Buffer& s2 = buffers.s2;
  Buffer& monitor = buffers.monitor;
  auto* pinned_reduced = buffers.pinned_reduced();
  const bool alone = ranks == 1;
  const auto* host_clock = buffers.mirror.as<const kernels::EulerClock>();
  const std::vector<double> initial = euler::initial_state(config, grid, layout);
  // The clock's frame count with no step frame of this run in flight, and the frames launched
  // since the clock was set: a count that does not match at the first launch means that frames
  // built from this plan elsewhere (the overlap measurement's) ran the clock since.
  long long frames_expected = 0;
  long long launched = 0;
  // Sets the clock (time, steps taken, frames) and the wave speed its next step starts from.
  const auto set_clock = [&](double time, long long steps_taken, long long frames, double speed) {
    frames_expected = frames;
    launched = 0;
    const kernels::EulerClock c{.time = time, .steps_taken = steps_taken, .frames = frames};
    buffers.clock.upload(&c, sizeof c);
    std::memcpy(buffers.mirror.data(), &c, sizeof c);
    const kernels::EulerMonitor m{.speed_bits = bits_of(speed), .first_bad = ~0ULL};
    if (alone) {
      monitor.upload(&m, sizeof m);
    } else {
      std::memcpy(pinned_reduced, &m, sizeof m);
    }
  };
  const auto load_initial = [&] {
    u.upload(initial.data(), bytes);
    s1.upload(initial.data(), bytes);
    s2.upload(initial.data(), bytes);
    set_clock(0, 0, 0, 0);
  };
  load_initial();

  std::vector<HaloExchange<double>> exchanges;
  exchanges.reserve(static_cast<std::size_t>(config.stages));
  for (int k = 0; k < config.stages; ++k) {
    exchanges.emplace_back(halo, communicator,
                           std::vector<std::vector<double*>>{euler::fields_of(
                               *buffers.inputs()[static_cast<std::size_t>(k)], fs)},
                           backend,
                           ExchangeOptions{.exchange_id = k,
                                           .timeout = config.run.exchange_timeout,
                                           .transport = config.run.transport,
                                           .self_on_device = config.run.self_on_device,
                                           .name = fmt::format("stage{}.halo", k)});
  }
  const euler::OwnComm cfl_comm(communicator, config.run.exchange_timeout);
  const euler::PlanInputs plan_inputs{.config = config,
                                      .grid = grid,
                                      .layout = layout,
                                      .buffers = buffers,
                                      .exchanges = exchanges,
                                      .cfl_comm = cfl_comm.get(),
                                      .alone = alone};
  Frame frame(euler::step_plan(plan_inputs), config.run.executor, config.run.frame_options());
  Frame cfl_frame(euler::cfl_plan(plan_inputs), config.run.executor, config.run.frame_options());

  // Names the first bad cell (on every rank) and throws; `bad_step` is the step whose result was
  // bad (-1: the initial state). Collective.
  const auto report_bad_state = [&](long long bad_step) {
    kernels::EulerMonitor m{};
    monitor.download(&m, sizeof m);
    euler::report_bad_state(config, grid, layout, rank, m.first_bad, bad_step, collectives, [&] {
      std::vector<double> q(static_cast<std::size_t>(4 * fs));
      u.download(q.data(), bytes);
      return q;
    });
  };
  // The wave speed and bad flag of the current state over all ranks, as the next clock reads it.
  const auto reduced_now = [&] {
    kernels::EulerMonitor m{};
    if (alone) {
      monitor.download(&m, sizeof m);
    } else {
      std::memcpy(&m, pinned_reduced, sizeof m);
    }
    return m;
  };
  const auto start = [&] {
    cfl_frame.run();
    if (reduced_now().first_bad != ~0ULL) report_bad_state(-1);
  };
  start();

  // The host launches steps without waiting and looks at the clock's mirror only every few
  // steps (after a wait, so that every rank sees the same frame's clock and stops at the same
  // step): a bad state throws, a reached end time stops the launches.
  bool stopped = false;
  int until_look = 1;
  kernels::EulerClock looked{};  // the clock the last look saw, for RunOptions::sample
  long long sampled = 0;         // the steps taken that RunOptions::sample has been told of
  long long output_taken = -1;   // the steps taken at the last output: after t_end, no repeats
  const auto look = [&] {
    frame.wait();
    const kernels::EulerClock c = *host_clock;
    looked = c;
    if (c.state == kernels::kBadState) report_bad_state(c.bad_after);
    stopped = c.state != kernels::kRunning || (config.t_end > 0 && c.time >= config.t_end);
    until_look = backend == Backend::cpu ? 1 : kClockLookEvery;
    if (config.t_end > 0 && c.dt > 0) {  // look again about when the end time is reached
      const double remaining = std::floor((config.t_end - c.time) / c.dt);
      until_look = static_cast<int>(std::clamp(remaining, 1.0, static_cast<double>(until_look)));
    }
  };
  StepHooks hooks;
  hooks.step = [&](int step_index, int steps, int /*most*/, CUstream_st* stream) {
    if (stopped) return 1;  // the end time was reached: the rest are no-ops
    if (launched == 0 && host_clock->frames != frames_expected) {
      // Other frames of this plan moved the state and the clock: start from the initial state.
      load_initial();
      start();
    }
    frame.launch(stream);
    ++launched;
    if (--until_look == 0 || step_index == steps - 1) look();
    return 1;
  };
  hooks.settle = [&] {
    frame.wait();
    cfl_frame.wait();
    look();
  };
  hooks.step_plan = &frame.plan();
  hooks.frames = {&frame, &cfl_frame};
  hooks.reset = [&] {
    stopped = false;
    until_look = 1;
    looked = {};
    sampled = 0;
    output_taken = -1;
    load_initial();
    start();
  };
  // Finite volumes: the values are the cells' averages, cell (i, j) spanning [i dx, (i+1) dx] x
  // [j dy, (j+1) dy]. ParaView gets the primitive variables and the Mach number; the step is the
  // steps that advanced the state (with t_end, the later steps are no-ops).
  hooks.output = [&](int /*done*/) {
    if (host_clock->steps_taken == output_taken) return;
    output_taken = host_clock->steps_taken;
    OwnedField out{.step = static_cast<int>(host_clock->steps_taken),
                   .time = host_clock->time,
                   .dimensions = 2,
                   .centring = Centring::cells,
                   .spacing = {dx, dy, 1.0}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_samples[axis] = grid.spec().global_cells[axis];
      out.offset[axis] = grid.global_offset()[axis];
      out.samples[axis] = layout.owned[axis];
    }
    std::vector<double> state(static_cast<std::size_t>(4 * fs));
    u.download(state.data(), bytes);
    out.arrays = euler::primitive_arrays(state, grid, layout, config.gamma);
    config.run.output(out);
  };
  // The clock as the last look saw it: no wait of its own (a GPU run looks every few steps).
  hooks.sample = [&](int done) {
    const bool due = done == config.run.steps || done % std::max(config.run.sample_every, 1) == 0;
    if (!due || looked.steps_taken <= sampled) return;
    sampled = looked.steps_taken;
    config.run.sample(
        {.step = static_cast<int>(looked.steps_taken), .time = looked.time, .dt = looked.dt});
  };
  hooks.process_grid = grid.process_grid();
  hooks.steps_advanced = [&] { return static_cast<int>(host_clock->steps_taken); };
  // U and both stage fields (ghosts included), then time, the next step's wave speed and the
  // steps taken, so that a restart continues bitwise.
  hooks.save = [&] {
    std::vector<unsigned char> state(3 * bytes + 3 * sizeof(double));
    u.download(state.data(), bytes);
    s1.download(state.data() + bytes, bytes);
    s2.download(state.data() + 2 * bytes, bytes);
    const double scalars[3] = {host_clock->time, double_of(reduced_now().speed_bits),
                               static_cast<double>(host_clock->steps_taken)};
    std::memcpy(state.data() + 3 * bytes, scalars, sizeof(scalars));
    return state;
  };
  hooks.load = [&](const std::vector<unsigned char>& state) {
    check_state_size("euler2d", state.size(), 3 * bytes + 3 * sizeof(double));
    u.upload(state.data(), bytes);
    s1.upload(state.data() + bytes, bytes);
    s2.upload(state.data() + 2 * bytes, bytes);
    double scalars[3] = {0, 0, 0};
    std::memcpy(scalars, state.data() + 3 * bytes, sizeof(scalars));
    // The clock counts frames from the restart step, so a bad state names the same step.
    set_clock(scalars[0], static_cast<long long>(scalars[2]), config.run.restart_step, scalars[1]);
    stopped = false;
    until_look = 1;
    looked = *host_clock;
    sampled = looked.steps_taken;
  };

  const double area = dx * dy;
  const auto initial_totals = euler::conserved_totals(initial, grid, layout, area, collectives);
  EulerResult result;
  result.process_grid = grid.process_grid();
  result.dx = dx;
  result.dy = dy;
  result.times = run_timed_steps(config.run, communicator, hooks);
  const kernels::EulerClock final_clock = *host_clock;
  const double time = final_clock.time;
  result.steps_taken = static_cast<int>(final_clock.steps_taken);
  result.final_time = time;
  const double cell_count = static_cast<double>(config.nx) * static_cast<double>(config.ny);
  // What a step must move: the first stage reads its input and writes its output, every later
  // stage also reads U, and the CFL monitor reads U once (4 fields each).
  const double fields_moved = 2.0 + 3.0 * (config.stages - 1) + 1.0;
  result.bytes_per_step = fields_moved * 4.0 * cell_count * sizeof(double);

  std::vector<double> q(static_cast<std::size_t>(4 * fs));
  u.download(q.data(), bytes);
  const auto final_totals = euler::conserved_totals(q, grid, layout, area, collectives);
  for (std::size_t f = 0; f < 4; ++f) {
    result.totals_initial[f] = initial_totals[f];
    result.totals_final[f] = final_totals[f];
    result.totals_scale[f] = initial_totals[f + 4];
  }

  if (config.problem != EulerCase::kelvin_helmholtz) {
    result.has_exact = true;
    euler::density_errors(config, q, time, grid, layout, collectives, result);
  }

  if (config.run.gather) {
    for (std::int64_t f = 0; f < 4; ++f) {
      Buffer one(Memory::device, static_cast<std::size_t>(fs) * sizeof(double), "euler2d field",
                 Backend::cpu);
      one.upload(q.data() + f * fs, static_cast<std::size_t>(fs) * sizeof(double));
      const std::vector<double> global = gather_global<double>(one, layout, grid, collectives);
      result.field.insert(result.field.end(), global.begin(), global.end());
    }
  }
  return result;
}

}  // namespace haloflow::models
