// euler2d on the engine: one frame per step with one exchange / walls / interior / boundary round
// per Runge-Kutta stage and the CFL monitor at the end; the time step patched into every stage
// node before each launch.

#include "euler2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numbers>
#include <utility>

#include "euler_kernels.hpp"
#include "field_gather.hpp"
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

// The isentropic vortex (Shu): mean flow (1, 1), strength 5, on the periodic square [0, 10)^2.
constexpr double kVortexLength = 10.0;
constexpr double kVortexStrength = 5.0;
constexpr double kVortexMean = 1.0;

struct Primitive {
  double rho = 1, u = 0, v = 0, p = 1;
};

void validate(const EulerConfig& c) {
  if (c.nx < 4 || c.ny < 4) {
    throw Error(fmt::format(
        "euler2d cells {} x {}: not allowed; expected at least 4 cells on each axis", c.nx, c.ny));
  }
  if (!(c.cfl > 0) || c.cfl > 4) {
    throw Error(
        fmt::format("euler2d cfl: {} is not allowed; expected a number in (0, 4] (above about 1 "
                    "the scheme is unstable: allowed so that the bad-state stop can be seen)",
                    c.cfl));
  }
  if (c.stages != 2 && c.stages != 3) {
    throw Error(fmt::format(
        "euler2d stages: {} is not allowed; expected 2 (SSP-RK2) or 3 (SSP-RK3)", c.stages));
  }
  if (c.limiter != kernels::kMinmod && c.limiter != kernels::kVanLeer) {
    throw Error(
        fmt::format("euler2d limiter: {} is not allowed; expected 0 (minmod) or 1 (van "
                    "Leer)",
                    c.limiter));
  }
  if (c.flux != kernels::kHllc && c.flux != kernels::kRusanov) {
    throw Error(
        fmt::format("euler2d flux: {} is not allowed; expected 0 (HLLC) or 1 (Rusanov)", c.flux));
  }
  if (!(c.gamma > 1) || c.t_end < 0 || c.run.steps < 1 || c.run.warmup < 0) {
    throw Error(fmt::format(
        "euler2d gamma {}, t_end {}, steps {}, warmup {}: not allowed; expected gamma > 1, "
        "t_end >= 0, at least 1 step, no negative warm-up",
        c.gamma, c.t_end, c.run.steps, c.run.warmup));
  }
}

//! Domain lengths: the vortex's square, the unit square for Kelvin-Helmholtz, and for Sod a tube
//! of length 1 with square cells (the transverse length follows the cell count).
std::array<double, 2> domain(const EulerConfig& c) {
  const auto nx = static_cast<double>(c.nx);
  const auto ny = static_cast<double>(c.ny);
  switch (c.problem) {
    case EulerCase::vortex:
      return {kVortexLength, kVortexLength};
    case EulerCase::sod_x:
      return {1.0, ny / nx};
    case EulerCase::sod_y:
      return {nx / ny, 1.0};
    case EulerCase::kelvin_helmholtz:
      break;
  }
  return {1.0, 1.0};
}

CartesianDecomposition decompose(const EulerConfig& c, MPI_Comm communicator) {
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {c.nx, c.ny, 1};
  if (c.problem == EulerCase::sod_x) spec.boundary[0] = Boundary::physical;
  if (c.problem == EulerCase::sod_y) spec.boundary[1] = Boundary::physical;
  return haloflow::decompose(communicator, spec);  // process grid from MPI_Dims_create
}

//! Wraps `d` into [-length/2, length/2).
double periodic_distance(double d, double length) {
  return d - length * std::floor(d / length + 0.5);
}

