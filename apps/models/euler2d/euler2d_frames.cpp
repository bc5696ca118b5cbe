// euler2d's plans: the step (the clock first, the step's dt on the device, then one exchange /
// walls / interior / boundary round per Runge-Kutta stage and the CFL monitor at the end, reduced
// over the ranks in a host node) and the CFL frame of the initial state. Nothing is patched.

#include "euler2d_frames.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <utility>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::models::euler {
namespace {

//! Rows each thread of the monitor reduces: fewer blocks, so fewer atomics on the one result
//! (tools/euler-kernel-lab.cu).
constexpr unsigned kMonitorRowsPerThread = 16;

//! Accesses of `mode` to `box` of each of the four conserved fields of `b`.
std::vector<Access> state_access(const Buffer& b, std::int64_t field_stride, const Box& box,
                                 AccessMode mode) {
  std::vector<Access> accesses;
  for (const double* field : fields_of(b, field_stride)) {
    accesses.push_back({field, box, mode, {}});
  }
  return accesses;
}

//! `extra` appended to `accesses`.
std::vector<Access> joined(std::vector<Access> accesses, const std::vector<Access>& extra) {
  accesses.insert(accesses.end(), extra.begin(), extra.end());
  return accesses;
}

//! Zero-gradient ghosts on a physical side this rank touches.
struct Wall {
  std::string side;
  kernels::CellBox box;
  kernels::EulerWall wall;
  Box ghosts;  //!< the ghost cells it writes (box, as a Box)
  Box edge;    //!< the owned layer next to the wall, which it copies outwards
};

std::vector<Wall> physical_walls(const CartesianDecomposition& grid, const FieldLayout& layout) {
  std::vector<Wall> walls;
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
      Box edge = owned;
      edge.lo[a] = high == 0 ? owned.lo[a] : owned.hi[a] - 1;
      edge.hi[a] = edge.lo[a] + 1;
      walls.push_back({names[high],
                       cell_box(ghosts, layout),
                       {.axis = axis, .edge = edge.lo[a], .field_stride = layout.field_elements()},
                       ghosts,
                       edge});
    }
  }
  return walls;
}

//! The body of the `cfl.allreduce` host node on multi-rank runs: the largest wave speed and
//! whether any rank has a bad cell, from this rank's monitor (copied to `mine`) into `all`, which
//! the next frame's clock reads. Nonblocking with a deadline, so that a rank that stopped ends
//! the run with an error instead of a hang.
void reduce_cfl(const kernels::EulerMonitor& mine, kernels::EulerMonitor& all, MPI_Comm comm,
                std::chrono::duration<double> timeout) {
  const double in[2] = {std::bit_cast<double>(mine.speed_bits),
                        mine.first_bad != ~0ULL ? 1.0 : 0.0};
  double out[2] = {0, 0};
  BoundedCollectives(comm, timeout)
      .allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, "euler2d cfl.allreduce (the time step)");
  all.speed_bits = std::bit_cast<std::uint64_t>(out[0]);
  all.first_bad = out[1] > 0 ? 0ULL : ~0ULL;
}

//! The monitor over U after `after`; on multi-rank runs its copy to pinned memory and the host
//! node that reduces it over the ranks for the next frame's clock.
void add_monitor(FramePlan& plan, std::vector<std::string> after, const PlanInputs& in) {
  const auto h = euler_cell_size(in.config);
  const kernels::EulerMonitorParams monitor_params{.inv_dx = 1.0 / h[0],
                                                   .inv_dy = 1.0 / h[1],
                                                   .gamma = in.config.gamma,
                                                   .field_stride = in.layout.field_elements()};
  const kernels::CellBox owned_cells = cell_box(in.layout.owned_box(), in.layout);
  const StateBuffers& b = in.buffers;
  // The communication lane: a frame of that lane alone (the overlap measurement) then still
  // reduces what its clock resets, and its next clock gets a finite dt.
  const std::int64_t fs = in.layout.field_elements();
  plan.add_kernel({.name = "cfl.reduce",
                   .lane = Lane::communication,
                   .after = std::move(after),
                   .access = joined(state_access(b.u, fs, in.layout.owned_box(), AccessMode::read),
                                    {writes(b.device_monitor(), buffer_cells(1))})},
                  kernels::euler_monitor_kernel(), box_launch(owned_cells, kMonitorRowsPerThread),
                  owned_cells, monitor_params, b.u.as<const double>(), b.device_monitor());
  if (in.alone) return;
  plan.add_copy({.name = "cfl.download", .lane = Lane::communication, .after = {"cfl.reduce"}},
                b.monitor_host.view(), b.monitor.view(), sizeof(kernels::EulerMonitor));
  plan.add_host({.name = "cfl.allreduce",
                 .lane = Lane::communication,
                 .after = {"cfl.download"},
                 .access = {reads(b.pinned_monitor(), buffer_cells(1)),
                            writes(b.pinned_reduced(), buffer_cells(1))}},
                [pinned_monitor = b.pinned_monitor(), pinned_reduced = b.pinned_reduced(),
                 comm = in.cfl_comm, timeout = in.config.run.exchange_timeout] {
                  reduce_cfl(*pinned_monitor, *pinned_reduced, comm, timeout);
                });
}

}  // namespace

