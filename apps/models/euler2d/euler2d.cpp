// euler2d on the engine: one frame per step, the clock first (the step's dt on the device), then
// one exchange / walls / interior / boundary round per Runge-Kutta stage and the CFL monitor at
// the end (reduced over the ranks in a host node); nothing patched, no wait per step.

#include "euler2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <utility>

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
#include "riemann_exact.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

constexpr int kGhosts = 2;  // MUSCL reads two cells on each side of a face pair
constexpr Stencil kStencil{StencilShape::star, 2};

CartesianDecomposition decompose(const EulerConfig& c, MPI_Comm communicator) {
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {c.nx, c.ny, 1};
  if (c.problem == EulerCase::sod_x) spec.boundary[0] = Boundary::physical;
  if (c.problem == EulerCase::sod_y) spec.boundary[1] = Boundary::physical;
  return haloflow::decompose(communicator, spec);  // process grid from MPI_Dims_create
}

//! Calls each(storage offset, global i, global j) for every owned cell.
template <class Each>
void for_owned_cells(const CartesianDecomposition& grid, const FieldLayout& layout, Each&& each) {
  const Box owned = layout.owned_box();
  const Index3 offset = grid.global_offset();
  for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
    for (std::int64_t i = owned.lo[0]; i < owned.hi[0]; ++i) {
      each(layout.offset(i, j, 0), offset[0] + i - owned.lo[0], offset[1] + j - owned.lo[1]);
    }
  }
}

//! Kahan sums of the four conserved fields over the owned cells, times the cell area, reduced
//! over the ranks; and the sums of their absolute values.
std::array<double, 8> conserved_totals(const std::vector<double>& q, std::int64_t fs,
                                       const CartesianDecomposition& grid,
                                       const FieldLayout& layout, double area,
                                       const BoundedCollectives& collectives) {
  std::array<double, 8> sums{};
  std::array<double, 8> compensation{};
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t, std::int64_t) {
    for (std::size_t f = 0; f < 4; ++f) {
      const double value = q[static_cast<std::size_t>(at + static_cast<std::int64_t>(f) * fs)];
      for (const std::size_t k : {f, f + 4}) {
        const double add = (k < 4 ? value : std::abs(value)) - compensation[k];
        const double next = sums[k] + add;
        compensation[k] = (next - sums[k]) - add;
        sums[k] = next;
      }
    }
  });
  std::array<double, 8> total{};
  collectives.allreduce(sums.data(), total.data(), 8, MPI_DOUBLE, MPI_SUM,
                        "euler2d conserved totals");
  for (double& value : total) value *= area;
  return total;
}

//! Steps a GPU run queues between looks at the clock (one wait each): few enough that a run to
//! an end time launches at most this many steps too many (the clock makes them no-ops), many
//! enough that the wait costs nothing measurable. The host executor looks after every step.
constexpr int kClockLookEvery = 32;
//! Rows each thread of the monitor reduces: fewer blocks, so fewer atomics on the one result
//! (tools/euler-kernel-lab.cu).
constexpr unsigned kMonitorRowsPerThread = 16;

std::uint64_t bits_of(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

double double_of(std::uint64_t bits) {
  return std::bit_cast<double>(bits);
}

//! The body of the `cfl.allreduce` host node on multi-rank runs: the largest wave speed and
//! whether any rank has a bad cell, from this rank's monitor (copied to `mine`) into `all`, which
//! the next frame's clock reads. Nonblocking with a deadline, so that a rank that stopped ends
//! the run with an error instead of a hang.
void reduce_cfl(const kernels::EulerMonitor& mine, kernels::EulerMonitor& all, MPI_Comm comm,
                std::chrono::duration<double> timeout) {
  const double in[2] = {double_of(mine.speed_bits), mine.first_bad != ~0ULL ? 1.0 : 0.0};
  double out[2] = {0, 0};
  BoundedCollectives(comm, timeout)
      .allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, "euler2d cfl.allreduce (the time step)");
  all.speed_bits = bits_of(out[0]);
  all.first_bad = out[1] > 0 ? 0ULL : ~0ULL;
}