Primitive vortex_at(double x, double y, double t, double gamma) {
  const double cx = periodic_distance(x - (0.5 * kVortexLength + kVortexMean * t), kVortexLength);
  const double cy = periodic_distance(y - (0.5 * kVortexLength + kVortexMean * t), kVortexLength);
  const double r2 = cx * cx + cy * cy;
  const double pi = std::numbers::pi;
  const double bump = kVortexStrength / (2.0 * pi) * std::exp(0.5 * (1.0 - r2));
  const double temperature = 1.0 - (gamma - 1.0) * kVortexStrength * kVortexStrength /
                                       (8.0 * gamma * pi * pi) * std::exp(1.0 - r2);
  const double rho = std::pow(temperature, 1.0 / (gamma - 1.0));
  return {rho, kVortexMean - bump * cy, kVortexMean + bump * cx, std::pow(rho, gamma)};
}

constexpr GasState kSodLeft{1.0, 0.0, 1.0};
constexpr GasState kSodRight{0.125, 0.0, 0.1};

Primitive initial_at(const EulerConfig& c, double x, double y, const std::array<double, 2>& size) {
  switch (c.problem) {
    case EulerCase::vortex:
      return vortex_at(x, y, 0.0, c.gamma);
    case EulerCase::sod_x:
    case EulerCase::sod_y: {
      const double along = c.problem == EulerCase::sod_x ? x / size[0] : y / size[1];
      const GasState& s = along < 0.5 ? kSodLeft : kSodRight;
      return {s.rho, 0.0, 0.0, s.p};
    }
    case EulerCase::kelvin_helmholtz:
      break;
  }
  // A shear layer pair: a dense band moving right, the rest left, a single-mode kick in v.
  const bool band = std::abs(y - 0.5) < 0.25;
  const double pi = std::numbers::pi;
  const double kick =
      0.01 * std::sin(4.0 * pi * x) *
      (std::exp(-std::pow((y - 0.25) / 0.05, 2)) + std::exp(-std::pow((y - 0.75) / 0.05, 2)));
  return {band ? 2.0 : 1.0, band ? 0.5 : -0.5, kick, 2.5};
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
                                       MPI_Comm communicator) {
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
  HALOFLOW_MPI(MPI_Allreduce(sums.data(), total.data(), 8, MPI_DOUBLE, MPI_SUM, communicator),
               "euler2d conserved totals");
  for (double& value : total) value *= area;
  return total;
}

}  // namespace

EulerCase euler_case_from_string(const std::string& text) {
  if (text == "vortex") return EulerCase::vortex;
  if (text == "sod-x") return EulerCase::sod_x;
  if (text == "sod-y") return EulerCase::sod_y;
  if (text == "kh") return EulerCase::kelvin_helmholtz;
  throw Error(
      fmt::format("euler2d case: '{}' is not allowed; expected vortex, sod-x, sod-y or kh", text));
}

std::string to_string(EulerCase problem) {
  switch (problem) {
    case EulerCase::vortex:
      return "vortex";
    case EulerCase::sod_x:
      return "sod-x";
    case EulerCase::sod_y:
      return "sod-y";
    case EulerCase::kelvin_helmholtz:
      break;
  }
  return "kh";
}

