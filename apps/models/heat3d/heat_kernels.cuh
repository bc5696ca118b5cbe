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

//! One thread per (x, y) column of the box, walking a run of consecutive planes along z: the
//! planes below and above stay in registers as the thread moves up, so each step loads one new
//! value from memory; x and y neighbours are the neighbouring threads' loads (L1). The run is the
//! box's planes over grid.z (ceil(nz / grid.z)). Threads of a block: x fastest.
template <class T>
__global__ void heat_walk(CellBox box, HeatCoefficients<T> c, const T* __restrict__ u,
                          T* __restrict__ u_new) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t y = box.y0 + static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= box.x0 + box.nx || y >= box.y0 + box.ny) return;
  const std::int64_t run = (box.nz + gridDim.z - 1) / gridDim.z;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.z) * run;
  const std::int64_t last = first + run < box.nz ? first + run : box.nz;
  if (first >= last) return;
  const std::int64_t sy = box.stride_y;
  const std::int64_t sz = box.stride_z;
  std::int64_t i = x + y * sy + (box.z0 + first) * sz;
  T below = u[i - sz];
  T centre = u[i];
#pragma unroll 4
  for (std::int64_t z = first; z < last; ++z, i += sz) {
    const T above = u[i + sz];
    u_new[i] = heat_value(centre, u[i - 1], u[i + 1], u[i - sy], u[i + sy], below, above, c);
    below = centre;
    centre = above;
  }
}

//! The CPU twin: planes, rows, then x, each cell through heat_value as on the GPU.
template <class T>
void heat_walk_on_host(const LaunchShape& /*shape*/, CellBox box, HeatCoefficients<T> c, const T* u,
                       T* u_new) {
  const std::int64_t sy = box.stride_y;
  const std::int64_t sz = box.stride_z;
  for (std::int64_t z = box.z0; z < box.z0 + box.nz; ++z) {
    for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
      const std::int64_t row = y * sy + z * sz;
      for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
        const std::int64_t i = row + x;
        u_new[i] =
            heat_value(u[i], u[i - 1], u[i + 1], u[i - sy], u[i + sy], u[i - sz], u[i + sz], c);
      }
    }
  }
}

}  // namespace haloflow::kernels
