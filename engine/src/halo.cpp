#include "haloflow/halo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "haloflow/error.hpp"

namespace haloflow {

Index3 FieldLayout::extent() const {
  Index3 cells = owned;
  for (int axis = 0; axis < dimensions && axis < 3; ++axis) cells[axis] += 2 * ghost_width;
  return cells;
}

std::int64_t FieldLayout::field_elements() const {
  const Index3 cells = extent();
  return cells[0] * cells[1] * cells[2];
}

std::int64_t FieldLayout::offset(std::int64_t i, std::int64_t j, std::int64_t k) const {
  const Index3 cells = extent();
  return i + cells[0] * (j + cells[1] * k);
}

Box FieldLayout::owned_box() const {
  Box box{.lo = {0, 0, 0}, .hi = owned};
  for (int axis = 0; axis < dimensions && axis < 3; ++axis) {
    box.lo[axis] += ghost_width;
    box.hi[axis] += ghost_width;
  }
  return box;
}

int direction_code(Coord3 direction) {
  return (direction[0] + 1) + 3 * (direction[1] + 1) + 9 * (direction[2] + 1);
}

namespace {

void check_radius(const Stencil& stencil, int ghost_width) {
  if (stencil.radius < 1) {
    throw Error(
        fmt::format("Stencil.radius: {} is not allowed; expected at least 1", stencil.radius));
  }
  if (ghost_width < stencil.radius) {
    throw Error(fmt::format("ghost_width: {} is not allowed; expected at least Stencil.radius ({})",
                            ghost_width, stencil.radius));
  }
}

bool is_unit(int value) {
  return value == 0 || value == 1;
}

void check_axes(const Stencil& stencil, int dimensions) {
  const Coord3& axes = stencil.axes;
  bool reads_active = false;
  for (int axis = 0; axis < 3; ++axis) {
    if (axis < dimensions && axes[axis] == 1) reads_active = true;
  }
  if (!is_unit(axes[0]) || !is_unit(axes[1]) || !is_unit(axes[2]) || !reads_active) {
    throw Error(fmt::format(
        "Stencil.axes: {{{}, {}, {}}} is not allowed; expected 0 or 1 per axis and 1 on at least "
        "one active axis (the first {})",
        axes[0], axes[1], axes[2], dimensions));
  }
}

// The send and receive ranges [lo, hi) on one axis for a direction component `step`: the last or
// first g owned layers go out, the ghost layers on that side come in; 0 means the owned range.
struct AxisRanges {
  std::pair<std::int64_t, std::int64_t> send;
  std::pair<std::int64_t, std::int64_t> receive;
};

AxisRanges axis_ranges(std::int64_t owned, std::int64_t g, int step) {
  if (step < 0) return {{g, 2 * g}, {0, g}};
  if (step > 0) return {{owned, owned + g}, {g + owned, owned + 2 * g}};
  return {{g, g + owned}, {g, g + owned}};
}

}  // namespace

HaloPlan make_halo_plan(const CartesianDecomposition& grid, const Stencil& stencil, int ghost_width,
                        int fields) {
  check_radius(stencil, ghost_width);
  const auto& spec = grid.spec();
  const int dimensions = spec.dimensions;
  check_axes(stencil, dimensions);
  if (fields < 1) {
    throw Error(fmt::format("fields: {} is not allowed; expected at least 1", fields));
  }
  for (int axis = 0; axis < dimensions; ++axis) {
    if (stencil.axes[axis] == 0) continue;  // not read: no ghosts travel along it
    const int ranks = spec.process_grid[axis];
    const bool has_neighbours = ranks > 1 || spec.boundary[axis] == Boundary::periodic;
    // The smallest share on the axis, so that every rank refuses the same plan.
    const std::int64_t fewest = spec.global_cells[axis] / ranks;
    if (has_neighbours && fewest < ghost_width) {
      throw Error(fmt::format(
          "ghost_width: {} is not allowed; expected at most {}, the fewest cells a rank owns on "
          "axis {} (global_cells[{}] = {} over process_grid[{}] = {}), which has neighbours",
          ghost_width, fewest, axis, axis, spec.global_cells[axis], axis, ranks));
    }
  }

  HaloPlan plan;
  plan.layout = FieldLayout{.owned = grid.local_cells(),
                            .ghost_width = ghost_width,
                            .dimensions = dimensions,
                            .fields = fields};
  const Index3 owned = plan.layout.owned;
  // The ghosts beyond a face with no neighbour: the ghost layers along its axis, the owned range
  // along the others.
  const auto wall_ghosts = [&](const Coord3& direction) {
    Box ghosts = plan.layout.owned_box();
    for (int axis = 0; axis < dimensions; ++axis) {
      if (direction[axis] == 0) continue;
      const auto ranges = axis_ranges(owned[axis], ghost_width, direction[axis]);
      ghosts.lo[axis] = ranges.receive.first;
      ghosts.hi[axis] = ranges.receive.second;
    }
    return ghosts;
  };
  // Increasing direction_code: x varies fastest.
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const Coord3 direction{dx, dy, dz};
        int moving = 0;
        bool inactive_step = false;
        bool unread_step = false;
        for (int axis = 0; axis < 3; ++axis) {
          if (direction[axis] == 0) continue;
          ++moving;
          if (axis >= dimensions) inactive_step = true;
          if (stencil.axes[axis] == 0) unread_step = true;
        }
        if (moving == 0 || inactive_step) continue;
        const std::optional<int> peer = grid.neighbour(direction);
        if (moving == 1 && !peer) {
          plan.walls.push_back(WallFace{.direction = direction, .ghosts = wall_ghosts(direction)});
        }
        if (stencil.shape == StencilShape::star && moving > 1) continue;
        if (unread_step || !peer) continue;

        HaloMessage message{.direction = direction, .peer = *peer};
        for (int axis = 0; axis < 3; ++axis) {
          if (axis >= dimensions) {
            message.send.hi[axis] = message.receive.hi[axis] = owned[axis];
            continue;
          }
          const auto ranges = axis_ranges(owned[axis], ghost_width, direction[axis]);
          message.send.lo[axis] = ranges.send.first;
          message.send.hi[axis] = ranges.send.second;
          message.receive.lo[axis] = ranges.receive.first;
          message.receive.hi[axis] = ranges.receive.second;
        }
        message.elements = fields * message.send.volume();
        message.send_offset = plan.send_elements;
        message.receive_offset = plan.receive_elements;
        message.send_tag = direction_code(direction);
        message.receive_tag = direction_code({-dx, -dy, -dz});
        plan.send_elements += message.elements;
        plan.receive_elements += fields * message.receive.volume();
        plan.messages.push_back(message);
      }
    }
  }
  return plan;
}

