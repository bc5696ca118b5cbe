// The process grid and this rank's part of a decomposition: MPI only (graphs/ranks.cpp places
// ranks on GPUs).
#include <fmt/format.h>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"

namespace haloflow {

Coord3 choose_process_grid(MPI_Comm communicator, int dimensions, Coord3 fixed) {
  if (dimensions < 1 || dimensions > 3) {
    throw Error(fmt::format("dimensions: {} is not allowed; expected 1, 2 or 3", dimensions));
  }
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "choosing the process grid");
  int product = 1;
  for (int axis = 0; axis < dimensions; ++axis) product *= fixed[axis] > 0 ? fixed[axis] : 1;
  if (ranks % product != 0) {
    throw Error(
        fmt::format("process grid {}x{}x{}: the fixed entries (product {}) do not divide "
                    "{} ranks",
                    fixed[0], fixed[1], fixed[2], product, ranks));
  }
  int dims[3] = {fixed[0], fixed[1], fixed[2]};
  HALOFLOW_MPI(MPI_Dims_create(ranks, dimensions, dims), "choosing the process grid");
  Coord3 grid{1, 1, 1};
  for (int axis = 0; axis < dimensions; ++axis) grid[axis] = dims[axis];
  return grid;
}

CartesianDecomposition decompose(MPI_Comm communicator, DecompositionSpec spec) {
  int rank = 0;
  int ranks = 1;
  HALOFLOW_MPI(MPI_Comm_rank(communicator, &rank), "decomposing the grid");
  HALOFLOW_MPI(MPI_Comm_size(communicator, &ranks), "decomposing the grid");
  spec.process_grid = choose_process_grid(communicator, spec.dimensions, spec.process_grid);
  return CartesianDecomposition(spec, ranks, rank);
}

}  // namespace haloflow
