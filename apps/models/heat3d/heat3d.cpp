// heat3d on the engine: one frame per step (halo exchange of u, interior step in the bulk lane
// after the ghosts a rank copies to itself, the boundary slabs along the axes whose halos travel
// after the unpack; the walk keeps a wrapping x axis's ghosts itself), one executable frame per
// parity of the step, so that the two buffers swap without patching.

#include "heat3d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "field_gather.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "heat_kernels.hpp"
#include "sine_mode.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

constexpr Stencil kStar{StencilShape::star, 1};

//! nu dt sum 1/h^2: the explicit scheme is stable while this is at most 1/2.
double diffusion_number(const HeatConfig& c, double dt) {
  double sum = 0;
  for (const std::int64_t n : c.cells) sum += static_cast<double>(n) * static_cast<double>(n);
  return c.nu * dt * sum;
}

double time_step(const HeatConfig& c) {
  if (c.dt > 0) return c.dt;
  const double finest = static_cast<double>(std::ranges::max(c.cells));
  return 1.0 / (8.0 * c.nu * finest * finest);
}

void validate(const HeatConfig& c) {
  for (int axis = 0; axis < 3; ++axis) {
    if (c.cells[static_cast<std::size_t>(axis)] < 1) {
      throw Error(fmt::format("heat3d cells[{}]: {} is not allowed; expected at least 1", axis,
                              c.cells[static_cast<std::size_t>(axis)]));
    }
  }
  if (!(c.nu > 0)) {
    throw Error(fmt::format("heat3d nu: {} is not allowed; expected a positive viscosity", c.nu));
  }
  if (c.mode < 1) {
    throw Error(fmt::format("heat3d mode: {} is not allowed; expected a wave number of at least 1",
                            c.mode));
  }
  if (c.dt < 0) {
    throw Error(
        fmt::format("heat3d dt: {} is not allowed; expected 0 (automatic) or positive", c.dt));
  }
  const double dt = time_step(c);
  if (!std::isfinite(dt) || !std::isfinite(0.5 * dt / diffusion_number(c, dt))) {
    throw Error(fmt::format(
        "heat3d nu: {} is not allowed: too small to bound the time step (the largest stable dt "
        "is beyond a double's range); expected a larger diffusivity",
        c.nu));
  }
  if (diffusion_number(c, dt) > 0.5) {
    throw Error(fmt::format(
        "heat3d dt: {} is not allowed; the explicit scheme is stable for dt <= {} (nu dt "
        "sum 1/h^2 <= 1/2)",
        dt, 0.5 * dt / diffusion_number(c, dt)));
  }
  if (c.run.steps < 1 || c.run.warmup < 0) {
    throw Error(fmt::format(
        "heat3d steps {}, warmup {}: not allowed; expected at least 1 step and no negative warm-up",
        c.run.steps, c.run.warmup));
  }
}

CartesianDecomposition decompose(const HeatConfig& c, MPI_Comm communicator) {
  DecompositionSpec spec;
  spec.dimensions = 3;
  spec.global_cells = c.cells;
  return haloflow::decompose(communicator, spec);  // process grid from MPI_Dims_create
}

//! Calls `each(storage offset, mode value)` for every owned cell of this rank.
template <class Each>
void for_owned_cells(const CartesianDecomposition& grid, const FieldLayout& layout,
                     const SineMode& mode, Each&& each) {
  const Box owned = layout.owned_box();
  const Index3 offset = grid.global_offset();
  for (std::int64_t k = owned.lo[2]; k < owned.hi[2]; ++k) {
    for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
      for (std::int64_t i = owned.lo[0]; i < owned.hi[0]; ++i) {
        each(layout.offset(i, j, k),
             mode.at(offset[0] + i - owned.lo[0], offset[1] + j - owned.lo[1],
                     offset[2] + k - owned.lo[2]));
      }
    }
  }
}

//! The x ghosts of `field` set to their periodic images (the last owned column below the first,
//! the first above the last), as the walk keeps them from step to step when x wraps.
template <class T>
void fill_x_images(const FieldLayout& layout, std::vector<T>& field) {
  const Box owned = layout.owned_box();
  const std::int64_t nx = owned.hi[0] - owned.lo[0];
  for (std::int64_t k = owned.lo[2]; k < owned.hi[2]; ++k) {
    for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
      const auto first = static_cast<std::size_t>(layout.offset(owned.lo[0], j, k));
      const auto last = first + static_cast<std::size_t>(nx - 1);
      field[first - 1] = field[last];
      field[last + 1] = field[first];
    }
  }
}

}  // namespace

double heat_time_step(const HeatConfig& config) {
  return time_step(config);
}

