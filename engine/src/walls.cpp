#include "haloflow/walls.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "haloflow/error.hpp"
#include "haloflow/halo_exchange.hpp"

namespace haloflow {

template <class T>
void add_wall_node(FramePlan& plan, NodeOptions options, const HaloPlan& halo,
                   std::span<T* const> fields, std::span<const FieldWall> rules, Coord3 axes) {
  const std::string& node = options.name;
  if (fields.empty() || fields.size() > static_cast<std::size_t>(kWallFields)) {
    throw Error(fmt::format("add_wall_node \"{}\": {} fields is not allowed; expected 1 to {}",
                            node, fields.size(), kWallFields));
  }
  if (rules.size() != 1 && rules.size() != fields.size()) {
    throw Error(fmt::format(
        "add_wall_node \"{}\": {} rules is not allowed; expected 1 (for every field) or {} (one "
        "per field)",
        node, rules.size(), fields.size()));
  }
  for (int axis = 0; axis < 3; ++axis) {
    if (axes[axis] != 0 && axes[axis] != 1) {
      throw Error(fmt::format(
          "add_wall_node \"{}\": axes {{{}, {}, {}}} is not allowed; expected 0 or 1 per axis",
          node, axes[0], axes[1], axes[2]));
    }
  }
  const FieldLayout& layout = halo.layout;
  WallFields<T> set;
  set.count = static_cast<int>(fields.size());
  for (std::size_t f = 0; f < fields.size(); ++f) {
    if (fields[f] == nullptr) {
      throw Error(fmt::format("add_wall_node \"{}\": field {} is null", node, f));
    }
    const FieldWall& rule = rules[rules.size() == 1 ? 0 : f];
    set.fields[f] = fields[f];
    set.rules[f] = static_cast<std::int32_t>(rule.rule);
    set.values[f] = static_cast<T>(rule.value);
  }
  const Index3 extent = layout.extent();
  set.stride_y = extent[0];
  set.stride_z = extent[0] * extent[1];

  WallSegments faces;
  std::int64_t cells = 0;
  for (const WallFace& wall : halo.walls) {
    int axis = 0;
    while (axis < 2 && wall.direction[axis] == 0) ++axis;
    if (axes[axis] == 0 || wall.ghosts.empty()) continue;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const WallRule rule = rules[rules.size() == 1 ? 0 : f].rule;
      const bool mirrors = rule == WallRule::reflect || rule == WallRule::reflect_negated;
      if (mirrors && layout.owned[axis] < layout.ghost_width) {
        throw Error(fmt::format(
            "add_wall_node \"{}\": field {} reflects across the wall {} but this rank owns {} "
            "cells along axis {}; expected at least the ghost width ({})",
            node, f, direction_name(wall.direction), layout.owned[axis], axis, layout.ghost_width));
      }
    }
    // Never more than 6: a plan has one wall per face.
    WallSegment& face = faces.items[faces.count++];
    face.offset = cells;
    for (int a = 0; a < 3; ++a) {
      face.lower[a] = wall.ghosts.lo[a];
      face.extent[a] = wall.ghosts.hi[a] - wall.ghosts.lo[a];
    }
    face.axis = axis;
    face.side = wall.direction[axis];
    const Box owned = layout.owned_box();
    face.wall = face.side < 0 ? owned.lo[axis] : owned.hi[axis];
    cells += wall.ghosts.volume();
    // What the node reads and writes: the ghosts beyond the face, from the owned layers next to
    // the wall (as many as there are ghost layers; a fixed value reads none).
    Box inside = wall.ghosts;
    const std::int64_t layers = std::min<std::int64_t>(layout.ghost_width, layout.owned[axis]);
    inside.lo[axis] = face.side < 0 ? owned.lo[axis] : owned.hi[axis] - layers;
    inside.hi[axis] = inside.lo[axis] + layers;
    for (std::size_t f = 0; f < fields.size(); ++f) {
      options.access.push_back(writes(fields[f], wall.ghosts));
      if (rules[rules.size() == 1 ? 0 : f].rule != WallRule::fixed) {
        options.access.push_back(reads(fields[f], inside));
      }
    }
  }
  if (faces.count == 0) {
    plan.add_empty(std::move(options));
    return;
  }
  const auto count = static_cast<std::size_t>(cells);
  plan.add_kernel(std::move(options), wall_kernel<T>(), LaunchShape::cover(count, 128), count,
                  faces, set);
}

template void add_wall_node<float>(FramePlan&, NodeOptions, const HaloPlan&,
                                   std::span<float* const>, std::span<const FieldWall>, Coord3);
template void add_wall_node<double>(FramePlan&, NodeOptions, const HaloPlan&,
                                    std::span<double* const>, std::span<const FieldWall>, Coord3);

}  // namespace haloflow
