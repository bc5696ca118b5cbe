#include "haloflow/decomposition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "haloflow/error.hpp"

namespace haloflow {

std::int64_t Box::volume() const {
  std::int64_t cells = 1;
  for (int axis = 0; axis < 3; ++axis) cells *= std::max<std::int64_t>(0, hi[axis] - lo[axis]);
  return cells;
}

bool Box::empty() const {
  return volume() == 0;
}

bool Box::contains(const Index3& cell) const {
  for (int axis = 0; axis < 3; ++axis) {
    if (cell[axis] < lo[axis] || cell[axis] >= hi[axis]) return false;
  }
  return true;
}

namespace {

std::string shown(const Coord3& values) {
  return fmt::format("{{{}, {}, {}}}", values[0], values[1], values[2]);
}

void check_dimensions(int dimensions, std::string_view field) {
  if (dimensions < 1 || dimensions > 3) {
    throw Error(fmt::format("{}: {} is not allowed; expected 1, 2 or 3", field, dimensions));
  }
}

// The lexicographically smallest non-increasing tuple of `count` factors of `n`, each at most
// `bound`: its largest factor is as small as possible, then the next one, and so on. That is the
// most balanced split, the one MPI_Dims_create returns.
std::optional<std::vector<int>> balanced_factors(int n, int count, int bound) {
  if (count == 0) {
    if (n == 1) return std::vector<int>{};
    return std::nullopt;
  }
  for (int factor = 1; factor <= std::min(n, bound); ++factor) {
    if (n % factor != 0) continue;
    // The other factors are at most `factor`, so factor^count must reach n.
    std::int64_t reach = 1;
    for (int i = 0; i < count && reach < n; ++i) reach *= factor;
    if (reach < n) continue;
    if (auto rest = balanced_factors(n / factor, count - 1, factor)) {
      rest->insert(rest->begin(), factor);
      return rest;
    }
  }
  return std::nullopt;
}

}  // namespace

Coord3 balanced_process_grid(int ranks, int dimensions, Coord3 fixed) {
  check_dimensions(dimensions, "balanced_process_grid: dimensions");
  if (ranks < 1) {
    throw Error(
        fmt::format("balanced_process_grid: ranks {} is not allowed; expected at least 1", ranks));
  }
  std::int64_t fixed_product = 1;
  int free_axes = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const bool active = axis < dimensions;
    if (fixed[axis] < 0 || (!active && fixed[axis] > 1)) {
      throw Error(fmt::format(
          "balanced_process_grid: fixed[{}] = {} is not allowed; expected {}", axis, fixed[axis],
          active ? "0 (free) or a positive rank count"
                 : fmt::format("0 or 1 on an axis beyond dimensions ({})", dimensions)));
    }
    if (!active) continue;
    if (fixed[axis] == 0) {
      ++free_axes;
    } else {
      fixed_product *= fixed[axis];
    }
  }
  if (ranks % fixed_product != 0 || (free_axes == 0 && fixed_product != ranks)) {
    throw Error(fmt::format(
        "balanced_process_grid: fixed entries {} (product {}) do not fit {} ranks; expected "
        "fixed entries whose product {} the rank count",
        shown(fixed), fixed_product, ranks, free_axes == 0 ? "equals" : "divides"));
  }
  const auto factors = balanced_factors(static_cast<int>(ranks / fixed_product), free_axes, ranks);
  Coord3 grid{1, 1, 1};
  std::size_t next = 0;
  for (int axis = 0; axis < dimensions; ++axis) {
    grid[axis] = fixed[axis] != 0 ? fixed[axis] : (*factors)[next++];
  }
  return grid;
}

