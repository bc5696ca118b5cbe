// The Cartesian decomposition: process grids, shares of cells, neighbours, validation messages.

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/error.hpp"

using namespace haloflow;

namespace {

std::string construction_message(const DecompositionSpec& spec, int rank_count, int rank) {
  try {
    const CartesianDecomposition grid(spec, rank_count, rank);
  } catch (const Error& error) {
    return error.what();
  }
  return "valid";
}

std::string grid_message(int ranks, int dimensions, Coord3 fixed) {
  try {
    (void)balanced_process_grid(ranks, dimensions, fixed);
  } catch (const Error& error) {
    return error.what();
  }
  return "valid";
}

DecompositionSpec spec_of(int dimensions, Index3 cells, Coord3 grid,
                          Boundary boundary = Boundary::periodic) {
  return DecompositionSpec{.dimensions = dimensions,
                           .global_cells = cells,
                           .process_grid = grid,
                           .boundary = {boundary, boundary, boundary}};
}

}  // namespace

TEST_CASE("balanced_process_grid matches MPI_Dims_create") {
  struct Case {
    int ranks;
    int dimensions;
    Coord3 fixed;
    Coord3 expected;
  };
  // The first four are the examples of the MPI standard; the rest follow its rule (as close to
  // each other as possible, non-increasing).
  const std::vector<Case> cases{
      {6, 2, {0, 0, 0}, {3, 2, 1}},  {7, 2, {0, 0, 0}, {7, 1, 1}},
      {6, 3, {0, 3, 0}, {2, 3, 1}},  {12, 3, {0, 0, 0}, {3, 2, 2}},
      {16, 3, {0, 0, 0}, {4, 2, 2}}, {1, 3, {0, 0, 0}, {1, 1, 1}},
      {8, 3, {0, 0, 0}, {2, 2, 2}},  {24, 3, {0, 0, 0}, {4, 3, 2}},
      {36, 3, {0, 0, 0}, {4, 3, 3}}, {64, 3, {0, 0, 0}, {4, 4, 4}},
      {30, 3, {0, 0, 0}, {5, 3, 2}}, {4, 2, {0, 0, 0}, {2, 2, 1}},
      {9, 1, {0, 0, 0}, {9, 1, 1}},  {12, 2, {0, 0, 0}, {4, 3, 1}},
      {8, 3, {0, 0, 2}, {2, 2, 2}},  {12, 3, {3, 0, 0}, {3, 2, 2}},
      {6, 2, {2, 3, 0}, {2, 3, 1}},  {2, 3, {0, 0, 0}, {2, 1, 1}},
      {96, 3, {0, 0, 0}, {6, 4, 4}}, {1000, 3, {0, 0, 0}, {10, 10, 10}},
      {18, 3, {0, 0, 0}, {3, 3, 2}}, {13, 3, {0, 0, 0}, {13, 1, 1}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.ranks);
    CAPTURE(c.dimensions);
    CHECK(balanced_process_grid(c.ranks, c.dimensions, c.fixed) == c.expected);
  }
}

TEST_CASE("balanced_process_grid refuses fixed entries that do not fit") {
  CHECK(grid_message(7, 3, {0, 3, 0}) ==
        "balanced_process_grid: fixed entries {0, 3, 0} (product 3) do not fit 7 ranks; expected "
        "fixed entries whose product divides the rank count");
  CHECK(grid_message(6, 2, {2, 2, 0}) ==
        "balanced_process_grid: fixed entries {2, 2, 0} (product 4) do not fit 6 ranks; expected "
        "fixed entries whose product equals the rank count");
  CHECK(grid_message(4, 4, {0, 0, 0}) ==
        "balanced_process_grid: dimensions: 4 is not allowed; expected 1, 2 or 3");
  CHECK(grid_message(0, 2, {0, 0, 0}) ==
        "balanced_process_grid: ranks 0 is not allowed; expected at least 1");
  CHECK(grid_message(4, 2, {-1, 0, 0}) ==
        "balanced_process_grid: fixed[0] = -1 is not allowed; expected 0 (free) or a positive "
        "rank count");
  CHECK(grid_message(4, 2, {0, 0, 2}) ==
        "balanced_process_grid: fixed[2] = 2 is not allowed; expected 0 or 1 on an axis beyond "
        "dimensions (2)");
}