StateBuffers::StateBuffers(std::size_t state_bytes, Backend backend)
    : u(Memory::device, state_bytes, "euler2d U", backend),
      s1(Memory::device, state_bytes, "euler2d stage 1", backend),
      s2(Memory::device, state_bytes, "euler2d stage 2", backend),
      monitor(Memory::device, sizeof(kernels::EulerMonitor), "euler2d monitor", backend),
      monitor_host(Memory::host, sizeof(kernels::EulerMonitor), "euler2d monitor (pinned)",
                   backend),
      reduced_host(Memory::host, sizeof(kernels::EulerMonitor),
                   "euler2d monitor over the ranks (pinned)", backend),
      clock(Memory::device, sizeof(kernels::EulerClock), "euler2d clock", backend),
      step(Memory::device, sizeof(kernels::EulerStep), "euler2d step", backend),
      mirror(Memory::host, sizeof(kernels::EulerClock), "euler2d clock (pinned)", backend) {}

std::vector<double*> fields_of(const Buffer& b, std::int64_t field_stride) {
  double* base = b.as<double>();
  return {base, base + field_stride, base + 2 * field_stride, base + 3 * field_stride};
}

OwnComm::OwnComm(MPI_Comm parent, std::chrono::duration<double> timeout) {
  MPI_Request request = MPI_REQUEST_NULL;
  HALOFLOW_MPI(MPI_Comm_idup(parent, &comm_, &request), "euler2d's time-step communicator");
  wait_for_collective(request, parent, "MPI_Comm_idup", "euler2d's time-step communicator",
                      timeout);
}

OwnComm::~OwnComm() {
  MPI_Comm_free(&comm_);
}

