#pragma once
// The pieces of a field for VTK. Cell data: each rank's owned cells, as they are. Point data:
// VTK's pieces share their faces (its own writer gives each piece the first layer of points of
// the next; without it ParaView draws a gap one cell wide between pieces), so a rank's piece is
// its owned points and the first layer of its neighbours' above it on each axis, and on a
// periodic axis the layer of point 0 again after the last (the closed box). Those points come
// from the ranks that own them (points_shared_with).

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "run_options.hpp"
#include "vtk_image.hpp"

namespace haloflow::outputs {

//! How the field's grid runs, for every rank alike.
struct SampleGrid {
  std::array<std::int64_t, 3> global_samples{};
  std::array<bool, 3> periodic{};
  int dimensions = 3;
  models::Centring centring = models::Centring::cells;
};

//! A rank's owned samples: where they start and how many per axis.
struct SampleBox {
  std::array<std::int64_t, 3> offset{};
  std::array<std::int64_t, 3> samples{};
};

[[nodiscard]] SampleGrid sample_grid(const models::OwnedField& field);
[[nodiscard]] SampleBox sample_box(const models::OwnedField& field);

//! The whole grid's extent in points: cells, one point more than cells on each axis of the
//! field; points, every sample and the closing point of a periodic axis.
[[nodiscard]] Extent whole_extent(const SampleGrid& grid);

//! The extent of the piece of `box` (see the file's comment).
[[nodiscard]] Extent piece_extent(const SampleGrid& grid, const SampleBox& box);

//! A point of `to`'s piece that `from` owns and `to` does not: where it goes in `to`'s piece
//! (its index, x fastest) and where it is in `from`'s owned samples (x fastest).
struct SharedPoint {
  std::int64_t piece_index = 0;
  std::int64_t source_index = 0;
};

//! The points of `to`'s piece that `from` owns and `to` does not, in an order both ranks compute
//! alike (the sender packs them so, the receiver unpacks them so). `from` may be `to` itself (a
//! periodic axis of one rank).
[[nodiscard]] std::vector<SharedPoint> points_shared_with(const SampleGrid& grid,
                                                          const SampleBox& from,
                                                          const SampleBox& to);

//! This rank's piece: its extent and, for each array of the field, its values over the piece.
struct Piece {
  Extent extent{};
  //! Per array, x fastest, components together: the field's own arrays (cell data), or `shared`.
  std::vector<std::span<const double>> values;
  std::vector<std::vector<double>> shared;  //!< point data: owned and shared points together
};

//! This rank's piece of `field`, which it refers to (cell data) and so must outlive it; for
//! point data the shared points come from their owners (an MPI_Alltoallv). Collective over
//! `collectives`' communicator, each call bounded by its timeout. \throws Error for an array of
//! the wrong size, when an MPI call fails or a rank does not take part in time.
[[nodiscard]] Piece field_piece(const models::OwnedField& field,
                                const BoundedCollectives& collectives);

}  // namespace haloflow::outputs