TEST_CASE("shares with uneven remainders sum to the global count, with contiguous offsets") {
  const std::vector<DecompositionSpec> specs{
      spec_of(3, {10, 7, 5}, {3, 2, 4}), spec_of(2, {13, 4, 1}, {5, 4, 1}),
      spec_of(1, {17, 1, 1}, {6, 1, 1}), spec_of(3, {8, 8, 8}, {2, 2, 2}),
      spec_of(3, {5, 3, 9}, {5, 3, 4}),  spec_of(2, {100, 3, 1}, {7, 3, 1})};
  for (const auto& spec : specs) {
    const int ranks = spec.process_grid[0] * spec.process_grid[1] * spec.process_grid[2];
    const CartesianDecomposition any(spec, ranks, 0);
    std::int64_t owned_total = 0;
    for (int rank = 0; rank < ranks; ++rank) {
      const CartesianDecomposition grid(spec, ranks, rank);
      CHECK(grid.local_cells() == any.local_cells_of(rank));
      CHECK(grid.global_offset() == any.global_offset_of(rank));
      const Index3 cells = grid.local_cells();
      owned_total += cells[0] * cells[1] * cells[2];
      for (int axis = 0; axis < 3; ++axis) {
        const auto n = spec.global_cells[axis];
        const auto p = spec.process_grid[axis];
        const int at = grid.coordinates()[axis];
        // The first n % p ranks get one more cell.
        CHECK(cells[axis] == n / p + (at < n % p ? 1 : 0));
        // The next rank along the axis starts where this one ends.
        if (at + 1 < p) {
          Coord3 next = grid.coordinates();
          ++next[axis];
          CHECK(any.global_offset_of(any.rank_at(next))[axis] ==
                grid.global_offset()[axis] + cells[axis]);
        } else {
          CHECK(grid.global_offset()[axis] + cells[axis] == n);
        }
        if (at == 0) CHECK(grid.global_offset()[axis] == 0);
      }
    }
    CHECK(owned_total == spec.global_cells[0] * spec.global_cells[1] * spec.global_cells[2]);
  }
}

TEST_CASE("ranks are numbered x fastest and coordinates round-trip") {
  const auto spec = spec_of(3, {9, 9, 9}, {3, 2, 4});
  const CartesianDecomposition grid(spec, 24, 0);
  CHECK(grid.rank_at({1, 0, 0}) == 1);
  CHECK(grid.rank_at({0, 1, 0}) == 3);
  CHECK(grid.rank_at({0, 0, 1}) == 6);
  CHECK(grid.rank_at({2, 1, 3}) == 2 + 3 * (1 + 2 * 3));
  for (int rank = 0; rank < 24; ++rank) {
    CHECK(grid.rank_at(grid.coordinates_of(rank)) == rank);
    CHECK(CartesianDecomposition(spec, 24, rank).coordinates() == grid.coordinates_of(rank));
  }
  CHECK_THROWS_AS((void)grid.coordinates_of(24), Error);
  CHECK_THROWS_AS((void)grid.rank_at({3, 0, 0}), Error);
}

TEST_CASE("neighbours wrap on periodic axes and stop at physical ones") {
  auto spec = spec_of(2, {12, 12, 1}, {4, 3, 1});
  spec.boundary = {Boundary::periodic, Boundary::physical, Boundary::periodic};
  // Rank at (0, 0): x wraps to 3, y has nothing below.
  const CartesianDecomposition corner(spec, 12, 0);
  CHECK(corner.neighbour({-1, 0, 0}) == 3);
  CHECK(corner.neighbour({1, 0, 0}) == 1);
  CHECK(corner.neighbour({0, 1, 0}) == 4);
  CHECK(corner.neighbour({0, -1, 0}) == std::nullopt);
  CHECK(corner.neighbour({-1, 1, 0}) == 7);
  CHECK(corner.neighbour({-1, -1, 0}) == std::nullopt);
  // Rank at (3, 2): x wraps to 0, y has nothing above.
  const CartesianDecomposition far(spec, 12, 11);
  CHECK(far.coordinates() == Coord3{3, 2, 0});
  CHECK(far.neighbour({1, 0, 0}) == 8);
  CHECK(far.neighbour({0, 1, 0}) == std::nullopt);
  CHECK(far.neighbour({1, -1, 0}) == 4);
}

TEST_CASE("one rank on a periodic axis is its own neighbour; two ranks are each other's twice") {
  const CartesianDecomposition alone(spec_of(3, {4, 4, 4}, {1, 1, 1}), 1, 0);
  for (const Coord3 direction :
       {Coord3{1, 0, 0}, Coord3{-1, 0, 0}, Coord3{0, 0, -1}, Coord3{1, 1, 1}, Coord3{-1, 1, 0}}) {
    CHECK(alone.neighbour(direction) == 0);
  }
  const CartesianDecomposition walled(spec_of(3, {4, 4, 4}, {1, 1, 1}, Boundary::physical), 1, 0);
  CHECK(walled.neighbour({1, 0, 0}) == std::nullopt);

  const auto pair = spec_of(2, {8, 8, 1}, {2, 1, 1});
  for (int rank = 0; rank < 2; ++rank) {
    const CartesianDecomposition grid(pair, 2, rank);
    CHECK(grid.neighbour({1, 0, 0}) == 1 - rank);
    CHECK(grid.neighbour({-1, 0, 0}) == 1 - rank);
    CHECK(grid.neighbour({0, 1, 0}) == rank);
    CHECK(grid.neighbour({1, -1, 0}) == 1 - rank);
  }
}

