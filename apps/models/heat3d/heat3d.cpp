// heat3d on the engine: one frame per step (halo exchange of u, interior step in the bulk lane
// after the ghosts a rank copies to itself, the boundary slabs along the axes whose halos travel
// after the unpack; the walk keeps a wrapping x axis's ghosts itself), one executable frame per
// field set it starts from, so that the two buffers swap without patching. With k steps a frame
// (steps_per_frame): ghosts k deep, one exchange, then one deep pass of k steps (the regions a
// StepFrame gives, haloflow/steps.hpp), from one buffer into the other: every frame swaps them
// once, whatever its steps, and the state keeps which holds the field (current_).
// steps_per_frame "auto" times frames of every k that fits, each on a state of its own, before the
// run, and takes the fastest.

#include "heat3d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "field_gather.hpp"
#include "frame_loops.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/cell_box.hpp"
#include "haloflow/error.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "haloflow/steps.hpp"
#include "heat_kernels.hpp"
#include "measured_choice.hpp"
#include "sine_mode.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

constexpr Stencil kStar{StencilShape::star, 1};
constexpr const char* kStepsField = "/heat3d/steps_per_frame";

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

namespace {

const HeatConfig& validated(const HeatConfig& config) {
  validate(config);
  return config;
}

//! The frame of `config.steps_per_frame` steps of the 7-point star on this rank of `grid`.
//! \throws Error naming /heat3d/steps_per_frame when its ghosts do not fit the ranks' shares.
StepFrame heat_step_frame(const HeatConfig& config, const CartesianDecomposition& grid) {
  return {one_step(grid, kStar), config.steps_per_frame, kMostHeatStepsPerFrame, kStepsField};
}

//! A heat3d run's state on this rank: u and u_new, the exchange, and for each number of steps a
//! frame can take (1 to steps_per_frame) one frame per parity of the step.
template <class T>
class HeatStepping final : public SteppingState {
 public:
  HeatStepping(const HeatConfig& config, MPI_Comm communicator)
      : config_(validated(config)),
        communicator_(communicator),
        grid_(decompose(config, communicator)),
        step_frame_(heat_step_frame(config, grid_)),
        // One step a frame: the star one cell deep; k steps: a box k deep (exchange_stencil).
        halo_(make_halo_plan(grid_, step_frame_.exchange_stencil(), step_frame_.ghost_depth(), 1)),
        layout_(halo_.layout),
        bytes_(static_cast<std::size_t>(layout_.field_elements()) * sizeof(T)),
        u_(Memory::device, bytes_, "heat3d u", backend_of(config.run.executor)),
        u_new_(Memory::device, bytes_, "heat3d u_new", backend_of(config.run.executor)),
        mode_(config.cells, config.mode),
        // One rank along x (periodic): the walk writes the x ghosts itself (kernels::HeatKernel's
        // x images), so the exchange leaves them out, and the first step finds them filled here.
        // Not with several steps a frame: its deep pass reads x ghosts k deep, which the
        // exchange fills.
        x_images_(config.run.self_on_device && grid_.process_grid()[0] == 1 &&
                  step_frame_.steps() == 1),
        initial_(uploaded(initial_field())),
        exchange_(halo_, communicator, {{u_.as<T>()}, {u_new_.as<T>()}},
                  backend_of(config.run.executor),
                  {.timeout = config.run.exchange_timeout,
                   .transport = config.run.transport,
                   .self_on_device = config.run.self_on_device,
                   .self_left_to_kernels = {x_images_, false, false},
                   .name = "halo"}),
        dt_(time_step(config)),
        coefficients_{coefficient(0), coefficient(1), coefficient(2)},
        owned_(layout_.owned_box()),
        owned_bytes_(static_cast<std::size_t>(owned_.volume()) * sizeof(T)) {
    // Frames of 1 to k steps, each for both parities, built and patched once: a frame before a
    // step the run must see (an output, a checkpoint, the end) takes fewer than k steps.
    frames_.reserve(static_cast<std::size_t>(step_frame_.steps()));
    frames_.push_back({build_frame(0), build_frame(1)});
    for (int steps = 2; steps <= step_frame_.steps(); ++steps) {
      frames_.push_back({build_steps_frame(steps, 0), build_steps_frame(steps, 1)});
    }
    // Several frames a launch: the k-step frames, from either set, alternating (each moves the
    // field to the other set).
    if (config_.run.frames_per_launch > 1) {
      auto& steady = frames_.back();
      loops_.emplace(config_.run.frames_per_launch,
                     std::array<std::array<Frame*, 2>, 2>{
                         {{&steady[0], &steady[1]}, {&steady[1], &steady[0]}}});
    }
  }

