#pragma once
//! \file
//! \brief A distributed field as one global array: each rank's owned cells, gathered on rank 0 in
//! global order (what `--dump` writes and `--compare` reads, apps/outputs/raw_field.hpp).

#include <mpi.h>

#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/decomposition.hpp"
#include "haloflow/halo.hpp"

namespace haloflow::models {

//! \brief This rank's owned cells of `field` (stored as `layout`), x fastest, ghosts left out.
//! \pre no frame is writing `field`.
template <class T>
[[nodiscard]] std::vector<T> owned_values(const Buffer& field, const FieldLayout& layout);

//! \brief On rank 0: the global field (global_cells of `grid`, x fastest) from every rank's owned
//! cells (MPI_Gatherv); on other ranks: empty. Collective over `collectives`' communicator.
//! \throws Error when a rank's share exceeds MPI's count limit, an MPI call fails or a rank does
//! not take part within the timeout.
template <class T>
[[nodiscard]] std::vector<T> gather_global(const Buffer& field, const FieldLayout& layout,
                                           const CartesianDecomposition& grid,
                                           const BoundedCollectives& collectives);

}  // namespace haloflow::models
