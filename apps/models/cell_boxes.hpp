#pragma once
//! \file
//! \brief From the engine's boxes to what model kernels take: CellBox arguments, the split of the
//! cells a model updates into interior and boundary, and 2D/3D launch shapes.

#include <vector>

#include "cell_box.hpp"
#include "haloflow/halo.hpp"
#include "haloflow/launch.hpp"

namespace haloflow::models {

//! \brief `box` (local indices of `layout`, ghosts included) with the layout's strides.
[[nodiscard]] kernels::CellBox cell_box(const Box& box, const FieldLayout& layout);

//! \brief The cells a rank updates (`update`, inside its owned box) split by whether they read a
//! ghost cell: interior = `update` within the owned box shrunk by the stencil radius (runs
//! before the ghosts arrive); boundary = the rest of `update` as at most six disjoint slabs.
//! `update` is smaller than the owned box where a model keeps cells fixed (jacobi2d's Dirichlet
//! columns); for the whole owned box this is `split_owned_cells`.
[[nodiscard]] CellSplit split_update(const Box& update, const FieldLayout& layout,
                                     const Stencil& stencil);

//! \brief Blocks of 256 threads, `width` wide in x (a power of two from 32 to 256; narrower, by
//! powers of two, for boxes narrower than that so few threads idle): x over grid.x, rows over
//! grid.y with `rows_per_thread` rows each, planes over grid.z; grid.y and grid.z are capped at
//! CUDA's 65535 (kernels stride over the rest). \throws Error for an empty box, one too wide for
//! CUDA's grid, or a width that is not such a power of two.
[[nodiscard]] LaunchShape box_launch(const kernels::CellBox& box, unsigned rows_per_thread = 1,
                                     unsigned width = 32);

}  // namespace haloflow::models
