#pragma once
//! \file
//! \brief The cells a kernel updates, as the kernel sees them: one box of a field stored with ghost
//! cells, x fastest. Plain data shared by host code and kernels, so the launch geometry and the
//! kernel arguments come from the same numbers; and the functions that make such boxes from a
//! rank's field layout and launch kernels over them.

#include <array>
#include <cstdint>

#include "haloflow/halo.hpp"
#include "haloflow/launch.hpp"

namespace haloflow {

//! \brief The box [x0, x0+nx) x [y0, y0+ny) x [z0, z0+nz) in a field's local index space (ghost
//! cells included), with the strides of that field.
struct CellBox {
  std::int64_t x0 = 0;        //!< first cell along x
  std::int64_t y0 = 0;        //!< first cell along y
  std::int64_t z0 = 0;        //!< first cell along z
  std::int64_t nx = 0;        //!< cells along x
  std::int64_t ny = 0;        //!< cells along y
  std::int64_t nz = 0;        //!< cells along z
  std::int64_t stride_y = 0;  //!< elements between rows
  std::int64_t stride_z = 0;  //!< elements between planes
};

//! \brief `box` (local indices of `layout`, ghosts included) with the layout's strides.
[[nodiscard]] CellBox cell_box(const Box& box, const FieldLayout& layout);

//! \brief The cells a rank updates (`update`, inside its owned box) split by whether they read a
//! ghost cell: interior = `update` within the owned box shrunk by the stencil radius (runs
//! before the ghosts arrive); boundary = the rest of `update` as at most six disjoint slabs.
//! `update` is smaller than the owned box where a model keeps cells fixed (jacobi2d's Dirichlet
//! columns); for the whole owned box this is `split_owned_cells`.
[[nodiscard]] CellSplit split_update(const Box& update, const FieldLayout& layout,
                                     const Stencil& stencil);

//! \brief split_update, shrinking the interior only along the axes marked in `split_axes`: the
//! interior reaches the owned box's faces on the other axes, so it reads the ghosts there and must
//! run after they are filled. For HaloExchange::remote_axes(): the ghosts a rank copies to itself
//! are filled on the device before the interior starts (ExchangeNodes::self), and only the halos
//! that travel are hidden behind it, so no slab is cut where there is nothing to hide.
[[nodiscard]] CellSplit split_update(const Box& update, const FieldLayout& layout,
                                     const Stencil& stencil, std::array<bool, 3> split_axes);

//! \brief Blocks of 256 threads, `width` wide in x (a power of two from 32 to 256; narrower, by
//! powers of two, for boxes narrower than that so few threads idle): x over grid.x, rows over
//! grid.y with `rows_per_thread` rows each, planes over grid.z; grid.y and grid.z are capped at
//! CUDA's 65535 (kernels stride over the rest). \throws Error for an empty box, one too wide for
//! CUDA's grid, or a width that is not such a power of two.
[[nodiscard]] LaunchShape box_launch(const CellBox& box, unsigned rows_per_thread = 1,
                                     unsigned width = 32);

}  // namespace haloflow