template <class T>
HeatResult<T> run_heat3d(const HeatConfig& config, MPI_Comm communicator) {
  validate(config);
  const CartesianDecomposition grid = decompose(config, communicator);
  const HaloPlan halo = make_halo_plan(grid, kStar, 1, 1);
  const FieldLayout& layout = halo.layout;
  const Backend backend = backend_of(config.run.executor);
  const auto bytes = static_cast<std::size_t>(layout.field_elements()) * sizeof(T);
  Buffer u(Memory::device, bytes, "heat3d u", backend);
  Buffer u_new(Memory::device, bytes, "heat3d u_new", backend);
  const SineMode mode(config.cells, config.mode);
  std::vector<T> initial(static_cast<std::size_t>(layout.field_elements()), T(0));
  for_owned_cells(grid, layout, mode, [&](std::int64_t at, double value) {
    initial[static_cast<std::size_t>(at)] = static_cast<T>(value);
  });
  // One rank along x (periodic): the walk writes the x ghosts itself (kernels::HeatKernel's
  // x images), so the exchange leaves them out, and the first step finds them filled here.
  const bool x_images = config.run.self_on_device && grid.process_grid()[0] == 1;
  if (x_images) fill_x_images(layout, initial);
  const auto load_initial = [&] {
    u.upload(initial.data(), bytes);
    u_new.upload(initial.data(), bytes);
  };
  load_initial();
  HaloExchange<T> exchange(halo, communicator, {{u.as<T>()}, {u_new.as<T>()}}, backend,
                           {.timeout = config.run.exchange_timeout,
                            .transport = config.run.transport,
                            .self_on_device = config.run.self_on_device,
                            .self_left_to_kernels = {x_images, false, false},
                            .name = "halo"});

  const double dt = time_step(config);
  const auto coefficient = [&](int axis) {
    const auto n = static_cast<double>(config.cells[static_cast<std::size_t>(axis)]);
    return static_cast<T>(config.nu * dt * n * n);
  };
  const kernels::HeatCoefficients<T> c{coefficient(0), coefficient(1), coefficient(2)};

  // Two frames, one per parity, each built and patched once: even steps read u and write u_new,
  // odd steps the other way round, so the steady state launches without patching anything. The
  // update is cut only along the axes whose halos travel: the ghosts a rank copies to itself are
  // in place (the self copy) before the interior starts, and the x ghosts, when x wraps, were
  // written by the step before, so on one rank the step is the copy of the y and z faces and one
  // sweep of the whole box, with no slab (at 512^3 the six slabs cost 80 us a step, the x slabs
  // one cell wide, and a copy of the x faces 30 us: a cache line per cell).
  const Box owned = layout.owned_box();
  const CellSplit cells = split_update(owned, layout, kStar, exchange.remote_axes());
  const auto build_frame = [&](std::size_t set) {
    const T* from = (set == 0 ? u : u_new).template as<const T>();
    T* to = (set == 0 ? u_new : u).template as<T>();
    FramePlan plan(set == 0 ? "heat3d even" : "heat3d odd");
    const ExchangeNodes nodes = exchange.add_to(plan);
    const auto add_step = [&](const Box& box, NodeOptions options) {
      if (box.empty()) return;
      const kernels::CellBox cell = cell_box(box, layout);
      // Not cut along x when x wraps (no halo travels along it), so each box spans the owned x
      // range and its first and last columns are the faces.
      if (x_images && (box.lo[0] != owned.lo[0] || box.hi[0] != owned.hi[0])) {
        throw Error("heat3d: a box that does not span the owned x range on a wrapping x axis");
      }
      plan.add_kernel(std::move(options), kernels::heat_kernel<T>(x_images),
                      kernels::heat_launch(cell), cell, x_images, c, from, to);
    };
    add_step(cells.interior, {.name = "interior", .after = nodes.after_self()});
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      add_step(cells.boundary[i], {.name = fmt::format("boundary.{}", i),
                                   .lane = Lane::communication,
                                   .after = {nodes.unpack}});
    }
    Frame frame(std::move(plan), config.run.executor, config.run.frame_options());
    exchange.use_field_set(frame, set);
    return frame;
  };
  Frame even = build_frame(0);
  Frame odd = build_frame(1);

  StepHooks hooks;
  hooks.step = [&](int step, int /*steps*/, int /*most*/, CUstream_st* stream) {
    (step % 2 == 0 ? even : odd).launch(stream);
    return 1;
  };
  hooks.settle = [&] {
    even.wait();
    odd.wait();
  };
  hooks.step_plan = &even.plan();
  hooks.frames = {&even, &odd};
  hooks.reset = load_initial;
  // The values sit at the points x_i = i / n (the mode is sampled there), on the periodic box:
  // VTK closes it with the point x = 1, which is x = 0 again.
  hooks.output = [&](int done) {
    const Buffer& current = done % 2 == 0 ? u : u_new;
    const double time = dt * static_cast<double>(done);
    OwnedField out{.step = done,
                   .time = time,
                   .dimensions = 3,
                   .centring = Centring::points,
                   .periodic = {true, true, true}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_samples[axis] = grid.spec().global_cells[axis];
      out.offset[axis] = grid.global_offset()[axis];
      out.samples[axis] = layout.owned[axis];
      out.spacing[axis] = 1.0 / static_cast<double>(config.cells[axis]);
    }
    FieldArray field{.name = "u", .units = "dimensionless"};
    for (const T value : owned_values<T>(current, layout)) {
      field.values.push_back(static_cast<double>(value));
    }
    if (config.run.sample) {
      // The error against the exact solution now, while the field is on the host anyway.
      const double amplitude = exact_amplitude(config.mode, config.nu, time);
      double errors[2] = {0, 0};  // largest, sum of squares
      std::size_t next = 0;
      for_owned_cells(grid, layout, mode, [&](std::int64_t, double value) {
        const double error = field.values[next++] - amplitude * value;
        errors[0] = std::max(errors[0], std::abs(error));
        errors[1] += error * error;
      });
      double largest = 0;
      double squares = 0;
      const BoundedCollectives live(communicator, config.run.exchange_timeout);
      live.allreduce(&errors[0], &largest, 1, MPI_DOUBLE, MPI_MAX,
                     fmt::format("heat3d largest error at step {}", done));
      live.allreduce(&errors[1], &squares, 1, MPI_DOUBLE, MPI_SUM,
                     fmt::format("heat3d error's squares at step {}", done));
      const double cell_count = static_cast<double>(config.cells[0]) *
                                static_cast<double>(config.cells[1]) *
                                static_cast<double>(config.cells[2]);
      config.run.sample({.step = done,
                         .time = time,
                         .dt = dt,
                         .error_max = largest,
                         .error_rms = std::sqrt(squares / cell_count)});
    }
    out.arrays.push_back(std::move(field));
    config.run.output(out);
  };
  hooks.process_grid = grid.process_grid();
  hooks.save = [&] {
    std::vector<unsigned char> state(2 * bytes);
    u.download(state.data(), bytes);
    u_new.download(state.data() + bytes, bytes);
    return state;
  };
  hooks.load = [&](const std::vector<unsigned char>& state) {
    check_state_size("heat3d", state.size(), 2 * bytes);
    u.upload(state.data(), bytes);
    u_new.upload(state.data() + bytes, bytes);
  };

  HeatResult<T> result;
  result.process_grid = grid.process_grid();
  result.times = run_timed_steps(config.run, communicator, hooks);
  result.dt = dt;
  result.final_time = dt * config.run.steps;
  const double cell_count = static_cast<double>(config.cells[0]) *
                            static_cast<double>(config.cells[1]) *
                            static_cast<double>(config.cells[2]);
  result.bytes_per_step = 2.0 * cell_count * static_cast<double>(sizeof(T));
  result.amplitude_exact = exact_amplitude(config.mode, config.nu, result.final_time);
  result.amplitude_scheme = scheme_amplitude(
      {static_cast<double>(c.x), static_cast<double>(c.y), static_cast<double>(c.z)}, config.cells,
      config.mode, config.run.steps);
  result.predicted_error_max =
      std::abs(result.amplitude_scheme - result.amplitude_exact) * mode.largest();

  const Buffer& last = config.run.steps % 2 == 0 ? u : u_new;
  std::vector<T> local(static_cast<std::size_t>(layout.field_elements()));
  last.download(local.data(), bytes);
  double errors[2] = {0, 0};  // largest, sum of squares
  for_owned_cells(grid, layout, mode, [&](std::int64_t at, double value) {
    const double error =
        static_cast<double>(local[static_cast<std::size_t>(at)]) - result.amplitude_exact * value;
    errors[0] = std::max(errors[0], std::abs(error));
    errors[1] += error * error;
  });
  double largest = 0;
  double squares = 0;
  const BoundedCollectives collectives(communicator, config.run.exchange_timeout);
  collectives.allreduce(&errors[0], &largest, 1, MPI_DOUBLE, MPI_MAX, "heat3d largest error");
  collectives.allreduce(&errors[1], &squares, 1, MPI_DOUBLE, MPI_SUM, "heat3d error's squares");
  result.error_max = largest;
  result.error_rms = std::sqrt(squares / cell_count);
  if (config.run.gather) result.field = gather_global<T>(last, layout, grid, collectives);
  return result;
}

template HeatResult<float> run_heat3d<float>(const HeatConfig&, MPI_Comm);
template HeatResult<double> run_heat3d<double>(const HeatConfig&, MPI_Comm);

}  // namespace haloflow::models