CartesianDecomposition::CartesianDecomposition(const DecompositionSpec& spec, int rank_count,
                                               int rank)
    : spec_(spec), rank_count_(rank_count), rank_(rank) {
  if (rank_count < 1) {
    throw Error(fmt::format("rank_count: {} is not allowed; expected at least 1", rank_count));
  }
  check_dimensions(spec.dimensions, "DecompositionSpec.dimensions");
  const auto beyond = fmt::format("1 on an axis beyond dimensions ({})", spec.dimensions);
  for (int axis = 0; axis < 3; ++axis) {
    const bool active = axis < spec.dimensions;
    const auto cells = spec.global_cells[axis];
    if (cells < 1 || (!active && cells != 1)) {
      throw Error(fmt::format("DecompositionSpec.global_cells[{}]: {} is not allowed; expected {}",
                              axis, cells, active ? "at least 1" : beyond));
    }
    const int ranks = spec.process_grid[axis];
    if (ranks < 1 || (!active && ranks != 1)) {
      throw Error(fmt::format(
          "DecompositionSpec.process_grid[{}]: {} is not allowed; expected {}", axis, ranks,
          active ? "at least 1 (fill free entries with balanced_process_grid)" : beyond));
    }
  }
  const std::int64_t product =
      std::int64_t{spec.process_grid[0]} * spec.process_grid[1] * spec.process_grid[2];
  if (product != rank_count) {
    throw Error(fmt::format(
        "DecompositionSpec.process_grid: {} ({} ranks) is not allowed; expected a product equal "
        "to rank_count ({})",
        shown(spec.process_grid), product, rank_count));
  }
  for (int axis = 0; axis < spec.dimensions; ++axis) {
    if (spec.process_grid[axis] > spec.global_cells[axis]) {
      throw Error(
          fmt::format("DecompositionSpec.process_grid[{}]: {} is not allowed; expected at most "
                      "global_cells[{}] ({}), so that every rank owns a cell",
                      axis, spec.process_grid[axis], axis, spec.global_cells[axis]));
    }
  }
  if (rank < 0 || rank >= rank_count) {
    throw Error(fmt::format("rank: {} is not allowed; expected 0 to {} (rank_count {})", rank,
                            rank_count - 1, rank_count));
  }
}

Coord3 CartesianDecomposition::coordinates_of(int rank) const {
  if (rank < 0 || rank >= rank_count_) {
    throw Error(fmt::format("coordinates_of: rank {} is not allowed; expected 0 to {}", rank,
                            rank_count_ - 1));
  }
  const auto& grid = spec_.process_grid;
  return {rank % grid[0], (rank / grid[0]) % grid[1], rank / (grid[0] * grid[1])};
}

int CartesianDecomposition::rank_at(Coord3 coordinates) const {
  const auto& grid = spec_.process_grid;
  for (int axis = 0; axis < 3; ++axis) {
    if (coordinates[axis] < 0 || coordinates[axis] >= grid[axis]) {
      throw Error(fmt::format(
          "rank_at: coordinates {} are not allowed; expected each within the process grid {}",
          shown(coordinates), shown(grid)));
    }
  }
  return coordinates[0] + grid[0] * (coordinates[1] + grid[1] * coordinates[2]);
}

Index3 CartesianDecomposition::local_cells_of(int rank) const {
  const Coord3 at = coordinates_of(rank);
  Index3 cells{};
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t n = spec_.global_cells[axis];
    const int p = spec_.process_grid[axis];
    cells[axis] = n / p + (at[axis] < n % p ? 1 : 0);
  }
  return cells;
}

Index3 CartesianDecomposition::global_offset_of(int rank) const {
  const Coord3 at = coordinates_of(rank);
  Index3 offset{};
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t n = spec_.global_cells[axis];
    const int p = spec_.process_grid[axis];
    offset[axis] = at[axis] * (n / p) + std::min<std::int64_t>(at[axis], n % p);
  }
  return offset;
}

std::optional<int> CartesianDecomposition::neighbour(Coord3 direction) const {
  bool valid = direction != Coord3{0, 0, 0};
  for (int axis = 0; axis < 3; ++axis) {
    const int step = direction[axis];
    if (step < -1 || step > 1 || (axis >= spec_.dimensions && step != 0)) valid = false;
  }
  if (!valid) {
    throw Error(fmt::format(
        "neighbour: direction {} is not allowed; expected components -1, 0 or +1, not all 0, and "
        "0 on axes beyond dimensions ({})",
        shown(direction), spec_.dimensions));
  }
  Coord3 at = coordinates();
  const auto& grid = spec_.process_grid;
  for (int axis = 0; axis < 3; ++axis) {
    at[axis] += direction[axis];
    if (at[axis] >= 0 && at[axis] < grid[axis]) continue;
    if (spec_.boundary[axis] == Boundary::physical) return std::nullopt;
    at[axis] = (at[axis] + grid[axis]) % grid[axis];
  }
  return rank_at(at);
}

}  // namespace haloflow
