// jacobi2d on the engine: one frame per step (halo exchange of `a`, interior sweep in the bulk
// lane, boundary sweeps after the unpack), a second frame with the norm's nodes for the steps that
// report it, and the two buffers swapped by patching both frames' kernel parameters.

#include "jacobi2d.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <utility>

#include "field_gather.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "jacobi_kernels.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

constexpr Stencil kStar{StencilShape::star, 1};

void validate(const JacobiConfig& c) {
  if (c.nx < 3) {
    throw Error(fmt::format(
        "jacobi2d nx: {} is not allowed; expected at least 3 (two fixed columns and one computed)",
        c.nx));
  }
  if (c.ny < 3) {
    throw Error(fmt::format(
        "jacobi2d ny: {} is not allowed; expected at least 3 (two periodic copy rows and one "
        "computed)",
        c.ny));
  }
  if (c.split != 1 && c.split != 2) {
    throw Error(fmt::format(
        "jacobi2d split: {} is not allowed; expected 1 (rows over ranks) or 2 (a 2D process grid)",
        c.split));
  }
  if (c.norm_every < 0) {
    throw Error(fmt::format(
        "jacobi2d norm_every: {} is not allowed; expected 0 (never) or a number of steps",
        c.norm_every));
  }
  if (c.rows_per_thread < 1) {
    throw Error(fmt::format("jacobi2d rows_per_thread: {} is not allowed; expected at least 1",
                            c.rows_per_thread));
  }
  if (c.run.steps < 1 || c.run.warmup < 0) {
    throw Error(fmt::format(
        "jacobi2d steps {}, warmup {}: not allowed; expected at least 1 step and no negative "
        "warm-up",
        c.run.steps, c.run.warmup));
  }
}

CartesianDecomposition decompose(const JacobiConfig& c, MPI_Comm communicator) {
  DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {c.nx, c.ny - 2, 1};
  spec.process_grid = c.split == 1 ? Coord3{1, 0, 1} : Coord3{0, 0, 0};  // 0: MPI_Dims_create
  spec.boundary = {Boundary::physical, Boundary::periodic, Boundary::periodic};
  return haloflow::decompose(communicator, spec);
}

//! The cells this rank updates: its owned box less the fixed columns it holds.
Box update_box(const CartesianDecomposition& grid, const FieldLayout& layout) {
  Box box = layout.owned_box();
  const std::int64_t first = grid.global_offset()[0];
  if (first == 0) box.lo[0] += 1;
  if (first + layout.owned[0] == grid.spec().global_cells[0]) box.hi[0] -= 1;
  box.hi[0] = std::max(box.hi[0], box.lo[0]);  // a rank that owns only a fixed column
  return box;
}

//! Zero everywhere but the fixed columns, computed as the reference does: pi rounded to T, the
//! rest in double, the sine rounded to T.
template <class T>
std::vector<T> initial_values(const JacobiConfig& c, const CartesianDecomposition& grid,
                              const FieldLayout& layout) {
  std::vector<T> values(static_cast<std::size_t>(layout.field_elements()), T(0));
  const T pi = static_cast<T>(2.0 * std::asin(1.0));
  const Box owned = layout.owned_box();
  const Index3 offset = grid.global_offset();
  const bool left = offset[0] == 0;
  const bool right = offset[0] + layout.owned[0] == c.nx;
  for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
    const std::int64_t row = offset[1] + (j - owned.lo[1]) + 1;  // the reference's row index
    const auto value = static_cast<T>(
        std::sin(2.0 * pi * static_cast<double>(row) / static_cast<double>(c.ny - 1)));
    if (left) values[static_cast<std::size_t>(layout.offset(owned.lo[0], j, 0))] = value;
    if (right) values[static_cast<std::size_t>(layout.offset(owned.hi[0] - 1, j, 0))] = value;
  }
  return values;
}

template <class T>
using SweepNode = KernelNode<kernels::CellBox, const T*, T*, double*>;