FramePlan step_plan(const PlanInputs& in) {
  const EulerConfig& config = in.config;
  const FieldLayout& layout = in.layout;
  const StateBuffers& b = in.buffers;
  const std::int64_t fs = layout.field_elements();
  const auto h = euler_cell_size(config);
  const int stages = config.stages;
  // Weights b of out = U + b ((in - D) - U) after the first stage (out = U - D): SSP-RK3's
  // (3/4, 1/4) and (1/3, 2/3) Shu-Osher pairs become b = 1/4 and 2/3, SSP-RK2's (1/2, 1/2) b = 1/2.
  const std::array<double, 3> weights = stages == 3 ? std::array<double, 3>{1.0, 0.25, 2.0 / 3.0}
                                                    : std::array<double, 3>{1.0, 0.5, 0};
  const std::array<const Buffer*, 3> inputs = b.inputs();
  const std::array<const Buffer*, 3> outputs = b.outputs(stages);
  const std::vector<Wall> walls = physical_walls(in.grid, layout);
  // One rank: the clock reads the device monitor itself; more: the reduction over the ranks.
  const kernels::EulerMonitor* reduced = in.alone ? b.device_monitor() : b.pinned_reduced();

  // Strict: the edges written here must order every pair of accesses that conflict.
  FramePlan plan("euler2d", EdgeRule::strict);
  for (const auto& [buffer, name] :
       {std::pair{&b.u, "u"}, {&b.s1, "stage 1"}, {&b.s2, "stage 2"}}) {
    const std::vector<double*> fields = fields_of(*buffer, fs);
    for (std::size_t f = 0; f < fields.size(); ++f) {
      plan.name_field(fields[f], fmt::format("{} (conserved field {})", name, f));
    }
  }
  auto* step = b.step.as<kernels::EulerStep>();
  plan.add_kernel(
      {.name = "cfl.clock",
       .lane = Lane::communication,
       .access = {reads(reduced, buffer_cells(1)), reads(b.device_monitor(), buffer_cells(1)),
                  writes(b.clock.as<const kernels::EulerClock>(), buffer_cells(1)),
                  writes(step, buffer_cells(1)),
                  writes(b.mirror.as<const kernels::EulerClock>(), buffer_cells(1))}},
      kernels::euler_clock_kernel(), LaunchShape::fixed(1, 1),
      kernels::EulerClockParams{.cfl = config.cfl, .t_end = config.t_end, .dx = h[0], .dy = h[1]},
      reduced, b.device_monitor(), b.clock.as<kernels::EulerClock>(), step,
      b.mirror.as<kernels::EulerClock>());
  const kernels::EulerStageKernel stage_kernel =
      kernels::euler_stage_kernel(config.limiter, config.flux);
  const CellSplit cells = split_update(layout.owned_box(), layout, kStencil);
  std::vector<std::string> previous;  // the last stage's compute nodes
  for (int k = 0; k < stages; ++k) {
    const auto sk = static_cast<std::size_t>(k);
    const kernels::EulerStage stage{
        .b = weights[sk], .first = k == 0 ? 1 : 0, .gamma = config.gamma, .field_stride = fs};
    const ExchangeNodes nodes = in.exchanges[sk].add_to(plan, previous);
    const Buffer& input = *inputs[sk];
    const Buffer& output = *outputs[sk];
    // The stages read the clock's dt: the first stage after it, the later ones through it.
    std::vector<std::string> after = k == 0 ? std::vector<std::string>{"cfl.clock"} : previous;
    std::vector<std::string> ready = after;
    ready.push_back(nodes.unpack);
    for (const Wall& w : walls) {
      const std::string name = fmt::format("stage{}.wall.{}", k, w.side);
      plan.add_kernel({.name = name,
                       .lane = Lane::communication,
                       .after = previous,
                       .access = joined(state_access(input, fs, w.edge, AccessMode::read),
                                        state_access(input, fs, w.ghosts, AccessMode::write))},
                      kernels::euler_wall_kernel(), box_launch(w.box), w.box, w.wall,
                      inputs[sk]->as<double>());
      ready.push_back(name);
    }
    std::vector<std::string> computed;
    const auto add_stage = [&](const Box& box, NodeOptions options) {
      if (box.empty()) return;
      const kernels::CellBox cell = cell_box(box, layout);
      computed.push_back(options.name);
      // out = U + b((in - D(in)) - U): in two cells around the box, U and out at it, and dt.
      options.access = joined(
          joined(state_access(input, fs, grown(box, {kGhosts, kGhosts, 0}), AccessMode::read),
                 state_access(b.u, fs, box, AccessMode::read)),
          joined(state_access(output, fs, box, AccessMode::write),
                 {reads(static_cast<const kernels::EulerStep*>(step), buffer_cells(1))}));
      plan.add_kernel(std::move(options), stage_kernel, kernels::euler_stage_launch(cell), cell,
                      stage, static_cast<const kernels::EulerStep*>(step), b.u.as<const double>(),
                      inputs[sk]->as<const double>(), outputs[sk]->as<double>());
    };
    add_stage(cells.interior, {.name = fmt::format("stage{}.interior", k), .after = after});
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      add_stage(cells.boundary[i], {.name = fmt::format("stage{}.boundary.{}", k, i),
                                    .lane = Lane::communication,
                                    .after = ready});
    }
    previous = std::move(computed);
  }
  add_monitor(plan, previous, in);
  return plan;
}

FramePlan cfl_plan(const PlanInputs& in) {
  FramePlan plan("euler2d cfl", EdgeRule::strict);
  plan.add_kernel(
      {.name = "cfl.reset", .access = {writes(in.buffers.device_monitor(), buffer_cells(1))}},
      kernels::euler_monitor_reset_kernel(), LaunchShape::fixed(1, 1), in.buffers.device_monitor());
  add_monitor(plan, {"cfl.reset"}, in);
  return plan;
}

}  // namespace haloflow::models::euler
