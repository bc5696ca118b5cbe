#pragma once
// A field for checking jacobi2d's deep sweep against one-step sweeps, on the host (tests/unit) and
// the GPU (tests/gpu): a box with ghosts exactly `depth` deep (a read beyond them leaves the
// array), arbitrary values, and optionally the model's fixed columns just outside the box on both
// sides. The one-step sweeps run `depth` times over every cell but the array's outer ring (and the
// fixed columns): the box's cells then depend only on values a deep sweep reads too, so both must
// give the same bits there.

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "haloflow/cell_box.hpp"
#include "jacobi2d/jacobi_kernels.hpp"

namespace haloflow::tests {

template <class T>
struct DeepField {
  kernels::CellBox box;               //!< the cells a deep sweep writes
  kernels::FixedColumns fixed;        //!< -1 each without fixed columns
  std::vector<T> start;               //!< the whole array, ghosts included
  std::vector<kernels::CellBox> one;  //!< the boxes each one-step sweep covers
};

//! An nx x ny box, ghosts `depth` deep; values from `seed`, different in every cell.
template <class T>
DeepField<T> deep_field(std::int64_t nx, std::int64_t ny, int depth, bool fixed, unsigned seed) {
  DeepField<T> f;
  const std::int64_t width = nx + 2 * depth;
  const std::int64_t height = ny + 2 * depth;
  f.box = {.x0 = depth,
           .y0 = depth,
           .z0 = 0,
           .nx = nx,
           .ny = ny,
           .nz = 1,
           .stride_y = width,
           .stride_z = width * height};
  f.start.resize(static_cast<std::size_t>(width * height));
  std::uint32_t state = seed * 2654435761U + 1U;
  for (T& value : f.start) {
    state = state * 1664525U + 1013904223U;
    value = static_cast<T>(state >> 8) / static_cast<T>(1U << 24) - T(0.5);
  }
  std::int64_t left = 1;
  std::int64_t right = width - 1;
  if (fixed) {
    f.fixed = {.left = depth - 1, .right = depth + nx};
    left = depth;
    right = depth + nx;
  }
  f.one.push_back({.x0 = left,
                   .y0 = 1,
                   .z0 = 0,
                   .nx = right - left,
                   .ny = height - 2,
                   .nz = 1,
                   .stride_y = width,
                   .stride_z = width * height});
  return f;
}

//! The box's cells, x fastest.
template <class T>
std::vector<T> box_cells(const DeepField<T>& f, const std::vector<T>& array) {
  std::vector<T> cells;
  for (std::int64_t y = f.box.y0; y < f.box.y0 + f.box.ny; ++y) {
    for (std::int64_t x = f.box.x0; x < f.box.x0 + f.box.nx; ++x) {
      cells.push_back(array[static_cast<std::size_t>(y * f.box.stride_y + x)]);
    }
  }
  return cells;
}

//! How many of the two sets of cells differ in their bits.
template <class T>
std::size_t differing(const std::vector<T>& got, const std::vector<T>& want) {
  std::size_t count = got.size() == want.size() ? 0 : got.size() + want.size();
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    count += std::memcmp(&got[i], &want[i], sizeof(T)) != 0 ? 1 : 0;
  }
  return count;
}

}  // namespace haloflow::tests
