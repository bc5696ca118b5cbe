#pragma once
//! \file
//! \brief The heat step's arithmetic and its GPU walk, included by
//! apps/models/heat3d/heat_kernels.cu (the model) and tools/heat-kernel-lab.cu (which checks and
//! times it against a copy kernel), so that the lab measures the code the model runs. Include from
//! `.cu` files only.

#include <cmath>

#include "haloflow/per_cell.cuh"
#include "heat_kernels.hpp"

namespace haloflow::kernels {

//! a * b + c rounded once: std::fma / std::fmaf on the CPU, the same fused operation on the GPU,
//! so both twins compute the same bits whatever the compilers' contraction settings.
template <class T>
HALOFLOW_HD inline T fused(T a, T b, T c) {
  if constexpr (sizeof(T) == sizeof(float)) {
    return fmaf(a, b, c);
  } else {
    return fma(a, b, c);
  }
}

//! The new value of a cell from itself and its six face neighbours. Each axis's second difference
//! is formed before it is scaled, so a constant field stays exactly constant; the products are
//! fused explicitly (z first, then y, then x), the sum added to the centre last.
template <class T>
HALOFLOW_HD inline T heat_value(T centre, T x_minus, T x_plus, T y_minus, T y_plus, T z_minus,
                                T z_plus, HeatCoefficients<T> c) {
  const T twice = centre + centre;
  return centre + fused(c.x, (x_minus + x_plus) - twice,
                        fused(c.y, (y_minus + y_plus) - twice, c.z * ((z_minus + z_plus) - twice)));
}

//! The walk of one thread: kRows consecutive rows of the column at x, from element i, up the
//! planes [first, last) of the box. The planes below and above stay in registers as the thread
//! moves up, so each plane loads one new value per row from memory; the rows' own centre values
//! are the y neighbours of the rows beside them, so only the row below the first and the row above
//! the last come from memory (2 / kRows loads per cell, not 2); x neighbours are the neighbouring
//! threads' loads (L1). `low` / `high`: the column is the first / last of the owned x range on a
//! wrapping x axis, and each new value is also written `nx` cells up / down, into the ghost across
//! the box (its periodic image).
template <class T, int kRows>
__device__ inline void heat_walk_rows(std::int64_t i, std::int64_t first, std::int64_t last,
                                      std::int64_t sy, std::int64_t sz, HeatCoefficients<T> c,
                                      const T* __restrict__ u, T* __restrict__ u_new, bool low,
                                      bool high, std::int64_t nx) {
  T below[kRows];
  T centre[kRows];
#pragma unroll
  for (int k = 0; k < kRows; ++k) {
    below[k] = u[i + k * sy - sz];
    centre[k] = u[i + k * sy];
  }
#pragma unroll 2
  for (std::int64_t z = first; z < last; ++z, i += sz) {
    T above[kRows];
#pragma unroll
    for (int k = 0; k < kRows; ++k) above[k] = u[i + k * sy + sz];
    const T south = u[i - sy];
    const T north = u[i + kRows * sy];
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      const std::int64_t at = i + k * sy;
      const T value = heat_value(centre[k], u[at - 1], u[at + 1], k == 0 ? south : centre[k - 1],
                                 k == kRows - 1 ? north : centre[k + 1], below[k], above[k], c);
      u_new[at] = value;
      if (low) u_new[at + nx] = value;
      if (high) u_new[at - nx] = value;
    }
#pragma unroll
    for (int k = 0; k < kRows; ++k) {
      below[k] = centre[k];
      centre[k] = above[k];
    }
  }
}

//! One thread's share of heat_walk: kHeatRowsPerThread (2) rows of an x column of the box (the
//! last row of an odd box alone), walking a run of consecutive planes along z (heat_walk_rows).
//! The run is the box's planes over grid.z (ceil(nz / grid.z)). Threads of a block: x fastest.
//! `x_images`: the box spans the owned x range of a wrapping x axis (HeatKernel), and its first
//! and last columns also write the ghosts across the box.
template <class T>
__device__ inline void heat_walk_box(const CellBox& box, bool x_images, HeatCoefficients<T> c,
                                     const T* __restrict__ u, T* __restrict__ u_new) {
  constexpr int kRows = kHeatRowsPerThread;
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row =
      (static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y) * kRows;
  if (x >= box.x0 + box.nx || row >= box.ny) return;
  const std::int64_t run = (box.nz + gridDim.z - 1) / gridDim.z;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.z) * run;
  const std::int64_t last = first + run < box.nz ? first + run : box.nz;
  if (first >= last) return;
  const std::int64_t i = x + (box.y0 + row) * box.stride_y + (box.z0 + first) * box.stride_z;
  static_assert(kRows == 2, "the last row of an odd box is walked alone");
  const bool low = x_images && x == box.x0;
  const bool high = x_images && x == box.x0 + box.nx - 1;
  if (row + kRows <= box.ny) {
    heat_walk_rows<T, kRows>(i, first, last, box.stride_y, box.stride_z, c, u, u_new, low, high,
                             box.nx);
  } else {
    heat_walk_rows<T, 1>(i, first, last, box.stride_y, box.stride_z, c, u, u_new, low, high,
                         box.nx);
  }
}

//! The model's kernel (heat_walk_box), one per kImages: the walk that writes x images needs 40
//! registers in double (6 blocks of 256 per SM), the one that does not keeps 32 (8 blocks).
//! `x_images` is honoured only where kImages is set (heat_kernel picks the kernel by it).
template <class T, bool kImages>
__global__ void heat_walk(CellBox box, bool x_images, HeatCoefficients<T> c,
                          const T* __restrict__ u, T* __restrict__ u_new) {
  heat_walk_box(box, kImages && x_images, c, u, u_new);
}

//! The CPU twin: planes, rows, then x, each cell through heat_value, and the x images written as
//! on the GPU.
template <class T>
void heat_walk_on_host(const LaunchShape& /*shape*/, CellBox box, bool x_images,
                       HeatCoefficients<T> c, const T* u, T* u_new) {
  const std::int64_t sy = box.stride_y;
  const std::int64_t sz = box.stride_z;
  for (std::int64_t z = box.z0; z < box.z0 + box.nz; ++z) {
    for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
      const std::int64_t row = y * sy + z * sz;
      for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
        const std::int64_t i = row + x;
        const T value =
            heat_value(u[i], u[i - 1], u[i + 1], u[i - sy], u[i + sy], u[i - sz], u[i + sz], c);
        u_new[i] = value;
        if (x_images && x == box.x0) u_new[i + box.nx] = value;
        if (x_images && x == box.x0 + box.nx - 1) u_new[i - box.nx] = value;
      }
    }
  }
}

}  // namespace haloflow::kernels