  // Each frame, of one step or several, reads the set current_ names and writes the other.
  int step(int step, int /*steps*/, int most, CUstream_st* stream) override {
    if (loops_) {
      const int per_frame = step_frame_.steps();
      const int frames = frames_that_fit(loops_->frames_per_launch(), per_frame, step, most,
                                         [](int) { return false; });
      if (frames >= 2) {
        loops_->launch(frames, current_, stream);
        current_ ^= static_cast<std::size_t>(frames % 2);
        done_ = step + frames * per_frame;
        return frames * per_frame;
      }
    }
    const int taken = std::min(step_frame_.steps(), most);
    frames_[static_cast<std::size_t>(taken - 1)][current_].launch(stream);
    current_ ^= 1;
    done_ = step + taken;
    return taken;
  }

  void settle() override {
    if (loops_) loops_->wait();
    for (auto& pair : frames_) {
      for (Frame& frame : pair) frame.wait();
    }
  }

  void reset() override {
    load_initial();
    current_ = 0;
    done_ = 0;
  }

  std::vector<Frame*> frames() override {
    std::vector<Frame*> all;
    for (auto& pair : frames_) {
      for (Frame& frame : pair) all.push_back(&frame);
    }
    return all;
  }
  // The frame the steady state runs: k steps.
  [[nodiscard]] const FramePlan* step_plan() const override { return &frames_.back()[0].plan(); }
  [[nodiscard]] std::string launch_line() const override {
    return loops_ ? loops_->line() : std::string{};
  }
  [[nodiscard]] Coord3 process_grid() const override { return grid_.process_grid(); }

  [[nodiscard]] bool has_field() const override { return true; }

  // The values sit at the points x_i = i / n (the mode is sampled there), on the periodic box:
  // VTK closes it with the point x = 1, which is x = 0 again.
  void output(int done) override {
    const Buffer& current = current_ == 0 ? u_ : u_new_;
    const double time = dt_ * static_cast<double>(done);
    OwnedField out{.step = done,
                   .time = time,
                   .dimensions = 3,
                   .centring = Centring::points,
                   .periodic = {true, true, true}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_samples[axis] = grid_.spec().global_cells[axis];
      out.offset[axis] = grid_.global_offset()[axis];
      out.samples[axis] = layout_.owned[axis];
      out.spacing[axis] = 1.0 / static_cast<double>(config_.cells[axis]);
    }
    FieldArray field{.name = "u", .units = "dimensionless"};
    for (const T value : owned_values<T>(current, layout_)) {
      field.values.push_back(static_cast<double>(value));
    }
    // The error against the exact solution now, while the field is on the host anyway.
    if (config_.run.wants().samples) sample_errors(done, time, field.values);
    out.arrays.push_back(std::move(field));
    config_.run.tell().field(out);
  }

  [[nodiscard]] bool saves_state() const override { return true; }

