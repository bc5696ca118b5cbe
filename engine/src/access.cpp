// Accesses: boxes, their overlap, and the edge rule from code or HALOFLOW_EDGES.

#include "haloflow/access.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "haloflow/error.hpp"

namespace haloflow {

std::string_view to_string(AccessMode mode) {
  return mode == AccessMode::read ? "read" : "write";
}

Box buffer_cells(std::int64_t count) {
  return Box{.lo = {0, 0, 0}, .hi = {count, 1, 1}};
}

Box grown(const Box& box, const Coord3& by) {
  Box wide = box;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    wide.lo[axis] -= by[axis];
    wide.hi[axis] += by[axis];
  }
  return wide;
}

Box every_cell() {
  constexpr std::int64_t kFar = std::int64_t{1} << 61;  // hi - lo still fits
  return Box{.lo = {-kFar, -kFar, -kFar}, .hi = {kFar, kFar, kFar}};
}

Box intersection(const Box& a, const Box& b) {
  Box both;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    both.lo[axis] = std::max(a.lo[axis], b.lo[axis]);
    both.hi[axis] = std::max(both.lo[axis], std::min(a.hi[axis], b.hi[axis]));
  }
  return both;
}

std::string_view to_string(EdgeRule rule) {
  switch (rule) {
    case EdgeRule::derive:
      return "derive";
    case EdgeRule::strict:
      return "strict";
    case EdgeRule::accesses:
      return "accesses";
  }
  return "derive";
}

std::optional<EdgeRule> edge_rule_from_string(std::string_view text) {
  for (const EdgeRule rule : {EdgeRule::derive, EdgeRule::strict, EdgeRule::accesses}) {
    if (text == to_string(rule)) return rule;
  }
  return std::nullopt;
}

std::optional<EdgeRule> edge_rule_from_environment() {
  const char* value = std::getenv("HALOFLOW_EDGES");
  if (value == nullptr || *value == '\0') return std::nullopt;
  if (const auto rule = edge_rule_from_string(value)) return rule;
  throw Error(
      fmt::format("HALOFLOW_EDGES={} is not allowed; expected derive, strict or accesses", value));
}

}  // namespace haloflow