//! A duplicate of the model's communicator for the host node's reduction, freed on scope exit.
class OwnComm {
 public:
  //! Collective over `parent`, bounded by `timeout` as every collective of a run.
  OwnComm(MPI_Comm parent, std::chrono::duration<double> timeout) {
    MPI_Request request = MPI_REQUEST_NULL;
    HALOFLOW_MPI(MPI_Comm_idup(parent, &comm_, &request), "euler2d's time-step communicator");
    wait_for_collective(request, parent, "MPI_Comm_idup", "euler2d's time-step communicator",
                        timeout);
  }
  ~OwnComm() { MPI_Comm_free(&comm_); }
  OwnComm(const OwnComm&) = delete;
  OwnComm& operator=(const OwnComm&) = delete;
  OwnComm(OwnComm&&) = delete;
  OwnComm& operator=(OwnComm&&) = delete;
  [[nodiscard]] MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace

EulerResult run_euler2d(const EulerConfig& config, MPI_Comm communicator) {
  euler::validate(config);
  const CartesianDecomposition grid = decompose(config, communicator);
  const HaloPlan halo = make_halo_plan(grid, kStencil, kGhosts, 4);
  const FieldLayout& layout = halo.layout;
  const Backend backend = backend_of(config.run.executor);
  const std::int64_t fs = layout.field_elements();
  const auto bytes = static_cast<std::size_t>(4 * fs) * sizeof(double);
  const std::array<double, 2> size = euler::domain(config);
  const double dx = size[0] / static_cast<double>(config.nx);
  const double dy = size[1] / static_cast<double>(config.ny);
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "euler2d");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "euler2d");
  const BoundedCollectives collectives(communicator, config.run.exchange_timeout);

  // U: the state; S1, S2: the stages' results (SSP-RK2 uses S1 only).
  Buffer u(Memory::device, bytes, "euler2d U", backend);
  Buffer s1(Memory::device, bytes, "euler2d stage 1", backend);
  Buffer s2(Memory::device, bytes, "euler2d stage 2", backend);
  // The monitor's reduction of the current frame; on multi-rank runs its copy and the reduction
  // over the ranks (pinned, the host node's input and output); the clock, the step's dt for the
  // stages, and the clock's mirror the host reads.
  Buffer monitor(Memory::device, sizeof(kernels::EulerMonitor), "euler2d monitor", backend);
  Buffer monitor_host(Memory::host, sizeof(kernels::EulerMonitor), "euler2d monitor (pinned)",
                      backend);
  Buffer reduced_host(Memory::host, sizeof(kernels::EulerMonitor),
                      "euler2d monitor over the ranks (pinned)", backend);
  Buffer clock(Memory::device, sizeof(kernels::EulerClock), "euler2d clock", backend);
  Buffer step_buffer(Memory::device, sizeof(kernels::EulerStep), "euler2d step", backend);
  Buffer mirror(Memory::host, sizeof(kernels::EulerClock), "euler2d clock (pinned)", backend);
  auto* device_monitor = monitor.as<kernels::EulerMonitor>();
  auto* pinned_monitor = monitor_host.as<kernels::EulerMonitor>();
  auto* pinned_reduced = reduced_host.as<kernels::EulerMonitor>();
  // One rank: the clock reads the device monitor itself; more: the reduction over the ranks.
  const bool alone = ranks == 1;
  kernels::EulerMonitor* reduced = alone ? device_monitor : pinned_reduced;
  const auto* host_clock = mirror.as<const kernels::EulerClock>();

  std::vector<double> initial(static_cast<std::size_t>(4 * fs), 1.0);  // ghosts: a valid gas
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
    const euler::Primitive w = euler::initial_at(config, (static_cast<double>(i) + 0.5) * dx,
                                                 (static_cast<double>(j) + 0.5) * dy, size);
    const double values[4] = {w.rho, w.rho * w.u, w.rho * w.v,
                              w.p / (config.gamma - 1.0) + 0.5 * w.rho * (w.u * w.u + w.v * w.v)};
    for (std::int64_t f = 0; f < 4; ++f) initial[static_cast<std::size_t>(at + f * fs)] = values[f];
  });
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
    clock.upload(&c, sizeof c);
    std::memcpy(mirror.data(), &c, sizeof c);
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

  const auto fields_of = [&](const Buffer& b) {
    double* base = b.as<double>();
    return std::vector<double*>{base, base + fs, base + 2 * fs, base + 3 * fs};
  };
  const int stages = config.stages;
  // Weights b of out = U + b ((in - D) - U) after the first stage (out = U - D): SSP-RK3's
  // (3/4, 1/4) and (1/3, 2/3) Shu-Osher pairs become b = 1/4 and 2/3, SSP-RK2's (1/2, 1/2) b = 1/2.
  const std::array<double, 3> weights = stages == 3 ? std::array<double, 3>{1.0, 0.25, 2.0 / 3.0}
                                                    : std::array<double, 3>{1.0, 0.5, 0};
  const Buffer* inputs[3] = {&u, &s1, &s2};
  const Buffer* outputs[3] = {&s1, stages == 3 ? &s2 : &u, &u};

  std::vector<HaloExchange<double>> exchanges;
  exchanges.reserve(static_cast<std::size_t>(stages));
  for (int k = 0; k < stages; ++k) {
    exchanges.emplace_back(halo, communicator,
                           std::vector<std::vector<double*>>{fields_of(*inputs[k])}, backend,
                           ExchangeOptions{.exchange_id = k,
                                           .timeout = config.run.exchange_timeout,
                                           .transport = config.run.transport,
                                           .self_on_device = config.run.self_on_device,
                                           .name = fmt::format("stage{}.halo", k)});
  }

  // Zero-gradient ghosts on the physical sides this rank touches.
  struct Wall {
    std::string side;
    kernels::CellBox box;
    kernels::EulerWall wall;
  };
  std::vector<Wall> walls;
  {
    const Box owned = layout.owned_box();
    const Index3 offset = grid.global_offset();
    for (int axis = 0; axis < 2; ++axis) {
      const auto a = static_cast<std::size_t>(axis);
      if (grid.spec().boundary[a] != Boundary::physical) continue;
      const char* names[2] = {axis == 0 ? "x-" : "y-", axis == 0 ? "x+" : "y+"};
      for (int high = 0; high < 2; ++high) {
        const bool touches =
            high == 0 ? offset[a] == 0 : offset[a] + layout.owned[a] == grid.spec().global_cells[a];
        if (!touches) continue;
        Box ghosts = owned;
        ghosts.lo[a] = high == 0 ? owned.lo[a] - kGhosts : owned.hi[a];
        ghosts.hi[a] = ghosts.lo[a] + kGhosts;
        walls.push_back({names[high],
                         cell_box(ghosts, layout),
                         {.axis = axis,
                          .edge = high == 0 ? owned.lo[a] : owned.hi[a] - 1,
                          .field_stride = fs}});
      }
    }
  }

  const kernels::EulerMonitorParams monitor_params{
      .inv_dx = 1.0 / dx, .inv_dy = 1.0 / dy, .gamma = config.gamma, .field_stride = fs};
  const kernels::CellBox owned_cells = cell_box(layout.owned_box(), layout);
  const OwnComm cfl_comm(communicator, config.run.exchange_timeout);
  // The monitor over U after `after`; on multi-rank runs its copy to pinned memory and the host
  // node that reduces it over the ranks for the next frame's clock.
  const auto add_monitor = [&](FramePlan& plan, std::vector<std::string> after) {
    // The communication lane: a frame of that lane alone (the overlap measurement) then still
    // reduces what its clock resets, and its next clock gets a finite dt.
    plan.add_kernel({.name = "cfl.reduce", .lane = Lane::communication, .after = std::move(after)},
                    kernels::euler_monitor_kernel(), box_launch(owned_cells, kMonitorRowsPerThread),
                    owned_cells, monitor_params, u.as<const double>(), device_monitor);
    if (alone) return;
    plan.add_copy({.name = "cfl.download", .lane = Lane::communication, .after = {"cfl.reduce"}},
                  monitor_host.view(), monitor.view(), sizeof(kernels::EulerMonitor));
    plan.add_host({.name = "cfl.allreduce", .lane = Lane::communication, .after = {"cfl.download"}},
                  [pinned_monitor, pinned_reduced, comm = cfl_comm.get(),
                   timeout = config.run.exchange_timeout] {
                    reduce_cfl(*pinned_monitor, *pinned_reduced, comm, timeout);
                  });
  };

  FramePlan plan("euler2d");
  auto* step = step_buffer.as<kernels::EulerStep>();
  plan.add_kernel(
      {.name = "cfl.clock", .lane = Lane::communication}, kernels::euler_clock_kernel(),
      LaunchShape::fixed(1, 1),
      kernels::EulerClockParams{.cfl = config.cfl, .t_end = config.t_end, .dx = dx, .dy = dy},
      static_cast<const kernels::EulerMonitor*>(reduced), device_monitor,
      clock.as<kernels::EulerClock>(), step, mirror.as<kernels::EulerClock>());
  const kernels::EulerStageKernel stage_kernel =
      kernels::euler_stage_kernel(config.limiter, config.flux);
  const CellSplit cells = split_update(layout.owned_box(), layout, kStencil);
  std::vector<std::string> previous;  // the last stage's compute nodes
  for (int k = 0; k < stages; ++k) {
    const auto sk = static_cast<std::size_t>(k);
    const kernels::EulerStage stage{
        .b = weights[sk], .first = k == 0 ? 1 : 0, .gamma = config.gamma, .field_stride = fs};
    const ExchangeNodes nodes = exchanges[sk].add_to(plan, previous);
    // The stages read the clock's dt: the first stage after it, the later ones through it.
    std::vector<std::string> after = k == 0 ? std::vector<std::string>{"cfl.clock"} : previous;
    std::vector<std::string> ready = after;
    ready.push_back(nodes.unpack);
    for (const Wall& w : walls) {
      const std::string name = fmt::format("stage{}.wall.{}", k, w.side);
      plan.add_kernel({.name = name, .lane = Lane::communication, .after = previous},
                      kernels::euler_wall_kernel(), box_launch(w.box), w.box, w.wall,
                      inputs[k]->as<double>());
      ready.push_back(name);
    }
    std::vector<std::string> computed;
    const auto add_stage = [&](const Box& box, NodeOptions options) {
      if (box.empty()) return;
      const kernels::CellBox cell = cell_box(box, layout);
      computed.push_back(options.name);
      plan.add_kernel(std::move(options), stage_kernel, kernels::euler_stage_launch(cell), cell,
                      stage, static_cast<const kernels::EulerStep*>(step), u.as<const double>(),
                      inputs[k]->as<const double>(), outputs[k]->as<double>());
    };
    add_stage(cells.interior, {.name = fmt::format("stage{}.interior", k), .after = after});
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      add_stage(cells.boundary[i], {.name = fmt::format("stage{}.boundary.{}", k, i),
                                    .lane = Lane::communication,
                                    .after = ready});
    }
    previous = std::move(computed);
  }
  add_monitor(plan, previous);
  Frame frame(std::move(plan), config.run.executor, config.run.frame_options());
  // The initial state's monitor: reset, reduce (and the reduction over the ranks).
  FramePlan cfl_plan("euler2d cfl");
  cfl_plan.add_kernel({.name = "cfl.reset"}, kernels::euler_monitor_reset_kernel(),
                      LaunchShape::fixed(1, 1), device_monitor);
  add_monitor(cfl_plan, {"cfl.reset"});
  Frame cfl_frame(std::move(cfl_plan), config.run.executor, config.run.frame_options());

  // Names the first bad cell (on every rank) and throws; `step` is the step whose result was
  // bad (-1: the initial state). Collective.
  const auto report_bad_state = [&](long long bad_step) {
    kernels::EulerMonitor m{};
    monitor.download(&m, sizeof m);
    const int candidate = m.first_bad != ~0ULL ? rank : INT_MAX;
    int first = 0;
    collectives.allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN,
                          "euler2d bad state (the first rank with one)");
    double info[4] = {0, 0, 0, 0};  // global i, j, density, pressure
    if (rank == first) {
      const auto at = static_cast<std::int64_t>(m.first_bad);
      const Index3 extent = layout.extent();
      const std::int64_t li = at % extent[0];
      const std::int64_t lj = at / extent[0] % extent[1];
      std::vector<double> q(static_cast<std::size_t>(4 * fs));
      u.download(q.data(), bytes);
      const auto value = [&](std::int64_t f) { return q[static_cast<std::size_t>(at + f * fs)]; };
      const double rho = value(0);
      info[0] = static_cast<double>(grid.global_offset()[0] + li - kGhosts);
      info[1] = static_cast<double>(grid.global_offset()[1] + lj - kGhosts);
      info[2] = rho;
      info[3] = (config.gamma - 1.0) *
                (value(3) - 0.5 * (value(1) * value(1) + value(2) * value(2)) / rho);
    }
    collectives.broadcast(info, 4, MPI_DOUBLE, first, "euler2d bad state (its cell)");
    throw Error(fmt::format(
        "euler2d: step {}, rank {}, cell ({}, {}): density {}, pressure {} (a negative density "
        "or pressure, or a NaN, stops the run; try a smaller --cfl)",
        bad_step, first, static_cast<long long>(info[0]), static_cast<long long>(info[1]), info[2],
        info[3]));
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
  hooks.step = [&](int step_index, int steps, CUstream_st* stream) {
    if (stopped) return;  // the end time was reached: the rest are no-ops
    if (launched == 0 && host_clock->frames != frames_expected) {
      // Other frames of this plan moved the state and the clock: start from the initial state.
      load_initial();
      start();
    }
    frame.launch(stream);
    ++launched;
    if (--until_look == 0 || step_index == steps - 1) look();
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
    FieldArray density{.name = "density", .units = "dimensionless"};
    FieldArray velocity{.name = "velocity", .components = 3, .units = "dimensionless"};
    FieldArray pressure{.name = "pressure", .units = "dimensionless"};
    FieldArray mach{.name = "mach", .units = "dimensionless"};
    for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t, std::int64_t) {
      const auto q = [&](std::int64_t f) { return state[static_cast<std::size_t>(f * fs + at)]; };
      const double rho = q(0);
      const double vx = q(1) / rho;
      const double vy = q(2) / rho;
      const double p = (config.gamma - 1.0) * (q(3) - 0.5 * rho * (vx * vx + vy * vy));
      density.values.push_back(rho);
      velocity.values.insert(velocity.values.end(), {vx, vy, 0.0});
      pressure.values.push_back(p);
      mach.values.push_back(std::sqrt((vx * vx + vy * vy) / (config.gamma * p / rho)));
    });
    out.arrays = {std::move(density), std::move(velocity), std::move(pressure), std::move(mach)};
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
  const auto initial_totals = conserved_totals(initial, fs, grid, layout, area, collectives);
  EulerResult result;
  result.process_grid = grid.process_grid();
  result.dx = dx;
  result.dy = dy;
  result.times = run_timed_steps(config.run, communicator, hooks);
  const kernels::EulerClock final_clock = *host_clock;
  const double time = final_clock.time;
  result.steps_taken = static_cast<int>(final_clock.steps_taken);
  // With t_end, the steps after it are no-ops: report the mean over the steps taken instead.
  if (config.t_end > 0 && result.steps_taken > 0 && result.steps_taken < config.run.steps) {
    result.times.median_step_s = result.times.total_s / result.steps_taken;
    result.times.steps = result.steps_taken;
  }
  result.final_time = time;
  const double cell_count = static_cast<double>(config.nx) * static_cast<double>(config.ny);
  // What a step must move: the first stage reads its input and writes its output, every later
  // stage also reads U, and the CFL monitor reads U once (4 fields each).
  const double fields_moved = 2.0 + 3.0 * (stages - 1) + 1.0;
  result.bytes_per_step = fields_moved * 4.0 * cell_count * sizeof(double);

  std::vector<double> q(static_cast<std::size_t>(4 * fs));
  u.download(q.data(), bytes);
  const auto final_totals = conserved_totals(q, fs, grid, layout, area, collectives);
  for (std::size_t f = 0; f < 4; ++f) {
    result.totals_initial[f] = initial_totals[f];
    result.totals_final[f] = final_totals[f];
    result.totals_scale[f] = initial_totals[f + 4];
  }

  if (config.problem != EulerCase::kelvin_helmholtz) {
    result.has_exact = true;
    const ExactRiemann riemann(euler::kSodLeft, euler::kSodRight, config.gamma);
    const RiemannWaves waves = riemann.waves();
    const bool sod = config.problem == EulerCase::sod_x || config.problem == EulerCase::sod_y;
    double errors[6] = {0, 0, 0, 0, 0, 0};  // sum |e|, sum e^2, |e| by wave (3), max |e|
    for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
      const double x0 = static_cast<double>(i) * dx;
      const double y0 = static_cast<double>(j) * dy;
      const double exact =
          euler::exact_density(config, riemann, size, time, x0, x0 + dx, y0, y0 + dy);
      const double e = std::abs(q[static_cast<std::size_t>(at)] - exact);
      errors[0] += e;
      errors[1] += e * e;
      if (sod && time > 0) {
        const bool along_x = config.problem == EulerCase::sod_x;
        const double centre =
            along_x ? x0 + 0.5 * dx - 0.5 * size[0] : y0 + 0.5 * dy - 0.5 * size[1];
        errors[2 + euler::nearest_wave(waves, centre, time)] += e;
      }
      errors[5] = std::max(errors[5], e);
    });
    double sums[5] = {0, 0, 0, 0, 0};
    double largest = 0;
    collectives.allreduce(errors, sums, 5, MPI_DOUBLE, MPI_SUM, "euler2d error sums");
    collectives.allreduce(&errors[5], &largest, 1, MPI_DOUBLE, MPI_MAX, "euler2d largest error");
    result.error_l1 = sums[0] / cell_count;
    result.error_l2 = std::sqrt(sums[1] / cell_count);
    result.error_linf = largest;
    for (std::size_t w = 0; w < 3; ++w) result.error_l1_waves[w] = sums[2 + w] / cell_count;
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