  // A checkpoint holds the owned cells of two fields (x fastest), not the ghosts, whose depth
  // depends on the steps a frame takes: so it restarts under any steps_per_frame. After n steps
  // the field is the first for even n, the second for odd n (where one step a frame leaves it:
  // the layout of every checkpoint heat3d has written). A restart loads the field into u. The
  // exchange fills the ghosts before any step reads them; the x images are filled on restart.
  std::vector<unsigned char> save() override {
    std::vector<unsigned char> state(2 * owned_bytes_);
    const Buffer& field = current_ == 0 ? u_ : u_new_;
    const Buffer& other = current_ == 0 ? u_new_ : u_;
    const std::size_t at = done_ % 2 == 0 ? 0 : owned_bytes_;
    std::memcpy(state.data() + at, owned_values<T>(field, layout_).data(), owned_bytes_);
    std::memcpy(state.data() + (owned_bytes_ - at), owned_values<T>(other, layout_).data(),
                owned_bytes_);
    return state;
  }

  void restart_at(int step, const std::vector<unsigned char>& state) override {
    check_state_size("heat3d", state.size(), 2 * owned_bytes_);
    const std::size_t at = step % 2 == 0 ? 0 : owned_bytes_;
    upload_owned(u_, state.data() + at);
    upload_owned(u_new_, state.data() + (owned_bytes_ - at));
    current_ = 0;
    done_ = step;
  }

  //! What the run found after `steps` steps: the scheme's and the exact amplitude, the errors
  //! against the exact solution, and (with run.gather) the field on rank 0. Collective.
  void finish(int steps, HeatResult<T>& result) const {
    result.dt = dt_;
    result.final_time = dt_ * steps;
    result.steps_per_frame = step_frame_.steps();
    const double cell_count = static_cast<double>(config_.cells[0]) *
                              static_cast<double>(config_.cells[1]) *
                              static_cast<double>(config_.cells[2]);
    // A pass reads u and writes u_new once, the deep pass for its k steps (a frame before an
    // output, a checkpoint or the end, of fewer steps, takes a pass too).
    result.steps_per_pass = step_frame_.steps();
    result.bytes_per_step =
        2.0 * cell_count * static_cast<double>(sizeof(T)) / result.steps_per_pass;
    result.amplitude_exact = exact_amplitude(config_.mode, config_.nu, result.final_time);
    result.amplitude_scheme = scheme_amplitude(
        {static_cast<double>(coefficients_.x), static_cast<double>(coefficients_.y),
         static_cast<double>(coefficients_.z)},
        config_.cells, config_.mode, steps);
    result.predicted_error_max =
        std::abs(result.amplitude_scheme - result.amplitude_exact) * mode_.largest();

    const Buffer& last = current_ == 0 ? u_ : u_new_;
    std::vector<T> local(static_cast<std::size_t>(layout_.field_elements()));
    last.download(local.data(), bytes_);
    double errors[2] = {0, 0};  // largest, sum of squares
    for_owned_cells(grid_, layout_, mode_, [&](std::int64_t at, double value) {
      const double error =
          static_cast<double>(local[static_cast<std::size_t>(at)]) - result.amplitude_exact * value;
      errors[0] = std::max(errors[0], std::abs(error));
      errors[1] += error * error;
    });
    double largest = 0;
    double squares = 0;
    const BoundedCollectives collectives(communicator_, config_.run.exchange_timeout);
    collectives.allreduce(&errors[0], &largest, 1, MPI_DOUBLE, MPI_MAX, "heat3d largest error");
    collectives.allreduce(&errors[1], &squares, 1, MPI_DOUBLE, MPI_SUM, "heat3d error's squares");
    result.error_max = largest;
    result.error_rms = std::sqrt(squares / cell_count);
    // Every rank's redundant cells (collective), and their share of the frame's owned work.
    std::int64_t redundant = step_frame_.redundant_cells();
    collectives.allreduce(&redundant, &result.redundant_cells_per_frame, 1, MPI_INT64_T, MPI_SUM,
                          "heat3d redundant cells");
    result.redundant_fraction =
        static_cast<double>(result.redundant_cells_per_frame) / (cell_count * step_frame_.steps());
    if (config_.run.gather) result.field = gather_global<T>(last, layout_, grid_, collectives);
  }

  [[nodiscard]] std::vector<HaloRoute> halo_routes() const override { return exchange_.routes(); }

