#include "haloflow/steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "haloflow/error.hpp"

namespace haloflow {
namespace {

constexpr const char* kAxisNames[] = {"x", "y", "z"};

bool active(const OneStep& step, std::size_t axis) {
  return static_cast<int>(axis) < step.dimensions;
}

//! The exchanged axis whose thinnest share holds the fewest steps' ghosts, or 3 when none.
std::size_t tightest_axis(const OneStep& step) {
  const std::array<bool, 3> exchanged = exchanged_axes(step);
  std::size_t tightest = 3;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (!exchanged[axis]) continue;
    if (tightest == 3 || step.thinnest[axis] < step.thinnest[tightest]) tightest = axis;
  }
  return tightest;
}

std::string plural(std::int64_t count, std::string_view noun) {
  return fmt::format("{} {}{}", count, noun, count == 1 ? "" : "s");
}

}  // namespace

OneStep one_step(const CartesianDecomposition& grid, const Stencil& stencil) {
  const DecompositionSpec& spec = grid.spec();
  OneStep step{.stencil = stencil,
               .dimensions = spec.dimensions,
               .owned = grid.local_cells(),
               .process_grid = grid.process_grid()};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    // The first ranks get the remainder (CartesianDecomposition), so the last one is thinnest.
    step.thinnest[axis] = spec.global_cells[axis] / step.process_grid[axis];
    if (!active(step, axis)) continue;
    for (const int side : {0, 1}) {
      Coord3 direction{0, 0, 0};
      direction[axis] = side == 0 ? -1 : 1;
      step.neighbour[axis][static_cast<std::size_t>(side)] = grid.neighbour(direction).has_value();
    }
  }
  return step;
}

std::array<bool, 3> exchanged_axes(const OneStep& step) {
  std::array<bool, 3> exchanged{false, false, false};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    exchanged[axis] = active(step, axis) && step.stencil.axes[axis] == 1 &&
                      (step.neighbour[axis][0] || step.neighbour[axis][1]);
  }
  return exchanged;
}

int most_steps_per_frame(const OneStep& step, int limit) {
  const std::size_t axis = tightest_axis(step);
  if (axis == 3 || step.stencil.radius < 1) return limit;
  const std::int64_t fit = step.thinnest[axis] / step.stencil.radius;
  return static_cast<int>(std::min<std::int64_t>(fit, limit));
}

std::optional<std::string> step_frame_refusal(const OneStep& step, int steps, int limit,
                                              std::string_view field) {
  const int most = most_steps_per_frame(step, limit);
  const std::string allowed =
      most < 1    ? std::string("a grid whose ranks own at least the stencil's radius")
      : most == 1 ? std::string("1")
                  : fmt::format("1 to {}", most);
  if (steps < 1 || steps > limit) {
    return fmt::format("{}: {} is not allowed; expected {}", field, steps, allowed);
  }
  if (steps <= most) return std::nullopt;
  const std::size_t axis = tightest_axis(step);
  const int r = step.stencil.radius;
  const int ranks = step.process_grid[axis];
  return fmt::format(
      "{}: {} is not allowed on this process grid: {} steps a frame of a radius-{} stencil need "
      "ghosts {} deep, and a rank owns {} along {} (the thinnest share of {}{}); expected {}",
      field, steps, steps, r, steps * r, plural(step.thinnest[axis], "cell"), kAxisNames[axis],
      plural(ranks, "rank"), ranks == 1 ? ", periodic: its own neighbour" : "", allowed);
}

int fastest_steps_per_frame(const std::vector<double>& seconds_per_step, double tolerance) {
  if (seconds_per_step.empty())
    throw Error("fastest_steps_per_frame: no step times to choose from");
  if (!std::isfinite(tolerance) || tolerance < 0) {
    throw Error(
        fmt::format("fastest_steps_per_frame: a tolerance of {} is not allowed; expected a "
                    "finite fraction of at least 0",
                    tolerance));
  }
  for (std::size_t k = 0; k < seconds_per_step.size(); ++k) {
    if (!std::isfinite(seconds_per_step[k]) || seconds_per_step[k] < 0) {
      throw Error(
          fmt::format("fastest_steps_per_frame: {} s a step with {} a frame is not a "
                      "time; expected a finite number of at least 0",
                      seconds_per_step[k], plural(static_cast<std::int64_t>(k) + 1, "step")));
    }
  }
  const double fastest = std::ranges::min(seconds_per_step);
  const auto first_close = std::ranges::find_if(
      seconds_per_step, [&](double s) { return s <= fastest * (1 + tolerance); });
  return static_cast<int>(first_close - seconds_per_step.begin()) + 1;
}

StepFrame::StepFrame(const OneStep& step, int steps, int limit, std::string_view field)
    : step_(step), steps_(steps), exchanged_(exchanged_axes(step)) {
  if (const auto refusal = step_frame_refusal(step, steps, limit, field)) throw Error(*refusal);
}

Stencil StepFrame::exchange_stencil() const {
  Stencil stencil = step_.stencil;
  stencil.radius = ghost_depth();
  if (steps_ > 1) stencil.shape = StencilShape::box;
  return stencil;
}

Box StepFrame::computed(int sub_step, const Box& owned) const {
  if (sub_step < 1 || sub_step > steps_) {
    throw Error(fmt::format("StepFrame::computed: sub-step {} is not allowed; expected 1 to {}",
                            sub_step, steps_));
  }
  Box box = owned;
  const std::int64_t grow = std::int64_t{steps_ - sub_step} * step_.stencil.radius;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (owned.hi[axis] - owned.lo[axis] != step_.owned[axis]) {
      throw Error(fmt::format(
          "StepFrame::computed: an owned box of {} along {} is not allowed; this rank owns {}",
          plural(owned.hi[axis] - owned.lo[axis], "cell"), kAxisNames[axis], step_.owned[axis]));
    }
    if (!exchanged_[axis]) continue;
    // No neighbour beyond a side (a physical boundary): nothing there to compute ahead of.
    if (step_.neighbour[axis][0]) box.lo[axis] -= grow;
    if (step_.neighbour[axis][1]) box.hi[axis] += grow;
  }
  return box;
}

Box StepFrame::before_halos(int sub_step, const Box& owned,
                            const std::array<bool, 3>& travelling) const {
  Box box = computed(sub_step, owned);
  const std::int64_t depth = std::int64_t{sub_step} * step_.stencil.radius;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (!travelling[axis]) continue;
    box.lo[axis] = std::max(box.lo[axis], owned.lo[axis] + depth);
    box.hi[axis] = std::max(std::min(box.hi[axis], owned.hi[axis] - depth), box.lo[axis]);
  }
  return box;
}

std::int64_t StepFrame::redundant_cells() const {
  Box owned;
  owned.hi = step_.owned;
  std::int64_t extra = 0;
  for (int s = 1; s <= steps_; ++s) extra += computed(s, owned).volume() - owned.volume();
  return extra;
}

double StepFrame::redundant_fraction() const {
  const double owned = static_cast<double>(step_.owned[0]) * static_cast<double>(step_.owned[1]) *
                       static_cast<double>(step_.owned[2]);
  return static_cast<double>(redundant_cells()) / (owned * steps_);
}

}  // namespace haloflow
