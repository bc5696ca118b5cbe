#pragma once
//! \file
//! \brief Where MPI ranks run: the process grid and one GPU per node-local rank.

#include <mpi.h>

#include "haloflow/decomposition.hpp"

namespace haloflow {

//! \brief Where this rank runs within its node, and the GPU it was given.
struct RankPlacement {
  int local_rank = 0;  //!< rank among the processes of this node (MPI_COMM_TYPE_SHARED)
  int local_size = 1;  //!< number of ranks on this node
  int device = -1;     //!< the CUDA device this rank uses; -1 without a GPU
  int devices = 0;     //!< devices visible on this node
};

//! \brief Picks device (node-local rank mod device count) and makes it current; several ranks
//! share a GPU when there are more ranks than GPUs. Without a GPU, device is -1.
//! \throws Error for a failed MPI or CUDA call.
RankPlacement place_rank_on_device(MPI_Comm communicator);

//! \brief `fixed` with its zero entries filled by MPI_Dims_create for the communicator's size.
//! \throws Error when the fixed entries do not divide the rank count.
Coord3 choose_process_grid(MPI_Comm communicator, int dimensions, Coord3 fixed);

//! \brief This rank's part of `spec` on `communicator`: free entries of the process grid are
//! chosen by MPI_Dims_create, the rank and rank count come from the communicator.
//! \throws Error for a spec the decomposition refuses (its message names the field).
CartesianDecomposition decompose(MPI_Comm communicator, DecompositionSpec spec);

}  // namespace haloflow