 private:
  [[nodiscard]] std::vector<T> initial_field() const {
    std::vector<T> initial(static_cast<std::size_t>(layout_.field_elements()), T(0));
    for_owned_cells(grid_, layout_, mode_, [&](std::int64_t at, double value) {
      initial[static_cast<std::size_t>(at)] = static_cast<T>(value);
    });
    if (x_images_) fill_x_images(layout_, initial);
    return initial;
  }

  //! `initial` loaded into u and u_new, returned.
  std::vector<T> uploaded(std::vector<T> initial) {
    u_.upload(initial.data(), bytes_);
    u_new_.upload(initial.data(), bytes_);
    return initial;
  }

  void load_initial() {
    u_.upload(initial_.data(), bytes_);
    u_new_.upload(initial_.data(), bytes_);
  }

  //! The owned cells at `from` (x fastest) into `field`, the ghosts zero but for the x images.
  void upload_owned(Buffer& field, const unsigned char* from) {
    std::vector<T> values(static_cast<std::size_t>(layout_.field_elements()), T(0));
    std::size_t next = 0;
    for (std::int64_t k = owned_.lo[2]; k < owned_.hi[2]; ++k) {
      for (std::int64_t j = owned_.lo[1]; j < owned_.hi[1]; ++j) {
        for (std::int64_t i = owned_.lo[0]; i < owned_.hi[0]; ++i, ++next) {
          std::memcpy(&values[static_cast<std::size_t>(layout_.offset(i, j, k))],
                      from + next * sizeof(T), sizeof(T));
        }
      }
    }
    if (x_images_) fill_x_images(layout_, values);
    field.upload(values.data(), bytes_);
  }

  [[nodiscard]] T coefficient(int axis) const {
    const auto n = static_cast<double>(config_.cells[static_cast<std::size_t>(axis)]);
    return static_cast<T>(config_.nu * dt_ * n * n);
  }

  // Two frames, one per parity, each built and patched once: even steps read u and write u_new,
  // odd steps the other way round, so the steady state launches without patching anything. The
  // update is cut only along the axes whose halos travel: the ghosts a rank copies to itself are
  // in place (the self copy) before the interior starts, and the x ghosts, when x wraps, were
  // written by the step before, so on one rank the step is the copy of the y and z faces and one
  // sweep of the whole box, with no slab (at 512^3 the six slabs cost 80 us a step, the x slabs
  // one cell wide, and a copy of the x faces 30 us: a cache line per cell).
  Frame build_frame(std::size_t set) {
    const Box owned = layout_.owned_box();
    const CellSplit cells = split_update(owned, layout_, kStar, exchange_.remote_axes());
    const T* from = (set == 0 ? u_ : u_new_).template as<const T>();
    T* to = (set == 0 ? u_new_ : u_).template as<T>();
    // Strict: the edges written here must order every pair of accesses that conflict.
    FramePlan plan(set == 0 ? "heat3d even" : "heat3d odd", EdgeRule::strict);
    plan.name_field(from, set == 0 ? "u" : "u_new");
    plan.name_field(to, set == 0 ? "u_new" : "u");
    const ExchangeNodes nodes = exchange_.add_to(plan, {}, set);
    const auto add_step = [&](const Box& box, NodeOptions options) {
      if (box.empty()) return;
      // A sweep reads its box and one cell around it, and writes its box (and, when x wraps,
      // the ghost images of its first and last columns).
      Box written = box;
      if (x_images_) written = grown(box, {layout_.ghost_width, 0, 0});
      options.access = {reads(from, grown(box, {1, 1, 1})), writes(to, written)};
      const kernels::CellBox cell = cell_box(box, layout_);
      // Not cut along x when x wraps (no halo travels along it), so each box spans the owned x
      // range and its first and last columns are the faces.
      if (x_images_ && (box.lo[0] != owned.lo[0] || box.hi[0] != owned.hi[0])) {
        throw Error("heat3d: a box that does not span the owned x range on a wrapping x axis");
      }
      plan.add_kernel(std::move(options), kernels::heat_kernel<T>(x_images_),
                      kernels::heat_launch(cell), cell, x_images_, coefficients_, from, to);
    };
    add_step(cells.interior, {.name = "interior", .after = nodes.after_self()});
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      add_step(cells.boundary[i], {.name = fmt::format("boundary.{}", i),
                                   .lane = Lane::communication,
                                   .after = {nodes.unpack}});
    }
    Frame frame(std::move(plan), config_.run.executor, config_.run.frame_options());
    exchange_.use_field_set(frame, set);
    return frame;
  }

