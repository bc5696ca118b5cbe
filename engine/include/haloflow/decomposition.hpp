#pragma once
//! \file
//! \brief How a structured grid is cut into one block per rank: the process grid, each rank's
//! owned cells and its neighbours.
//!
//! Pure arithmetic on indices (no MPI calls), so every rank can compute every other rank's share
//! and tests can check a whole machine's worth of ranks in one process.

#include <array>
#include <cstdint>
#include <optional>

namespace haloflow {

//! \brief Cell indices or counts along x, y, z; x varies fastest in memory.
using Index3 = std::array<std::int64_t, 3>;
//! \brief Process-grid coordinates or counts along x, y, z.
using Coord3 = std::array<int, 3>;

//! \brief What lies beyond the last cell of an axis: the first cell again (`periodic`) or
//! nothing to exchange with (`physical`, the solver applies its boundary condition there).
enum class Boundary { periodic, physical };

//! \brief Half-open box [lo, hi) in some index space.
struct Box {
  Index3 lo{0, 0, 0};  //!< first cell inside, per axis
  Index3 hi{0, 0, 0};  //!< first cell past the end, per axis
  //! \brief Number of cells; 0 when empty on any axis (hi <= lo).
  [[nodiscard]] std::int64_t volume() const;
  //! \brief True when the box holds no cell (volume() == 0).
  [[nodiscard]] bool empty() const;
  //! \brief True when lo <= cell < hi on every axis.
  [[nodiscard]] bool contains(const Index3& cell) const;
  //! \brief Member-wise equality.
  friend bool operator==(const Box&, const Box&) = default;
};

//! \brief The whole problem: grid size, how many ranks per axis, and what lies beyond each edge.
//! Checked by the CartesianDecomposition constructor, not here.
struct DecompositionSpec {
  int dimensions = 3;            //!< 1, 2 or 3; unused axes have 1 cell and 1 rank
  Index3 global_cells{1, 1, 1};  //!< cells of the whole grid per axis, each >= 1
  //! 0 = free; the caller fills free entries (`balanced_process_grid`) before constructing a
  //! CartesianDecomposition.
  Coord3 process_grid{0, 0, 0};
  //! Per axis, what lies beyond its first and last cell; default periodic everywhere. Ignored on
  //! axes beyond `dimensions`.
  std::array<Boundary, 3> boundary{Boundary::periodic, Boundary::periodic, Boundary::periodic};
};

//! \brief Balanced factorisation of `ranks` over `dimensions` axes, keeping fixed (non-zero)
//! entries, with the same result as MPI_Dims_create: the free entries are as close to each other
//! as possible (smallest largest factor first) and in non-increasing order; axes beyond
//! `dimensions` get 1. Computed here rather than by MPI so that it needs no MPI session.
//! \throws Error when the fixed entries do not divide `ranks` (or, with no free entry, do not
//! multiply to it), or on a bad argument.
[[nodiscard]] Coord3 balanced_process_grid(int ranks, int dimensions, Coord3 fixed);

//! \brief One rank's view of a Cartesian decomposition.
class CartesianDecomposition {
 public:
  //! \brief Validates (dimensions in 1..3, cells >= 1, process grid product == rank_count, no
  //! axis with more ranks than cells, rank in range) and \throws Error naming the field, value and
  //! what is allowed. Ranks are numbered row-major with x fastest: rank = x + px*(y + py*z).
  CartesianDecomposition(const DecompositionSpec& spec, int rank_count, int rank);

  //! \brief The validated spec, with its process grid fully filled in.
  [[nodiscard]] const DecompositionSpec& spec() const { return spec_; }
  //! \brief This rank, in [0, rank_count()).
  [[nodiscard]] int rank() const { return rank_; }
  //! \brief Number of ranks: the product of process_grid().
  [[nodiscard]] int rank_count() const { return rank_count_; }
  //! \brief Ranks per axis (1 on axes beyond `dimensions`).
  [[nodiscard]] Coord3 process_grid() const { return spec_.process_grid; }
  //! \brief Process-grid coordinates of this rank.
  [[nodiscard]] Coord3 coordinates() const { return coordinates_of(rank_); }
  //! \throws Error when `rank` is outside [0, rank_count).
  [[nodiscard]] Coord3 coordinates_of(int rank) const;
  //! \throws Error when a coordinate is outside the process grid.
  [[nodiscard]] int rank_at(Coord3 coordinates) const;
  //! \brief Cells this rank owns. Uneven remainders: the first (n % p) ranks on an axis get one
  //! more cell, so shares differ by at most one.
  [[nodiscard]] Index3 local_cells() const { return local_cells_of(rank_); }
  //! \brief Global index of this rank's first owned cell.
  [[nodiscard]] Index3 global_offset() const { return global_offset_of(rank_); }
  //! \brief local_cells() of any rank, so one process can check every rank's share.
  //! \throws Error when `rank` is outside [0, rank_count).
  [[nodiscard]] Index3 local_cells_of(int rank) const;
  //! \brief global_offset() of any rank. \throws Error when `rank` is outside [0, rank_count).
  [[nodiscard]] Index3 global_offset_of(int rank) const;
  //! \brief The rank across the face/edge/corner in direction `direction` (each component -1, 0
  //! or +1, not all 0, and 0 on axes beyond `dimensions`), wrapping on periodic axes, or nullopt
  //! across a physical boundary. May be this rank itself (periodic axis with one rank) and two
  //! directions may name the same rank. \throws Error on a bad direction.
  [[nodiscard]] std::optional<int> neighbour(Coord3 direction) const;

 private:
  DecompositionSpec spec_;
  int rank_count_ = 1;
  int rank_ = 0;
};

}  // namespace haloflow