//! A frame and what patching its sweeps needs: their handles, boxes and norm accumulator.
template <class T>
struct SweepFrame {
  Frame frame;
  std::vector<SweepNode<T>> sweeps;
  std::vector<kernels::CellBox> boxes;
  double* sum = nullptr;  //!< null in the frame without the norm
};

struct Buffers {
  Buffer a;
  Buffer b;
  Buffer sum;       //!< the norm's accumulator (device)
  Buffer host_sum;  //!< where the frame copies it (pinned)
};

//! The step's frame: exchange, interior sweep (bulk lane), boundary sweeps after the unpack
//! (communication lane). With the norm: the sweeps also sum the squared update, after a node that
//! zeroes the sum, and a copy takes the sum to the host once every sweep is done.
// Blocks 128 threads wide and 2 tall (JacobiConfig::rows_per_thread rows per thread): the fastest
// of the shapes measured on an H200 (tools/jacobi-kernel-lab.cu, docs/benchmarks.md), 95 % of a
// copy kernel's bandwidth against 88 % for 32 x 8 blocks.
constexpr unsigned kBlockWidth = 128;

template <class T>
SweepFrame<T> build_frame(bool with_norm, HaloExchange<T>& exchange, const CellSplit& cells,
                          const FieldLayout& layout, const Buffers& buffers,
                          const JacobiConfig& config) {
  FramePlan plan(with_norm ? "jacobi2d with norm" : "jacobi2d");
  const ExchangeNodes halo = exchange.add_to(plan);
  const auto kernel = with_norm ? kernels::jacobi_norm_kernel<T>() : kernels::jacobi_kernel<T>();
  double* sum = with_norm ? buffers.sum.as<double>() : nullptr;
  std::vector<std::string> first;
  if (with_norm) {
    plan.add_kernel({.name = "norm.zero"}, kernels::zero_kernel(), LaunchShape::fixed(1, 1), sum);
    first = {"norm.zero"};
  }
  std::vector<SweepNode<T>> sweeps;
  std::vector<kernels::CellBox> boxes;
  std::vector<std::string> sweep_names = first;
  const auto add_sweep = [&](const Box& box, NodeOptions options) {
    if (box.empty()) return;
    const kernels::CellBox cells_box = cell_box(box, layout);
    sweeps.push_back(plan.add_kernel(
        std::move(options), kernel,
        box_launch(cells_box, static_cast<unsigned>(config.rows_per_thread), kBlockWidth),
        cells_box, buffers.a.as<const T>(), buffers.b.as<T>(), sum));
    boxes.push_back(cells_box);
    sweep_names.push_back(sweeps.back().name);
  };
  add_sweep(cells.interior, {.name = "interior", .after = first});
  for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
    std::vector<std::string> after = first;
    after.push_back(halo.unpack);
    add_sweep(cells.boundary[i], {.name = fmt::format("boundary.{}", i),
                                  .lane = Lane::communication,
                                  .after = std::move(after)});
  }
  if (with_norm) {
    plan.add_copy({.name = "norm.download", .lane = Lane::communication, .after = sweep_names},
                  buffers.host_sum.view(), buffers.sum.view(), sizeof(double));
  }
  return SweepFrame<T>{Frame(std::move(plan), config.run.executor, config.run.frame_options()),
                       std::move(sweeps), std::move(boxes), sum};
}

}  // namespace