  // A frame of `steps` (2 to k) steps from field set `set` into the other: the exchange (ghosts
  // k deep, edges and corners too), then the deep pass (kernels::heat_deep_kernel: the steps in
  // one pass over the field, the ghost layers recomputed inside it), cut in two like a step's
  // sweep: the cells `steps` deep inside along the axes whose halos travel read no travelling
  // ghost and run in the bulk lane while the halos travel; the slabs around them after the
  // unpack. A frame moves the field to the other set whatever its steps (current_).
  Frame build_steps_frame(int steps, std::size_t set) {
    const StepFrame frame_steps(one_step(grid_, kStar), steps, kMostHeatStepsPerFrame, kStepsField);
    const std::array<bool, 3> travelling = exchange_.remote_axes();
    const T* from = (set == 0 ? u_ : u_new_).template as<const T>();
    T* to = (set == 0 ? u_new_ : u_).template as<T>();
    FramePlan plan(fmt::format("heat3d {} steps {}", steps, set == 0 ? "even" : "odd"),
                   EdgeRule::strict);
    plan.name_field(from, set == 0 ? "u" : "u_new");
    plan.name_field(to, set == 0 ? "u_new" : "u");
    const ExchangeNodes nodes = exchange_.add_to(plan, {}, set);
    // The pass reads `steps` cells around its box along every axis: heat3d's axes all wrap, so
    // every one is exchanged, k deep.
    if (frame_steps.exchanged() != std::array<bool, 3>{true, true, true}) {
      throw Error("heat3d: a frame of several steps with an axis whose ghosts are not exchanged");
    }
    const CellSplit cells = split_box(owned_, frame_steps.before_halos(steps, owned_, travelling));
    const int reach = steps;
    const auto add_pass = [&](const Box& box, NodeOptions options) {
      const kernels::CellBox cell = cell_box(box, layout_);
      options.access = {reads(from, grown(box, {reach, reach, reach})), writes(to, box)};
      plan.add_kernel(std::move(options), kernels::heat_deep_kernel<T>(steps),
                      kernels::heat_deep_launch(cell, steps), cell, coefficients_, from, to);
    };
    if (!cells.interior.empty()) {
      add_pass(cells.interior, {.name = "interior", .after = nodes.after_self()});
    }
    for (std::size_t i = 0; i < cells.boundary.size(); ++i) {
      add_pass(cells.boundary[i], {.name = fmt::format("boundary.{}", i),
                                   .lane = Lane::communication,
                                   .after = {nodes.unpack}});
    }
    Frame frame(std::move(plan), config_.run.executor, config_.run.frame_options());
    exchange_.use_field_set(frame, set);
    return frame;
  }

  //! Hands RunListener::sample the errors of `values` (this rank's owned u after `done` steps, at
  //! `time`) against the exact solution. Collective.
  void sample_errors(int done, double time, const std::vector<double>& values) const {
    const double amplitude = exact_amplitude(config_.mode, config_.nu, time);
    double errors[2] = {0, 0};  // largest, sum of squares
    std::size_t next = 0;
    for_owned_cells(grid_, layout_, mode_, [&](std::int64_t, double value) {
      const double error = values[next++] - amplitude * value;
      errors[0] = std::max(errors[0], std::abs(error));
      errors[1] += error * error;
    });
    double largest = 0;
    double squares = 0;
    const BoundedCollectives live(communicator_, config_.run.exchange_timeout);
    live.allreduce(&errors[0], &largest, 1, MPI_DOUBLE, MPI_MAX,
                   fmt::format("heat3d largest error at step {}", done));
    live.allreduce(&errors[1], &squares, 1, MPI_DOUBLE, MPI_SUM,
                   fmt::format("heat3d error's squares at step {}", done));
    const double cell_count = static_cast<double>(config_.cells[0]) *
                              static_cast<double>(config_.cells[1]) *
                              static_cast<double>(config_.cells[2]);
    config_.run.tell().sample({.step = done,
                               .time = time,
                               .dt = dt_,
                               .error_max = largest,
                               .error_rms = std::sqrt(squares / cell_count)});
  }