CellSplit split_owned_cells(const FieldLayout& layout, const Stencil& stencil) {
  check_radius(stencil, layout.ghost_width);
  check_axes(stencil, layout.dimensions);
  const Box owned = layout.owned_box();
  // The interior range per active axis, kept inside the owned range even when the rank is
  // thinner than 2r (then the interior is empty and the slabs cover everything).
  Box inner = owned;
  for (int axis = 0; axis < layout.dimensions && axis < 3; ++axis) {
    if (stencil.axes[axis] == 0) continue;  // read along no other cell: nothing to wait for
    inner.lo[axis] = std::min(owned.lo[axis] + stencil.radius, owned.hi[axis]);
    inner.hi[axis] = std::max(inner.lo[axis], owned.hi[axis] - stencil.radius);
  }
  return split_box(owned, inner);
}

CellSplit split_box(const Box& update, const Box& inner) {
  Box interior = update;
  for (int axis = 0; axis < 3; ++axis) {
    interior.lo[axis] = std::clamp(inner.lo[axis], update.lo[axis], update.hi[axis]);
    interior.hi[axis] = std::clamp(inner.hi[axis], interior.lo[axis], update.hi[axis]);
  }
  CellSplit split{.interior = interior, .boundary = {}};
  if (update.empty()) return split;
  for (int axis = 0; axis < 3; ++axis) {
    // Axes before this one are limited to the interior range (earlier slabs hold the rest);
    // axes after it span the whole update range.
    Box slab = update;
    for (int before = 0; before < axis; ++before) {
      slab.lo[before] = interior.lo[before];
      slab.hi[before] = interior.hi[before];
    }
    Box low = slab;
    low.hi[axis] = interior.lo[axis];
    Box high = slab;
    high.lo[axis] = interior.hi[axis];
    for (const Box& box : {low, high}) {
      if (!box.empty()) split.boundary.push_back(box);
    }
  }
  return split;
}

}  // namespace haloflow