template <class T>
JacobiResult<T> run_jacobi2d(const JacobiConfig& config, MPI_Comm communicator) {
  validate(config);
  const CartesianDecomposition grid = decompose(config, communicator);
  const HaloPlan halo = make_halo_plan(grid, kStar, 1, 1);
  const FieldLayout& layout = halo.layout;
  const Backend backend = backend_of(config.run.executor);
  const auto bytes = static_cast<std::size_t>(layout.field_elements()) * sizeof(T);
  Buffers buffers{
      .a = Buffer(Memory::device, bytes, "jacobi2d a", backend),
      .b = Buffer(Memory::device, bytes, "jacobi2d a_new", backend),
      .sum = Buffer(Memory::device, sizeof(double), "jacobi2d norm sum", backend),
      .host_sum = Buffer(Memory::host, sizeof(double), "jacobi2d norm sum (pinned)", backend)};
  const std::vector<T> initial = initial_values<T>(config, grid, layout);
  const auto load_initial = [&] {
    buffers.a.upload(initial.data(), bytes);
    buffers.b.upload(initial.data(), bytes);
  };
  load_initial();
  HaloExchange<T> exchange(halo, communicator, {{buffers.a.as<T>()}, {buffers.b.as<T>()}}, backend,
                           {.timeout = config.run.exchange_timeout,
                            .transport = config.run.transport,
                            .self_on_device = config.run.self_on_device,
                            .name = "halo"});
  const CellSplit cells = split_update(update_box(grid, layout), layout, kStar);
  // Two frames, each built and instantiated once: steps without the norm run the one without
  // its nodes, so they pay nothing for it.
  SweepFrame<T> plain = build_frame(false, exchange, cells, layout, buffers, config);
  SweepFrame<T> normed = build_frame(true, exchange, cells, layout, buffers, config);

  JacobiResult<T> result;
  result.process_grid = grid.process_grid();
  result.bytes_per_step = 2.0 * static_cast<double>(config.nx) * static_cast<double>(config.ny) *
                          static_cast<double>(sizeof(T));
  StepHooks hooks;
  hooks.step = [&](int step, int steps, CUstream_st* stream) {
    const bool norm = config.norm_every > 0 && (step % config.norm_every == 0 || step == steps - 1);
    SweepFrame<T>& f = norm ? normed : plain;
    // Even steps read a and write a_new; odd steps the other way round.
    const std::size_t set = static_cast<std::size_t>(step % 2);
    const T* from = (set == 0 ? buffers.a : buffers.b).template as<const T>();
    T* to = (set == 0 ? buffers.b : buffers.a).template as<T>();
    exchange.use_field_set(f.frame, set);
    for (std::size_t i = 0; i < f.sweeps.size(); ++i) {
      f.frame.update(f.sweeps[i], f.boxes[i], from, to, f.sum);
    }
    f.frame.launch(stream);
    if (!norm) return;
    f.frame.wait();
    const double mine = *buffers.host_sum.as<const double>();
    double total = 0;
    HALOFLOW_MPI(MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, communicator),
                 fmt::format("jacobi2d norm of step {}", step));
    result.norms.push_back({step, std::sqrt(total)});
  };
  hooks.settle = [&] {
    plain.frame.wait();
    normed.frame.wait();
  };
  hooks.step_plan = &plain.frame.plan();
  hooks.frames = {&plain.frame, &normed.frame};
  hooks.reset = [&] {
    load_initial();
    result.norms.clear();
  };
  hooks.output = [&](int done) {
    const Buffer& current = done % 2 == 0 ? buffers.a : buffers.b;
    OwnedField out{.step = done, .names = {"a"}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_cells[axis] = grid.spec().global_cells[axis];
      out.offset[axis] = grid.global_offset()[axis];
      out.cells[axis] = layout.owned[axis];
    }
    for (const T value : owned_values<T>(current, layout)) {
      out.values.push_back(static_cast<double>(value));
    }
    config.run.output(out);
  };
  hooks.save = [&] {
    std::vector<unsigned char> state(2 * bytes);
    buffers.a.download(state.data(), bytes);
    buffers.b.download(state.data() + bytes, bytes);
    return state;
  };
  hooks.load = [&](const std::vector<unsigned char>& state) {
    check_state_size("jacobi2d", state.size(), 2 * bytes);
    buffers.a.upload(state.data(), bytes);
    buffers.b.upload(state.data() + bytes, bytes);
    result.norms.clear();
  };
  result.times = run_timed_steps(config.run, communicator, hooks);
  if (config.run.gather) {
    const Buffer& last = config.run.steps % 2 == 0 ? buffers.a : buffers.b;
    result.field = gather_global<T>(last, layout, grid, communicator);
  }
  return result;
}

template JacobiResult<float> run_jacobi2d<float>(const JacobiConfig&, MPI_Comm);
template JacobiResult<double> run_jacobi2d<double>(const JacobiConfig&, MPI_Comm);

}  // namespace haloflow::models