  const HeatConfig& config_;
  MPI_Comm communicator_;
  const CartesianDecomposition grid_;
  const StepFrame step_frame_;
  const HaloPlan halo_;
  const FieldLayout& layout_;
  const std::size_t bytes_;
  Buffer u_;
  Buffer u_new_;
  const SineMode mode_;
  const bool x_images_;
  const std::vector<T> initial_;
  HaloExchange<T> exchange_;
  const double dt_;
  const kernels::HeatCoefficients<T> coefficients_;
  const Box owned_;
  const std::size_t owned_bytes_;
  //! [steps - 1][parity of the first step]: the frames of 1 to k steps.
  std::vector<std::array<Frame, 2>> frames_;
  std::optional<FrameLoops> loops_;  // run.frames_per_launch > 1: the k-step frames as loops
  std::size_t current_ = 0;          // the field's set: 0 u, 1 u_new (each frame swaps them)
  int done_ = 0;                     // the steps the field has taken (save's layout)
};

}  // namespace

template <class T>
HeatStepsChoice choose_heat_steps_per_frame(const HeatConfig& config, MPI_Comm communicator) {
  validate(config);
  const int most = most_steps_per_frame(one_step(decompose(config, communicator), kStar),
                                        kMostHeatStepsPerFrame);
  HeatStepsChoice choice;
  if (most <= 1) return choice;  // a share too thin for ghosts two deep: nothing to compare
  // One configuration per k, alive while its trial's state refers to it.
  std::vector<HeatConfig> trials(static_cast<std::size_t>(most), config);
  std::vector<MeasuredCandidate> candidates;
  for (int k = 1; k <= most; ++k) {
    HeatConfig& trial = trials[static_cast<std::size_t>(k - 1)];
    trial.steps_per_frame = k;
    candidates.push_back(
        {.build = [&trial,
                   communicator] { return std::make_unique<HeatStepping<T>>(trial, communicator); },
         .frame_steps = k});
  }
  const MeasuredChoice measured =
      choose_by_measuring(config.run, communicator, candidates, kStepsPerFrameTolerance);
  choice.steps = static_cast<int>(measured.chosen) + 1;
  choice.seconds_per_step = measured.seconds_per_step;
  choice.steps_timed = measured.steps_timed;
  choice.seconds = measured.seconds;
  return choice;
}

template <class T>
HeatResult<T> run_heat3d(const HeatConfig& asked, MPI_Comm communicator) {
  std::optional<HeatStepsChoice> chosen;
  HeatConfig config = asked;
  if (asked.steps_per_frame == kAutoHeatStepsPerFrame) {
    chosen = choose_heat_steps_per_frame<T>(asked, communicator);
    config.steps_per_frame = chosen->steps;
  }
  HeatStepping<T> state(config, communicator);
  HeatResult<T> result;
  result.auto_steps = std::move(chosen);
  result.process_grid = state.process_grid();
  result.times = run_timed_steps(config.run, communicator, state);
  state.finish(config.run.steps, result);
  return result;
}

template HeatStepsChoice choose_heat_steps_per_frame<float>(const HeatConfig&, MPI_Comm);
template HeatStepsChoice choose_heat_steps_per_frame<double>(const HeatConfig&, MPI_Comm);
template HeatResult<float> run_heat3d<float>(const HeatConfig&, MPI_Comm);
template HeatResult<double> run_heat3d<double>(const HeatConfig&, MPI_Comm);

}  // namespace haloflow::models
