#include "haloflow/cell_box.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "haloflow/error.hpp"

namespace haloflow {

CellBox cell_box(const Box& box, const FieldLayout& layout) {
  const Index3 extent = layout.extent();
  return {.x0 = box.lo[0],
          .y0 = box.lo[1],
          .z0 = box.lo[2],
          .nx = box.hi[0] - box.lo[0],
          .ny = box.hi[1] - box.lo[1],
          .nz = box.hi[2] - box.lo[2],
          .stride_y = extent[0],
          .stride_z = extent[0] * extent[1]};
}

CellSplit split_update(const Box& update, const FieldLayout& layout, const Stencil& stencil) {
  return split_box(update, split_owned_cells(layout, stencil).interior);
}

CellSplit split_update(const Box& update, const FieldLayout& layout, const Stencil& stencil,
                       std::array<bool, 3> split_axes) {
  Box inner = split_owned_cells(layout, stencil).interior;
  const Box owned = layout.owned_box();
  for (std::size_t axis = 0; axis < 3; ++axis) {
    if (split_axes[axis]) continue;
    inner.lo[axis] = owned.lo[axis];
    inner.hi[axis] = owned.hi[axis];
  }
  return split_box(update, inner);
}

LaunchShape box_launch(const CellBox& box, unsigned rows_per_thread, unsigned width) {
  if (width != 32 && width != 64 && width != 128 && width != 256) {
    throw Error(fmt::format(
        "box_launch: a block width of {} is not allowed; expected 32, 64, 128 or 256", width));
  }
  if (box.nx < 1 || box.ny < 1 || box.nz < 1 || rows_per_thread < 1) {
    throw Error(fmt::format(
        "box_launch: a box of {} x {} x {} cells with {} rows per thread is not allowed; expected "
        "at least one cell per axis and one row per thread",
        box.nx, box.ny, box.nz, rows_per_thread));
  }
  constexpr unsigned kThreads = 256;
  constexpr std::int64_t kGridLimit = 65535;  // CUDA's limit on grid.y and grid.z
  while (width > 1 && width > box.nx) width /= 2;
  const unsigned height = kThreads / width;
  const std::int64_t columns = (box.nx + width - 1) / width;
  if (columns > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("box_launch: {} cells along x need {} blocks, over CUDA's limit of {}",
                            box.nx, columns, std::numeric_limits<int>::max()));
  }
  const std::int64_t band = std::int64_t{height} * rows_per_thread;
  const std::int64_t rows = std::min((box.ny + band - 1) / band, kGridLimit);
  const std::int64_t planes = std::min(box.nz, kGridLimit);
  return LaunchShape{.grid = {static_cast<unsigned>(columns), static_cast<unsigned>(rows),
                              static_cast<unsigned>(planes)},
                     .block = {width, height, 1}};
}

}  // namespace haloflow