TEST_CASE("a bad direction is refused") {
  const CartesianDecomposition grid(spec_of(2, {4, 4, 1}, {2, 2, 1}), 4, 0);
  std::string message;
  try {
    (void)grid.neighbour({0, 0, 1});
  } catch (const Error& error) {
    message = error.what();
  }
  CHECK(message ==
        "neighbour: direction {0, 0, 1} is not allowed; expected components -1, 0 or +1, not all "
        "0, and 0 on axes beyond dimensions (2)");
  CHECK_THROWS_AS((void)grid.neighbour({0, 0, 0}), Error);
  CHECK_THROWS_AS((void)grid.neighbour({2, 0, 0}), Error);
}

TEST_CASE("each validation error names the field, the value and what is allowed") {
  CHECK(construction_message(spec_of(3, {4, 4, 4}, {2, 2, 1}), 4, 0) == "valid");
  CHECK(construction_message(spec_of(4, {4, 4, 4}, {2, 2, 1}), 4, 0) ==
        "DecompositionSpec.dimensions: 4 is not allowed; expected 1, 2 or 3");
  CHECK(construction_message(spec_of(0, {4, 4, 4}, {2, 2, 1}), 4, 0) ==
        "DecompositionSpec.dimensions: 0 is not allowed; expected 1, 2 or 3");
  CHECK(construction_message(spec_of(3, {4, 0, 4}, {2, 2, 1}), 4, 0) ==
        "DecompositionSpec.global_cells[1]: 0 is not allowed; expected at least 1");
  CHECK(construction_message(spec_of(2, {4, 4, 4}, {2, 2, 1}), 4, 0) ==
        "DecompositionSpec.global_cells[2]: 4 is not allowed; expected 1 on an axis beyond "
        "dimensions (2)");
  CHECK(construction_message(spec_of(3, {4, 4, 4}, {0, 2, 2}), 4, 0) ==
        "DecompositionSpec.process_grid[0]: 0 is not allowed; expected at least 1 (fill free "
        "entries with balanced_process_grid)");
  CHECK(construction_message(spec_of(1, {4, 1, 1}, {2, 2, 1}), 4, 0) ==
        "DecompositionSpec.process_grid[1]: 2 is not allowed; expected 1 on an axis beyond "
        "dimensions (1)");
  CHECK(construction_message(spec_of(3, {4, 4, 4}, {2, 3, 1}), 4, 0) ==
        "DecompositionSpec.process_grid: {2, 3, 1} (6 ranks) is not allowed; expected a product "
        "equal to rank_count (4)");
  CHECK(construction_message(spec_of(2, {3, 8, 1}, {4, 1, 1}), 4, 0) ==
        "DecompositionSpec.process_grid[0]: 4 is not allowed; expected at most global_cells[0] "
        "(3), so that every rank owns a cell");
  CHECK(construction_message(spec_of(3, {4, 4, 4}, {2, 2, 1}), 4, 4) ==
        "rank: 4 is not allowed; expected 0 to 3 (rank_count 4)");
  CHECK(construction_message(spec_of(3, {4, 4, 4}, {2, 2, 1}), 4, -1) ==
        "rank: -1 is not allowed; expected 0 to 3 (rank_count 4)");
  CHECK(construction_message(spec_of(3, {4, 4, 4}, {1, 1, 1}), 0, 0) ==
        "rank_count: 0 is not allowed; expected at least 1");
}

TEST_CASE("boxes count their cells and are empty when any axis is") {
  CHECK(Box{{0, 0, 0}, {2, 3, 4}}.volume() == 24);
  CHECK(Box{{1, 1, 1}, {2, 3, 4}}.volume() == 6);
  CHECK(Box{{0, 0, 0}, {2, 0, 4}}.empty());
  CHECK(Box{{0, 5, 0}, {2, 3, 4}}.volume() == 0);
  CHECK(Box{}.empty());
  CHECK(Box{{0, 0, 0}, {1, 1, 1}}.contains({0, 0, 0}));
  CHECK_FALSE(Box{{0, 0, 0}, {1, 1, 1}}.contains({1, 0, 0}));
}
