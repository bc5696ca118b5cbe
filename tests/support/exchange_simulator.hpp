#pragma once
// A halo exchange simulated in one process: every rank of a decomposition gets its halo plan, its
// fields are filled with values that encode each cell's global position, and messages are packed,
// delivered by peer and tag, and unpacked as MPI would, so that every ghost cell can be checked
// against the global cell it mirrors, for a whole machine's worth of ranks, without MPI.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/halo.hpp"

namespace haloflow::testing {

//! One decomposition and stencil to exchange over.
struct Shape {
  int dimensions = 3;
  Index3 cells{1, 1, 1};
  Coord3 grid{1, 1, 1};
  std::array<Boundary, 3> boundary{Boundary::periodic, Boundary::periodic, Boundary::periodic};
  StencilShape stencil = StencilShape::star;
  int ghost_width = 1;
  int radius = 1;

  [[nodiscard]] int ranks() const { return grid[0] * grid[1] * grid[2]; }
  [[nodiscard]] DecompositionSpec spec() const;
  [[nodiscard]] std::string describe() const;
  //! Whether every rank owns at least ghost_width cells on every axis that has neighbours.
  [[nodiscard]] bool thick_enough() const;
};

//! Every shape the exchange and coverage tests run over: 1D, 2D and 3D, uneven splits, 1 to 8
//! ranks, every boundary mix, star and box stencils, ghost widths 1 and 2, radii 1 and 2.
[[nodiscard]] std::vector<Shape> all_shapes();

//! What a ghost cell mirrors: the global cell (wrapped on periodic axes), or nothing when it lies
//! beyond a physical boundary or (for star stencils) off the faces.
struct Mirror {
  bool expected = false;
  Index3 global{0, 0, 0};
};
[[nodiscard]] Mirror mirror_of(const Shape& shape, const CartesianDecomposition& grid,
                               const FieldLayout& layout, const Index3& cell);

//! The box of a whole field, ghost cells included.
[[nodiscard]] Box whole(const FieldLayout& layout);

//! Calls `visit(cell)` for every cell of `box`, x fastest.
template <class Visit>
void for_each_cell(const Box& box, Visit&& visit) {
  for (auto k = box.lo[2]; k < box.hi[2]; ++k) {
    for (auto j = box.lo[1]; j < box.hi[1]; ++j) {
      for (auto i = box.lo[0]; i < box.hi[0]; ++i) visit(Index3{i, j, k});
    }
  }
}

//! The fields each simulated rank exchanges.
inline constexpr int kSimulatedFields = 2;

//! Runs one exchange over all ranks of `shape` in this process; \returns what went wrong (at most
//! five lines), empty when every ghost cell holds what it mirrors.
[[nodiscard]] std::vector<std::string> simulate_exchange(const Shape& shape);

//! The failures of one shape, one per line, for INFO.
[[nodiscard]] std::string joined(const std::vector<std::string>& failures);

}  // namespace haloflow::testing
