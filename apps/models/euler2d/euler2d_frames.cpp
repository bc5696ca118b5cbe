// euler2d's plans: the step (the clock first, the step's dt on the device, then one exchange /
// walls / interior / boundary round per Runge-Kutta stage and the CFL monitor at the end, reduced
// over the ranks in a host node) and the CFL frame of the initial state. Nothing is patched.

#include "euler2d_frames.hpp"

#include <fmt/format.h>

#include <algorithm>
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
  std::size_t axis = 0;
  kernels::CellBox box;
  kernels::EulerWall wall;
  Box ghosts;  //!< the ghost cells it writes (box, as a Box)
  Box edge;    //!< the layer next to the wall it copies outwards (owned, and beyond it in `span`)
};

//! The walls of the physical sides this rank touches, their ghosts kGhosts deep along the rows
//! (or columns) of `span` across the wall: the owned box when every stage exchanges its input; the
//! stage's region with one exchange a step, which reaches into the neighbours' cells along the
//! other axis (the rows there are the exchange's for U, the stage before's for S1 and S2).
std::vector<Wall> physical_walls(const CartesianDecomposition& grid, const FieldLayout& layout,
                                 const Box& span) {
  std::vector<Wall> walls;
  const Box owned = layout.owned_box();
  const Index3 offset = grid.global_offset();
  for (std::size_t a = 0; a < 2; ++a) {
    if (grid.spec().boundary[a] != Boundary::physical) continue;
    const char* names[2] = {a == 0 ? "x-" : "y-", a == 0 ? "x+" : "y+"};
    for (int high = 0; high < 2; ++high) {
      const bool touches =
          high == 0 ? offset[a] == 0 : offset[a] + layout.owned[a] == grid.spec().global_cells[a];
      if (!touches) continue;
      Box ghosts = span;
      ghosts.lo[a] = high == 0 ? owned.lo[a] - kGhosts : owned.hi[a];
      ghosts.hi[a] = ghosts.lo[a] + kGhosts;
      Box edge = span;
      edge.lo[a] = high == 0 ? owned.lo[a] : owned.hi[a] - 1;
      edge.hi[a] = edge.lo[a] + 1;
      walls.push_back({names[high],
                       a,
                       cell_box(ghosts, layout),
                       {.axis = static_cast<int>(a),
                        .edge = edge.lo[a],
                        .field_stride = layout.field_elements()},
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

namespace {

//! What every stage node of the step's plan shares, and how to add the clock, a stage's walls and
//! the stage over a box: the two shapes of the step (an exchange a stage or a step) differ only in
//! which boxes they add when.
class StepPlanner {
 public:
  explicit StepPlanner(const PlanInputs& in)
      : in_(in),
        fs_(in.layout.field_elements()),
        // Weights b of out = U + b ((in - D) - U) after the first stage (out = U - D): SSP-RK3's
        // (3/4, 1/4) and (1/3, 2/3) Shu-Osher pairs become b = 1/4 and 2/3, SSP-RK2's (1/2, 1/2)
        // b = 1/2.
        weights_(in.config.stages == 3 ? std::array<double, 3>{1.0, 0.25, 2.0 / 3.0}
                                       : std::array<double, 3>{1.0, 0.5, 0}),
        inputs_(in.buffers.inputs()),
        outputs_(in.buffers.outputs(in.config.stages)),
        step_(in.buffers.step.as<kernels::EulerStep>()),
        stage_kernel_(kernels::euler_stage_kernel(in.config.limiter, in.config.flux)),
        // Strict: the edges written here must order every pair of accesses that conflict.
        plan_("euler2d", EdgeRule::strict) {
    const StateBuffers& b = in.buffers;
    for (const auto& [buffer, name] :
         {std::pair{&b.u, "u"}, {&b.s1, "stage 1"}, {&b.s2, "stage 2"}}) {
      const std::vector<double*> fields = fields_of(*buffer, fs_);
      for (std::size_t f = 0; f < fields.size(); ++f) {
        plan_.name_field(fields[f], fmt::format("{} (conserved field {})", name, f));
      }
    }
  }

  FramePlan& plan() { return plan_; }

  //! `cfl.clock`: the step's dt, which every stage reads.
  void add_clock() {
    const StateBuffers& b = in_.buffers;
    const auto h = euler_cell_size(in_.config);
    // One rank: the clock reads the device monitor itself; more: the reduction over the ranks.
    const kernels::EulerMonitor* reduced = in_.alone ? b.device_monitor() : b.pinned_reduced();
    plan_.add_kernel(
        {.name = "cfl.clock",
         .lane = Lane::communication,
         .access = {reads(reduced, buffer_cells(1)), reads(b.device_monitor(), buffer_cells(1)),
                    writes(b.clock.as<const kernels::EulerClock>(), buffer_cells(1)),
                    writes(step_, buffer_cells(1)),
                    writes(b.mirror.as<const kernels::EulerClock>(), buffer_cells(1))}},
        kernels::euler_clock_kernel(), LaunchShape::fixed(1, 1),
        kernels::EulerClockParams{
            .cfl = in_.config.cfl, .t_end = in_.config.t_end, .dx = h[0], .dy = h[1]},
        reduced, b.device_monitor(), b.clock.as<kernels::EulerClock>(), step_,
        b.mirror.as<kernels::EulerClock>());
  }

  //! Stage k's input's wall ghosts along the rows (columns) of `span`, after `after`; their names.
  std::vector<std::string> add_walls(int k, const Box& span,
                                     const std::vector<std::string>& after) {
    const Buffer& input = *inputs_[static_cast<std::size_t>(k)];
    std::vector<std::string> names;
    for (const Wall& w : physical_walls(in_.grid, in_.layout, span)) {
      names.push_back(fmt::format("stage{}.wall.{}", k, w.side));
      plan_.add_kernel({.name = names.back(),
                        .lane = Lane::communication,
                        .after = after,
                        .access = joined(state_access(input, fs_, w.edge, AccessMode::read),
                                         state_access(input, fs_, w.ghosts, AccessMode::write))},
                       kernels::euler_wall_kernel(), box_launch(w.box), w.box, w.wall,
                       input.as<double>());
    }
    return names;
  }

  //! Stage k over `box` (nothing for an empty box), its name appended to `computed`.
  void add_stage(int k, const Box& box, NodeOptions options, std::vector<std::string>& computed) {
    if (box.empty()) return;
    const auto sk = static_cast<std::size_t>(k);
    const Buffer& input = *inputs_[sk];
    const Buffer& output = *outputs_[sk];
    const StateBuffers& b = in_.buffers;
    const kernels::EulerStage stage{
        .b = weights_[sk], .first = k == 0 ? 1 : 0, .gamma = in_.config.gamma, .field_stride = fs_};
    const kernels::CellBox cell = cell_box(box, in_.layout);
    computed.push_back(options.name);
    // out = U + b((in - D(in)) - U): in two cells around the box, U and out at it, and dt.
    options.access =
        joined(joined(state_access(input, fs_, grown(box, {kGhosts, kGhosts, 0}), AccessMode::read),
                      state_access(b.u, fs_, box, AccessMode::read)),
               joined(state_access(output, fs_, box, AccessMode::write),
                      {reads(static_cast<const kernels::EulerStep*>(step_), buffer_cells(1))}));
    plan_.add_kernel(std::move(options), stage_kernel_, kernels::euler_stage_launch(cell), cell,
                     stage, static_cast<const kernels::EulerStep*>(step_), b.u.as<const double>(),
                     input.as<const double>(), output.as<double>());
  }

 private:
  const PlanInputs& in_;
  const std::int64_t fs_;
  const std::array<double, 3> weights_;
  const std::array<const Buffer*, 3> inputs_;
  const std::array<const Buffer*, 3> outputs_;
  kernels::EulerStep* step_;
  const kernels::EulerStageKernel stage_kernel_;
  FramePlan plan_;
};

//! `a` and then `b`.
std::vector<std::string> concatenated(std::vector<std::string> a,
                                      const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

//! One exchange per stage, of its input, 2 cells deep; its walls; its interior in the bulk lane
//! while the halos travel, its boundary slabs after the unpack. \returns the last stage's nodes.
std::vector<std::string> add_stages_exchanging_each(StepPlanner& planner, const PlanInputs& in) {
  const Box owned = in.layout.owned_box();
  const CellSplit cells = split_update(owned, in.layout, kStencil);
  std::vector<std::string> previous;  // the last stage's compute nodes
  for (int k = 0; k < in.config.stages; ++k) {
    const ExchangeNodes nodes =
        in.exchanges[static_cast<std::size_t>(k)].add_to(planner.plan(), previous);
    // The stages read the clock's dt: the first stage after it, the later ones through it.
    const std::vector<std::string> after =
        k == 0 ? std::vector<std::string>{"cfl.clock"} : previous;
    std::vector<std::string> ready = after;
    ready.push_back(nodes.unpack);
    ready = concatenated(std::move(ready), planner.add_walls(k, owned, previous));
    std::vector<std::string> computed;
    planner.add_stage(k, cells.interior,
                      {.name = fmt::format("stage{}.interior", k), .after = after}, computed);
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      planner.add_stage(k, cells.boundary[i],
                        {.name = fmt::format("stage{}.boundary.{}", k, i),
                         .lane = Lane::communication,
                         .after = ready},
                        computed);
    }
    previous = std::move(computed);
  }
  return previous;
}

//! The part of stage 0's `region` whose cells read no ghost of U that is filled after the halos
//! arrive: inside the owned box less kGhosts cells along the axes whose halos travel and on the
//! wall sides (the walls' rows reach into the exchanged ghosts, so they run after the unpack),
//! whole along the axes a rank copies to itself (in place after the self copy). split_box clamps
//! it into `region`.
Box before_halos(const Box& region, const Box& owned, std::array<bool, 3> remote,
                 const std::vector<Wall>& walls) {
  Box inner = region;
  // A wall axis is cut on both sides: its other side is a wall too or has a neighbour (remote).
  for (const Wall& w : walls) remote[w.axis] = true;
  for (std::size_t axis = 0; axis < 2; ++axis) {
    if (!remote[axis]) continue;
    inner.lo[axis] = std::max(inner.lo[axis], owned.lo[axis] + kGhosts);
    inner.hi[axis] = std::max(std::min(inner.hi[axis], owned.hi[axis] - kGhosts), inner.lo[axis]);
  }
  return inner;
}

//! One exchange of U, ghosts stages * 2 deep; then stage k (0-based) over StepFrame::computed(k +
//! 1), after its input's walls along the same rows: stage 0 split as above (its interior after the
//! self copy, its slabs after the unpack), each later stage after the whole stage before. Every
//! cell a stage computes outside the owned box is one its neighbour computes too, from the same
//! values, so U after the step is the same bits. \returns the last stage's nodes.
std::vector<std::string> add_stages_exchanging_once(StepPlanner& planner, const PlanInputs& in) {
  const StepFrame& frame = *in.step_frame;
  const Box owned = in.layout.owned_box();
  HaloExchange<double>& exchange = in.exchanges.front();
  const ExchangeNodes nodes = exchange.add_to(planner.plan(), {});
  std::vector<std::string> previous;
  for (int k = 0; k < in.config.stages; ++k) {
    const Box region = frame.computed(k + 1, owned);
    std::vector<std::string> computed;
    if (k == 0) {
      // U's wall ghosts along rows the exchange fills: after it.
      const std::vector<std::string> walls = planner.add_walls(0, region, {nodes.unpack});
      const Box inner = before_halos(region, owned, exchange.remote_axes(),
                                     physical_walls(in.grid, in.layout, region));
      const CellSplit cells = split_box(region, inner);
      planner.add_stage(
          0, cells.interior,
          {.name = "stage0.interior", .after = concatenated({"cfl.clock"}, nodes.after_self())},
          computed);
      const std::vector<std::string> ready = concatenated({"cfl.clock", nodes.unpack}, walls);
      for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
        planner.add_stage(0, cells.boundary[i],
                          {.name = fmt::format("stage0.boundary.{}", i),
                           .lane = Lane::communication,
                           .after = ready},
                          computed);
      }
    } else {
      const std::vector<std::string> walls = planner.add_walls(k, region, previous);
      planner.add_stage(k, region,
                        {.name = fmt::format("stage{}", k), .after = concatenated(previous, walls)},
                        computed);
    }
    previous = std::move(computed);
  }
  return previous;
}

}  // namespace

FramePlan step_plan(const PlanInputs& in) {
  StepPlanner planner(in);
  planner.add_clock();
  const std::vector<std::string> last = in.step_frame != nullptr
                                            ? add_stages_exchanging_once(planner, in)
                                            : add_stages_exchanging_each(planner, in);
  add_monitor(planner.plan(), last, in);
  return std::move(planner.plan());
}

OneStep stage_step(const CartesianDecomposition& grid) {
  return one_step(grid, kStencil);
}

std::optional<std::string> one_exchange_refusal(const CartesianDecomposition& grid, int stages) {
  const OneStep step = stage_step(grid);
  const int depth = stages * kGhosts;
  const std::array<bool, 3> exchanged = exchanged_axes(step);
  const Coord3 shape = step.process_grid;
  const Index3 cells = grid.spec().global_cells;
  for (std::size_t axis = 0; axis < 2; ++axis) {
    if (!exchanged[axis] || step.thinnest[axis] >= depth) continue;
    const int ranks = shape[axis];
    const std::int64_t fewest = step.thinnest[axis];
    // The words check_machine's refusal (machine_fit.cpp) gives at validate.
    return fmt::format(
        "{}: step is not allowed on {} rank{}: the process grid {} x {} leaves a rank {} cell{} "
        "along {} ({} cells over {} rank{}{}), fewer than the {} ghost layers its halo exchange "
        "fills; expected {}, or /euler2d/{} at least {}",
        kExchangeEveryField, shape[0] * shape[1], shape[0] * shape[1] == 1 ? "" : "s", shape[0],
        shape[1], fewest, fewest == 1 ? "" : "s", axis == 0 ? "x" : "y", cells[axis], ranks,
        ranks == 1 ? "" : "s", ranks == 1 ? ", periodic: its own neighbour" : "", depth,
        kStageAdvice, axis == 0 ? "nx" : "ny", std::int64_t{depth} * ranks);
  }
  return std::nullopt;
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
