#include "field_gather.hpp"

#include <fmt/format.h>

#include <climits>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::models {

namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}

int mpi_count(std::int64_t count, std::string_view what) {
  if (count > INT_MAX) {
    throw Error(fmt::format("gathering the field: {} of {} values is over MPI's count limit of {}",
                            what, count, INT_MAX));
  }
  return static_cast<int>(count);
}

}  // namespace

template <class T>
std::vector<T> owned_values(const Buffer& field, const FieldLayout& layout) {
  std::vector<T> local(static_cast<std::size_t>(layout.field_elements()));
  field.download(local.data(), local.size() * sizeof(T));
  const Box owned = layout.owned_box();
  std::vector<T> values;
  values.reserve(static_cast<std::size_t>(owned.volume()));
  for (std::int64_t k = owned.lo[2]; k < owned.hi[2]; ++k) {
    for (std::int64_t j = owned.lo[1]; j < owned.hi[1]; ++j) {
      for (std::int64_t i = owned.lo[0]; i < owned.hi[0]; ++i) {
        values.push_back(local[static_cast<std::size_t>(layout.offset(i, j, k))]);
      }
    }
  }
  return values;
}

template <class T>
std::vector<T> gather_global(const Buffer& field, const FieldLayout& layout,
                             const CartesianDecomposition& grid,
                             const BoundedCollectives& collectives) {
  const std::vector<T> mine = owned_values<T>(field, layout);
  const int ranks = grid.rank_count();
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  std::vector<int> offsets(static_cast<std::size_t>(ranks));
  std::int64_t total = 0;
  for (int rank = 0; rank < ranks; ++rank) {
    const Index3 cells = grid.local_cells_of(rank);
    counts[static_cast<std::size_t>(rank)] =
        mpi_count(cells[0] * cells[1] * cells[2], fmt::format("rank {}'s share", rank));
    offsets[static_cast<std::size_t>(rank)] = mpi_count(total, "the global field");
    total += counts[static_cast<std::size_t>(rank)];
  }
  (void)mpi_count(total, "the global field");
  const bool root = grid.rank() == 0;
  std::vector<T> blocks(root ? static_cast<std::size_t>(total) : 0);
  collectives.gatherv(mine.data(), static_cast<int>(mine.size()), mpi_type<T>(), blocks.data(),
                      counts.data(), offsets.data(), 0, "gathering the field on rank 0");
  if (!root) return {};
  // Each rank's block, x fastest, goes to its place in the global box.
  const Index3 global = grid.spec().global_cells;
  std::vector<T> values(static_cast<std::size_t>(total));
  for (int rank = 0; rank < ranks; ++rank) {
    const Index3 cells = grid.local_cells_of(rank);
    const Index3 origin = grid.global_offset_of(rank);
    auto from = static_cast<std::size_t>(offsets[static_cast<std::size_t>(rank)]);
    for (std::int64_t k = 0; k < cells[2]; ++k) {
      for (std::int64_t j = 0; j < cells[1]; ++j) {
        const std::int64_t row =
            origin[0] + global[0] * ((origin[1] + j) + global[1] * (origin[2] + k));
        for (std::int64_t i = 0; i < cells[0]; ++i) {
          values[static_cast<std::size_t>(row + i)] = blocks[from++];
        }
      }
    }
  }
  return values;
}

template std::vector<float> owned_values<float>(const Buffer&, const FieldLayout&);
template std::vector<double> owned_values<double>(const Buffer&, const FieldLayout&);
template std::vector<float> gather_global<float>(const Buffer&, const FieldLayout&,
                                                 const CartesianDecomposition&,
                                                 const BoundedCollectives&);
template std::vector<double> gather_global<double>(const Buffer&, const FieldLayout&,
                                                   const CartesianDecomposition&,
                                                   const BoundedCollectives&);

}  // namespace haloflow::models
