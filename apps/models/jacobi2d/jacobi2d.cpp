// jacobi2d on the engine: a frame of k steps where it can (k = 2, 4 or 8: halo exchange of `a` k
// cells deep, interior sweep in the bulk lane, boundary sweeps after the unpack, each sweep taking
// the k steps in one pass over memory), one of one step otherwise, and one of one step with the
// norm's nodes for the steps that report it; each in one executable frame per field set (the two
// buffers swap without patching); the norms are logged on the device and read back in batches.
// With run.frames_per_launch above 1, the steady frames of both sets also as loops
// (frame_loops.hpp) that run up to the next norm step in one launch. The frames' plans:
// jacobi2d_frames.cpp.

#include "jacobi2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
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
#include "jacobi2d_frames.hpp"
#include "timed_steps.hpp"

namespace haloflow::models {
namespace {

constexpr Stencil kStar{StencilShape::star, 1};

// k steps of the star: a diamond of radius k, whose cells off both axes are diagonal, so a 2D
// process grid needs its corner ghosts too.
Stencil k_steps(int steps) {
  return {StencilShape::box, steps};
}

// Frames of these steps have a sweep that takes them in one pass.
bool sweeps_in_one_pass(int steps) {
  return steps == 1 || steps == 2 || steps == 4 || steps == 8;
}

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
  if (!sweeps_in_one_pass(c.steps_per_frame) && c.steps_per_frame != kAutoStepsPerFrame) {
    throw Error(fmt::format(
        "jacobi2d steps_per_frame: {} is not allowed; expected 1, 2, 4 or 8 (that many steps in "
        "one sweep) or {} (auto)",
        c.steps_per_frame, kAutoStepsPerFrame));
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

//! The fixed columns this rank holds, in its local indices.
kernels::FixedColumns fixed_columns(const CartesianDecomposition& grid, const FieldLayout& layout) {
  const Box owned = layout.owned_box();
  const std::int64_t first = grid.global_offset()[0];
  const bool right = first + layout.owned[0] == grid.spec().global_cells[0];
  return {.left = first == 0 ? owned.lo[0] : -1, .right = right ? owned.hi[0] - 1 : -1};
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

//! The frame of `kind` for field set `set` (0: read a, write a_new; 1: the other way round):
//! exchange, interior sweep (bulk lane), boundary sweeps after the unpack (communication lane).
//! With the norm: the sweeps also write their blocks' sums of the squared update, and one node
//! after them logs the total. Built and patched once; the steady state only launches it.
template <class T>
Frame build_frame(jacobi::FrameKind kind, std::size_t set, HaloExchange<T>& exchange,
                  const jacobi::Sweeps& sweeps, const jacobi::Buffers& buffers,
                  const JacobiConfig& config) {
  Frame frame(jacobi::frame_plan(kind, set, exchange, sweeps, buffers), config.run.executor,
              config.run.frame_options());
  exchange.use_field_set(frame, set);
  return frame;
}

}  // namespace

JacobiFrameSteps jacobi_frame_steps(const JacobiConfig& config, const Coord3& process_grid) {
  // The cells the process grid cuts: all columns along x (physical), the computed rows along y
  // (periodic: a neighbour even on one rank).
  const std::array<std::int64_t, 2> cells = {config.nx, config.ny - 2};
  const std::array<bool, 2> periodic = {false, true};
  const std::array<const char*, 2> unit = {"column", "computed row"};
  std::array<std::int64_t, 2> fewest{};
  for (std::size_t axis = 0; axis < 2; ++axis) {
    fewest[axis] = cells[axis] / std::max<std::int64_t>(process_grid[axis], 1);
  }
  // The thinnest share along an axis with a neighbour, in words, when it is thinner than `steps`
  // ghost layers (the rule of make_halo_plan); empty when they fit.
  const auto thin = [&](int steps) -> std::string {
    for (std::size_t axis = 0; axis < 2; ++axis) {
      const std::int64_t ranks = std::max<std::int64_t>(process_grid[axis], 1);
      if ((ranks > 1 || periodic[axis]) && fewest[axis] < steps) {
        return fmt::format("{} {}{} along {} ({} over {} rank{})", fewest[axis], unit[axis],
                           fewest[axis] == 1 ? "" : "s", axis == 0 ? "x" : "y", cells[axis], ranks,
                           ranks == 1 ? "" : "s");
      }
    }
    return "";
  };
  JacobiFrameSteps result;
  if (config.steps_per_frame != kAutoStepsPerFrame) {
    result.steps = config.steps_per_frame;
    result.thin = result.steps > 1 ? thin(result.steps) : "";
    return result;
  }
  const std::int64_t share = std::min(fewest[0], fewest[1]);
  for (const auto& [steps, least] : {std::pair{8, kDeepShare[0]}, std::pair{4, kDeepShare[1]}}) {
    if (share >= least && thin(steps).empty()) {
      result.steps = steps;
      result.why = fmt::format("every rank computes at least {} cells along each axis", least);
      return result;
    }
  }
  result.thin = thin(2);
  result.steps = result.thin.empty() ? 2 : 1;
  return result;
}

namespace {

const JacobiConfig& validated(const JacobiConfig& config) {
  validate(config);
  return config;
}

//! The frames' steps, refused when the case asks for k steps a frame where their k ghost layers do
//! not fit the process grid.
JacobiFrameSteps checked_frame_steps(const JacobiConfig& config, const Coord3& process_grid) {
  const JacobiFrameSteps frame_steps = jacobi_frame_steps(config, process_grid);
  if (frame_steps.steps > 1 && !frame_steps.thin.empty()) {
    throw Error(fmt::format(
        "jacobi2d steps_per_frame: {0} is not allowed on this process grid: {0} steps a frame fill "
        "{0} ghost layers, and it leaves a rank {1}; expected fewer steps, 1 or auto (the most of "
        "8, 4 and 2 steps a frame that fit, else one)",
        frame_steps.steps, frame_steps.thin));
  }
  return frame_steps;
}

//! A jacobi2d run's state on this rank: both arrays, the exchange, every kind of frame for both
//! field sets, and the norms logged on the device and read back in batches.
template <class T>
class JacobiStepping final : public SteppingState {
 public:
  JacobiStepping(const JacobiConfig& config, MPI_Comm communicator)
      : config_(validated(config)),
        communicator_(communicator),
        grid_(decompose(config, communicator)),
        frame_steps_(checked_frame_steps(config, grid_.process_grid()).steps),
        halo_(frame_steps_ > 1 ? make_halo_plan(grid_, k_steps(frame_steps_), frame_steps_, 1)
                               : make_halo_plan(grid_, kStar, 1, 1)),
        layout_(halo_.layout),
        bytes_(static_cast<std::size_t>(layout_.field_elements()) * sizeof(T)),
        update_(update_box(grid_, layout_)),
        fixed_(fixed_columns(grid_, layout_)),
        sweeps_(
            jacobi::plan_sweeps(split_update(update_, layout_, kStar), layout_, config, 1, fixed_)),
        buffers_(bytes_, sweeps_, backend_of(config.run.executor)),
        initial_(uploaded(initial_values<T>(config, grid_, layout_))),
        exchange_(halo_, communicator,
                  {{buffers_.a.template as<T>()}, {buffers_.b.template as<T>()}},
                  backend_of(config.run.executor),
                  {.timeout = config.run.exchange_timeout,
                   .transport = config.run.transport,
                   .self_on_device = config.run.self_on_device,
                   .name = "halo"}),
        owned_(layout_.owned_box()),
        owned_bytes_(static_cast<std::size_t>(owned_.volume()) * sizeof(T)) {
    // Each kind of frame built, instantiated and patched once for both field sets (set 0 reads a
    // and writes a_new, set 1 the other way round; each frame moves the field to the other set),
    // so that no step patches anything: one step, one step with the norm's nodes (steps without
    // the norm pay nothing for it), and with k steps a frame the sweeps that take k.
    const auto build_both = [&](jacobi::FrameKind kind, const jacobi::Sweeps& kind_sweeps) {
      frames_.push_back({build_frame(kind, 0, exchange_, kind_sweeps, buffers_, config_),
                         build_frame(kind, 1, exchange_, kind_sweeps, buffers_, config_)});
    };
    build_both(jacobi::FrameKind::step, sweeps_);
    build_both(jacobi::FrameKind::step_with_norm, sweeps_);
    if (frame_steps_ > 1) {
      build_both(jacobi::FrameKind::k_steps,
                 jacobi::plan_sweeps(split_update(update_, layout_, k_steps(frame_steps_)), layout_,
                                     config_, frame_steps_, fixed_));
    }
    // Several frames a launch: the frames the steady state runs, from either field set.
    if (config_.run.frames_per_launch > 1) {
      auto& steady = frames_[kind_index(steady_kind())];
      loops_.emplace(config_.run.frames_per_launch,
                     std::array<std::array<Frame*, 2>, 2>{
                         {{&steady[0], &steady[1]}, {&steady[1], &steady[0]}}});
    }
  }

  int step(int step, int steps, int most, CUstream_st* stream) override {
    if (loops_) {
      // The steady frames up to the next norm step (its own frame, and the log's reader) or
      // the boundary `most` says.
      const int per_frame = frame_steps_;
      const int frames = frames_that_fit(loops_->frames_per_launch(), per_frame, step, most,
                                         [&](int s) { return norm_due(s, steps); });
      if (frames >= 2) {
        loops_->launch(frames, current_, stream);
        current_ ^= static_cast<std::size_t>(frames % 2);
        done_steps_ = step + frames * per_frame;
        return frames * per_frame;
      }
    }
    const bool norm = norm_due(step, steps);
    bool deep = frame_steps_ > 1 && most >= frame_steps_;
    for (int k = 0; deep && k < frame_steps_; ++k) deep = !norm_due(step + k, steps);
    const jacobi::FrameKind kind = deep   ? jacobi::FrameKind::k_steps
                                   : norm ? jacobi::FrameKind::step_with_norm
                                          : jacobi::FrameKind::step;
    if (norm && logged_steps_.size() == jacobi::kNormLogCapacity) read_norms();
    frames_[kind_index(kind)][current_].launch(stream);
    current_ ^= 1U;
    if (norm) logged_steps_.push_back(step);
    const int taken = deep ? frame_steps_ : 1;
    done_steps_ = step + taken;
    return taken;
  }

  void settle() override {
    wait_all();
    read_norms();
  }

  void reset() override {
    load_initial();
    current_ = 0;
    done_steps_ = 0;
    forget_norms();
  }

  std::vector<Frame*> frames() override {
    std::vector<Frame*> all;
    for (auto& pair : frames_) {
      for (Frame& frame : pair) all.push_back(&frame);
    }
    return all;
  }

  // The frame the steady state runs most (without the norm).
  [[nodiscard]] const FramePlan* step_plan() const override {
    return &frames_[kind_index(steady_kind())][0].plan();
  }

  [[nodiscard]] std::string launch_line() const override {
    return loops_ ? loops_->line() : std::string{};
  }

  [[nodiscard]] Coord3 process_grid() const override { return grid_.process_grid(); }

  [[nodiscard]] bool has_field() const override { return true; }

  // The reference's grid points: x = i / (nx - 1) over all nx columns, y = row / (ny - 1) for
  // the computed rows 1 to ny-2; y is periodic (row ny-1 is row 1 again). No physical time.
  void output(int done) override {
    const double hx = 1.0 / static_cast<double>(config_.nx - 1);
    const double hy = 1.0 / static_cast<double>(config_.ny - 1);
    OwnedField out{.step = done,
                   .time = static_cast<double>(done),
                   .steady = true,
                   .dimensions = 2,
                   .centring = Centring::points,
                   .origin = {0, hy, 0},
                   .spacing = {hx, hy, 1},
                   .periodic = {false, true, false}};
    for (std::size_t axis = 0; axis < 3; ++axis) {
      out.global_samples[axis] = grid_.spec().global_cells[axis];
      out.offset[axis] = grid_.global_offset()[axis];
      out.samples[axis] = layout_.owned[axis];
    }
    FieldArray a{.name = "a", .units = "dimensionless"};
    for (const T value : owned_values<T>(current_field(), layout_)) {
      a.values.push_back(static_cast<double>(value));
    }
    out.arrays.push_back(std::move(a));
    config_.run.tell().field(out);
  }

  // The norms read so far go out as they are read: the steps that report one wait for it.
  void sample(int done) override {
    const int step = done - 1;  // the step just launched
    const int every = std::max(config_.run.sample_every, 1);
    const bool norm_step = config_.norm_every > 0 && step % config_.norm_every == 0;
    if (config_.norm_every == 0 ||
        (done != config_.run.steps && !(norm_step && step % every == 0))) {
      return;
    }
    wait_all();
    read_norms();
    for (; norms_sampled_ < norms_.size(); ++norms_sampled_) {
      const NormSample& norm = norms_[norms_sampled_];
      config_.run.tell().sample({.step = norm.step, .norm = norm.value});
    }
  }

  [[nodiscard]] bool saves_state() const override { return true; }

  // A checkpoint after n steps holds the field in its first array when n is even, in its second
  // when n is odd, whatever frames took the steps (a k-step frame moves the field to the other
  // set once for k steps, k even), and of each array the owned cells only (x fastest), not the
  // ghosts, whose depth depends on the steps a frame takes: so it restarts the same under either
  // steps_per_frame. The ghosts are filled by the exchange before any sweep reads them; the
  // ghosts no exchange fills (beyond the fixed columns) are never read and start at zero.
  std::vector<unsigned char> save() override {
    std::vector<unsigned char> state(2 * owned_bytes_);
    const bool swapped = current_ != static_cast<std::size_t>(done_steps_ % 2);
    const std::vector<T> first = owned_values<T>(swapped ? buffers_.b : buffers_.a, layout_);
    const std::vector<T> second = owned_values<T>(swapped ? buffers_.a : buffers_.b, layout_);
    std::memcpy(state.data(), first.data(), owned_bytes_);
    std::memcpy(state.data() + owned_bytes_, second.data(), owned_bytes_);
    return state;
  }

  void restart_at(int step, const std::vector<unsigned char>& state) override {
    check_state_size("jacobi2d", state.size(), 2 * owned_bytes_);
    upload_owned(buffers_.a, state.data());
    upload_owned(buffers_.b, state.data() + owned_bytes_);
    done_steps_ = step;
    current_ = static_cast<std::size_t>(done_steps_ % 2);
    forget_norms();
  }

  //! The norms read by the end of the run (after settle()).
  [[nodiscard]] const std::vector<NormSample>& norms() const { return norms_; }

  //! Rank 0: the computed rows' owned cells of the whole grid (collective).
  [[nodiscard]] std::vector<T> gather() const {
    return gather_global<T>(current_field(), layout_, grid_,
                            BoundedCollectives(communicator_, config_.run.exchange_timeout));
  }

  [[nodiscard]] std::vector<HaloRoute> halo_routes() const override { return exchange_.routes(); }

 private:
  static std::size_t kind_index(jacobi::FrameKind kind) { return static_cast<std::size_t>(kind); }

  [[nodiscard]] jacobi::FrameKind steady_kind() const {
    return frame_steps_ > 1 ? jacobi::FrameKind::k_steps : jacobi::FrameKind::step;
  }

  [[nodiscard]] const Buffer& current_field() const {
    return current_ == 0 ? buffers_.a : buffers_.b;
  }

  void load_initial() {
    buffers_.a.upload(initial_.data(), bytes_);
    buffers_.b.upload(initial_.data(), bytes_);
  }

  //! `initial` loaded into both arrays, returned.
  std::vector<T> uploaded(std::vector<T> initial) {
    buffers_.a.upload(initial.data(), bytes_);
    buffers_.b.upload(initial.data(), bytes_);
    return initial;
  }

  void wait_all() {
    if (loops_) loops_->wait();
    for (auto& pair : frames_) {
      for (Frame& frame : pair) frame.wait();
    }
  }

  [[nodiscard]] bool norm_due(int step, int steps) const {
    return config_.norm_every > 0 && (step % config_.norm_every == 0 || step == steps - 1);
  }

  // Reads the logged sums (after the frames that wrote them), reduces them over the ranks in one
  // MPI_Allreduce, and empties the log. Collective: every rank logs the same steps.
  void read_norms() {
    if (logged_steps_.empty()) return;
    wait_all();
    const auto count = static_cast<std::size_t>(*buffers_.samples());
    if (count != logged_steps_.size()) {
      throw Error(fmt::format("jacobi2d norm log: {} sums logged for {} norm steps", count,
                              logged_steps_.size()));
    }
    std::vector<double> totals(count);
    BoundedCollectives(communicator_, config_.run.exchange_timeout)
        .allreduce(buffers_.values(), totals.data(), static_cast<int>(count), MPI_DOUBLE, MPI_SUM,
                   fmt::format("jacobi2d norms of steps {} to {}", logged_steps_.front(),
                               logged_steps_.back()));
    for (std::size_t k = 0; k < count; ++k) {
      norms_.push_back({logged_steps_[k], std::sqrt(totals[k])});
    }
    logged_steps_.clear();
    *buffers_.samples() = 0;
  }

  void forget_norms() {
    norms_.clear();
    norms_sampled_ = 0;
    logged_steps_.clear();
    *buffers_.samples() = 0;
  }

  void upload_owned(Buffer& field, const unsigned char* from) {
    std::vector<T> values(static_cast<std::size_t>(layout_.field_elements()), T(0));
    std::size_t next = 0;
    for (std::int64_t j = owned_.lo[1]; j < owned_.hi[1]; ++j) {
      for (std::int64_t i = owned_.lo[0]; i < owned_.hi[0]; ++i, ++next) {
        std::memcpy(&values[static_cast<std::size_t>(layout_.offset(i, j, 0))],
                    from + next * sizeof(T), sizeof(T));
      }
    }
    field.upload(values.data(), bytes_);
  }

  const JacobiConfig& config_;
  MPI_Comm communicator_;
  const CartesianDecomposition grid_;
  const int frame_steps_;  // steps a frame takes where it can: 1, 2, 4 or 8
  const HaloPlan halo_;
  const FieldLayout& layout_;
  const std::size_t bytes_;
  const Box update_;
  const kernels::FixedColumns fixed_;
  const jacobi::Sweeps sweeps_;
  jacobi::Buffers buffers_;
  const std::vector<T> initial_;
  HaloExchange<T> exchange_;
  const Box owned_;
  const std::size_t owned_bytes_;
  std::vector<std::array<Frame, 2>> frames_;
  std::optional<FrameLoops> loops_;  // run.frames_per_launch > 1: the steady frames as loops
  std::size_t current_ = 0;          // the field set holding the field: 0 a, 1 a_new
  int done_steps_ = 0;               // steps launched since the start (or the restart)
  std::vector<NormSample> norms_;
  // The steps whose norm frames were launched and whose logged sums the host has not read.
  std::vector<int> logged_steps_;
  std::size_t norms_sampled_ = 0;  // the norms RunListener::sample has been given
};

}  // namespace

template <class T>
JacobiResult<T> run_jacobi2d(const JacobiConfig& config, MPI_Comm communicator) {
  JacobiStepping<T> state(config, communicator);
  JacobiResult<T> result;
  result.process_grid = state.process_grid();
  // A pass reads a and writes a_new once; a k-step frame's pass takes k steps (a norm step and
  // the steps before one that are fewer than k take a pass each: with norm_every K, up to k/K
  // more).
  result.steps_per_pass = jacobi_frame_steps(config, result.process_grid).steps;
  result.bytes_per_step = 2.0 * static_cast<double>(config.nx) * static_cast<double>(config.ny) *
                          static_cast<double>(sizeof(T)) / result.steps_per_pass;
  result.times = run_timed_steps(config.run, communicator, state);
  result.norms = state.norms();
  if (config.run.gather) result.field = state.gather();
  return result;
}

template JacobiResult<float> run_jacobi2d<float>(const JacobiConfig&, MPI_Comm);
template JacobiResult<double> run_jacobi2d<double>(const JacobiConfig&, MPI_Comm);

}  // namespace haloflow::models