EulerResult run_euler2d(const EulerConfig& config, MPI_Comm communicator) {
  validate(config);
  const CartesianDecomposition grid = decompose(config, communicator);
  const HaloPlan halo = make_halo_plan(grid, kStencil, kGhosts, 4);
  const FieldLayout& layout = halo.layout;
  const Backend backend = backend_of(config.run.executor);
  const std::int64_t fs = layout.field_elements();
  const auto bytes = static_cast<std::size_t>(4 * fs) * sizeof(double);
  const std::array<double, 2> size = domain(config);
  const double dx = size[0] / static_cast<double>(config.nx);
  const double dy = size[1] / static_cast<double>(config.ny);

  // U: the state; S1, S2: the stages' results (SSP-RK2 uses S1 only).
  Buffer u(Memory::device, bytes, "euler2d U", backend);
  Buffer s1(Memory::device, bytes, "euler2d stage 1", backend);
  Buffer s2(Memory::device, bytes, "euler2d stage 2", backend);
  Buffer monitor(Memory::device, sizeof(kernels::EulerMonitor), "euler2d monitor", backend);
  Buffer monitor_host(Memory::host, sizeof(kernels::EulerMonitor), "euler2d monitor (pinned)",
                      backend);

  std::vector<double> initial(static_cast<std::size_t>(4 * fs), 1.0);  // ghosts: a valid gas
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
    const Primitive w = initial_at(config, (static_cast<double>(i) + 0.5) * dx,
                                   (static_cast<double>(j) + 0.5) * dy, size);
    const double values[4] = {w.rho, w.rho * w.u, w.rho * w.v,
                              w.p / (config.gamma - 1.0) + 0.5 * w.rho * (w.u * w.u + w.v * w.v)};
    for (std::int64_t f = 0; f < 4; ++f) initial[static_cast<std::size_t>(at + f * fs)] = values[f];
  });
  const auto load_initial = [&] {
    u.upload(initial.data(), bytes);
    s1.upload(initial.data(), bytes);
    s2.upload(initial.data(), bytes);
  };
  load_initial();

  const auto fields_of = [&](const Buffer& b) {
    double* base = b.as<double>();
    return std::vector<double*>{base, base + fs, base + 2 * fs, base + 3 * fs};
  };
  const int stages = config.stages;
  // Shu-Osher weights (a, b) of out = a U + b (in + dt L(in)).
  const std::array<std::array<double, 2>, 3> weights =
      stages == 3
          ? std::array<std::array<double, 2>, 3>{{{0.0, 1.0}, {0.75, 0.25}, {1.0 / 3, 2.0 / 3}}}
          : std::array<std::array<double, 2>, 3>{{{0.0, 1.0}, {0.5, 0.5}, {0.0, 0.0}}};
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
  auto* device_monitor = monitor.as<kernels::EulerMonitor>();
  const auto add_monitor = [&](FramePlan& plan, std::vector<std::string> after) {
    plan.add_kernel({.name = "cfl.reset"}, kernels::euler_monitor_reset_kernel(),
                    LaunchShape::fixed(1, 1), device_monitor);
    after.emplace_back("cfl.reset");
    plan.add_kernel({.name = "cfl.reduce", .after = std::move(after)},
                    kernels::euler_monitor_kernel(), box_launch(owned_cells, 4), owned_cells,
                    monitor_params, u.as<const double>(), device_monitor);
    plan.add_copy({.name = "cfl.download", .after = {"cfl.reduce"}}, monitor_host.view(),
                  monitor.view(), sizeof(kernels::EulerMonitor));
  };

  using StageNode =
      KernelNode<kernels::CellBox, kernels::EulerStage, const double*, const double*, double*>;
  struct StageCall {
    StageNode node;
    kernels::CellBox box;
    int stage;
  };
  std::vector<StageCall> calls;
  std::vector<kernels::EulerStage> stage_params(static_cast<std::size_t>(stages));
  FramePlan plan("euler2d");
  const CellSplit cells = split_update(layout.owned_box(), layout, kStencil);
  std::vector<std::string> previous;  // the last stage's compute nodes
  for (int k = 0; k < stages; ++k) {
    const auto sk = static_cast<std::size_t>(k);
    stage_params[sk] = {.a = weights[sk][0],
                        .b = weights[sk][1],
                        .gamma = config.gamma,
                        .field_stride = fs,
                        .limiter = config.limiter,
                        .flux = config.flux};
    const ExchangeNodes nodes = exchanges[sk].add_to(plan, previous);
    std::vector<std::string> ready = {nodes.unpack};
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
      calls.push_back(
          {plan.add_kernel(std::move(options), kernels::euler_stage_kernel(), box_launch(cell),
                           cell, stage_params[sk], u.as<const double>(),
                           inputs[k]->as<const double>(), outputs[k]->as<double>()),
           cell, k});
    };
    add_stage(cells.interior, {.name = fmt::format("stage{}.interior", k), .after = previous});
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      add_stage(cells.boundary[i], {.name = fmt::format("stage{}.boundary.{}", k, i),
                                    .lane = Lane::communication,
                                    .after = ready});
    }
    previous = std::move(computed);
  }
  add_monitor(plan, previous);
  Frame frame(std::move(plan), config.run.executor, config.run.frame_options());
  FramePlan cfl_plan("euler2d cfl");
  add_monitor(cfl_plan, {});
  Frame cfl_frame(std::move(cfl_plan), config.run.executor, config.run.frame_options());

  int rank = 0;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "euler2d");
  double speed = 0;  // the largest wave-speed sum of the current state, over all ranks
  double time = 0;
  int steps_taken = 0;
  // Reads the monitor the last frame left; \throws Error (on every rank) naming the first bad
  // cell. `step` is the step whose result was checked (-1: the initial state).
  const auto check = [&](int step) {
    kernels::EulerMonitor m{};
    std::memcpy(&m, monitor_host.data(), sizeof m);
    double mine[2] = {0, m.first_bad != ~0ULL ? 1.0 : 0.0};
    std::memcpy(&mine[0], &m.speed_bits, sizeof(double));
    double all[2] = {0, 0};
    HALOFLOW_MPI(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, communicator),
                 fmt::format("euler2d time step after step {}", step));
    if (all[1] > 0) {
      const int candidate = m.first_bad != ~0ULL ? rank : INT_MAX;
      int first = 0;
      HALOFLOW_MPI(MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, communicator),
                   "euler2d bad state");
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
      HALOFLOW_MPI(MPI_Bcast(info, 4, MPI_DOUBLE, first, communicator), "euler2d bad state");
      throw Error(fmt::format(
          "euler2d: step {}, rank {}, cell ({}, {}): density {}, pressure {} (a negative density "
          "or pressure, or a NaN, stops the run; try a smaller --cfl)",
          step, first, static_cast<long long>(info[0]), static_cast<long long>(info[1]), info[2],
          info[3]));
    }
    speed = all[0];
  };
  const auto start = [&] {
    time = 0;
    steps_taken = 0;
    cfl_frame.run();
    check(-1);
  };
  start();

  StepHooks hooks;
  hooks.step = [&](int step, int /*steps*/, CUstream_st* stream) {
    if (config.t_end > 0 && time >= config.t_end) return;  // reached: the rest are no-ops
    // dt from the state at the start of this step (the previous frame's monitor).
    double dt = config.cfl / speed;
    if (config.t_end > 0 && time + dt >= config.t_end) dt = config.t_end - time;
    for (const StageCall& call : calls) {
      kernels::EulerStage s = stage_params[static_cast<std::size_t>(call.stage)];
      s.dt_dx = dt / dx;
      s.dt_dy = dt / dy;
      frame.update(call.node, call.box, s, u.as<const double>(),
                   inputs[call.stage]->as<const double>(), outputs[call.stage]->as<double>());
    }
    frame.launch(stream);
    frame.wait();  // the next dt needs this step's monitor
    check(step);
    time = config.t_end > 0 && dt == config.t_end - time ? config.t_end : time + dt;
    ++steps_taken;
  };
  hooks.settle = [&] {
    frame.wait();
    cfl_frame.wait();
  };
  hooks.step_plan = &frame.plan();
  hooks.frames = {&frame, &cfl_frame};
  hooks.reset = [&] {
    load_initial();
    start();
  };
  hooks.output = [&](int done) {
    OwnedField out{.step = done, .names = {"rho", "rho_u", "rho_v", "E"}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_cells[axis] = grid.spec().global_cells[axis];
      out.offset[axis] = grid.global_offset()[axis];
      out.cells[axis] = layout.owned[axis];
    }
    out.spacing = {dx, dy, 1.0};
    std::vector<double> state(static_cast<std::size_t>(4 * fs));
    u.download(state.data(), bytes);
    for (std::int64_t f = 0; f < 4; ++f) {
      for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t, std::int64_t) {
        out.values.push_back(state[static_cast<std::size_t>(f * fs + at)]);
      });
    }
    config.run.output(out);
  };
  // U and both stage fields (ghosts included), then time, the next step's wave speed and the
  // steps taken, so that a restart continues bitwise.
  hooks.save = [&] {
    std::vector<unsigned char> state(3 * bytes + 3 * sizeof(double));
    u.download(state.data(), bytes);
    s1.download(state.data() + bytes, bytes);
    s2.download(state.data() + 2 * bytes, bytes);
    const double scalars[3] = {time, speed, static_cast<double>(steps_taken)};
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
    time = scalars[0];
    speed = scalars[1];
    steps_taken = static_cast<int>(scalars[2]);
  };

  const double area = dx * dy;
  const auto initial_totals = conserved_totals(initial, fs, grid, layout, area, communicator);
  EulerResult result;
  result.process_grid = grid.process_grid();
  result.dx = dx;
  result.dy = dy;
  result.times = run_timed_steps(config.run, communicator, hooks);
  result.steps_taken = steps_taken;
  // With t_end, the steps after it are no-ops: report the mean over the steps taken instead.
  if (config.t_end > 0 && steps_taken > 0 && steps_taken < config.run.steps) {
    result.times.median_step_s = result.times.total_s / steps_taken;
    result.times.steps = steps_taken;
  }
  result.final_time = time;
  const double cell_count = static_cast<double>(config.nx) * static_cast<double>(config.ny);
  // Per stage: read in (4 fields) and U, write out; the monitor reads U once.
  result.bytes_per_step = (3.0 * stages + 1.0) * 4.0 * cell_count * sizeof(double);

  std::vector<double> q(static_cast<std::size_t>(4 * fs));
  u.download(q.data(), bytes);
  const auto final_totals = conserved_totals(q, fs, grid, layout, area, communicator);
  for (std::size_t f = 0; f < 4; ++f) {
    result.totals_initial[f] = initial_totals[f];
    result.totals_final[f] = final_totals[f];
    result.totals_scale[f] = initial_totals[f + 4];
  }

  if (config.problem != EulerCase::kelvin_helmholtz) {
    result.has_exact = true;
    const ExactRiemann riemann(kSodLeft, kSodRight, config.gamma);
    double errors[3] = {0, 0, 0};  // sum |e|, sum e^2, max |e|
    for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
      const double x = (static_cast<double>(i) + 0.5) * dx;
      const double y = (static_cast<double>(j) + 0.5) * dy;
      double exact = 0;
      if (config.problem == EulerCase::vortex) {
        exact = vortex_at(x, y, time, config.gamma).rho;
      } else {
        const double along = config.problem == EulerCase::sod_x ? x / size[0] : y / size[1];
        const double length = config.problem == EulerCase::sod_x ? size[0] : size[1];
        exact = time > 0 ? riemann.sample((along - 0.5) * length / time).rho
                         : (along < 0.5 ? kSodLeft.rho : kSodRight.rho);
      }
      const double e = std::abs(q[static_cast<std::size_t>(at)] - exact);
      errors[0] += e;
      errors[1] += e * e;
      errors[2] = std::max(errors[2], e);
    });
    double sums[2] = {0, 0};
    double largest = 0;
    HALOFLOW_MPI(MPI_Allreduce(errors, sums, 2, MPI_DOUBLE, MPI_SUM, communicator),
                 "euler2d errors");
    HALOFLOW_MPI(MPI_Allreduce(&errors[2], &largest, 1, MPI_DOUBLE, MPI_MAX, communicator),
                 "euler2d errors");
    result.error_l1 = sums[0] / cell_count;
    result.error_l2 = std::sqrt(sums[1] / cell_count);
    result.error_linf = largest;
  }

  if (config.run.gather) {
    for (std::int64_t f = 0; f < 4; ++f) {
      Buffer one(Memory::device, static_cast<std::size_t>(fs) * sizeof(double), "euler2d field",
                 Backend::cpu);
      one.upload(q.data() + f * fs, static_cast<std::size_t>(fs) * sizeof(double));
      const std::vector<double> global = gather_global<double>(one, layout, grid, communicator);
      result.field.insert(result.field.end(), global.begin(), global.end());
    }
  }
  return result;
}

}  // namespace haloflow::models
