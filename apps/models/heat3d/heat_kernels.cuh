#pragma once
//! \file
//! \brief The heat step's arithmetic and its GPU walk, included by
//! apps/models/heat3d/heat_kernels.cu (the model) and tools/heat-kernel-lab.cu (which checks and
//! times it against a copy kernel), so that the lab measures the code the model runs. Include from
//! `.cu` files only.

#include <cmath>
#include <vector>

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

//! Several steps in one pass (temporal blocking, the 2.5D form): a block of kWidth x kHeight
//! threads owns a tile of columns and walks them up a run of planes. Stage 1 (the first step) is
//! computed at every thread's column from `u` (ghosts kSteps deep); stage j at the columns j - 1
//! or more from the block's edge, from stage j - 1, whose x and y neighbours come from shared
//! memory (one plane a stage, two buffers, so one barrier a plane) and whose planes below and
//! above stay in registers. Stage j lags stage j - 1 by one plane, so each plane of `u` is read
//! once and the last stage's values are written once: kSteps steps for the bytes of one. The
//! outer kSteps - 1 columns of a tile and the kSteps - 1 planes at each end of a run are computed
//! again by the neighbouring block (the redundant work). Each stage's value is heat_value of the
//! stage before, exactly the operations of kSteps single steps, so the bits are those of the
//! sub-steps (heat_deep_on_host).
template <class T, int kSteps, int kWidth, int kHeight>
__device__ inline void heat_deep_box(const CellBox& box, HeatCoefficients<T> c,
                                     const T* __restrict__ u, T* __restrict__ out) {
  static_assert(kSteps >= 2, "one step is heat_walk's");
  constexpr int kMargin = kSteps - 1;
  constexpr int kTileX = kWidth - 2 * kMargin;
  constexpr int kTileY = kHeight - 2 * kMargin;
  static_assert(kTileX > 0 && kTileY > 0, "a tile too small for its steps");
  __shared__ T planes[kSteps - 1][2][kHeight][kWidth];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * kTileX - kMargin + tx;
  const std::int64_t y = box.y0 + static_cast<std::int64_t>(blockIdx.y) * kTileY - kMargin + ty;
  const std::int64_t run = (box.nz + gridDim.z - 1) / gridDim.z;
  const std::int64_t first = box.z0 + static_cast<std::int64_t>(blockIdx.z) * run;
  const std::int64_t last = first + run < box.z0 + box.nz ? first + run : box.z0 + box.nz;
  if (first >= last) return;  // the whole block: before any barrier
  // How far the column lies outside the box (0 inside), and from the block's edge: stage j is
  // computed where it is at most kSteps - j outside (its reads stay within the ghosts) and j - 1
  // or more from the edge (its neighbours computed stage j - 1).
  const std::int64_t outside_x = x < box.x0 ? box.x0 - x : x - (box.x0 + box.nx - 1);
  const std::int64_t outside_y = y < box.y0 ? box.y0 - y : y - (box.y0 + box.ny - 1);
  const std::int64_t outside = outside_x > outside_y ? outside_x : outside_y;
  const int edge = min(min(tx, kWidth - 1 - tx), min(ty, kHeight - 1 - ty));
  const std::int64_t reach = kSteps - (outside > 0 ? outside : 0);
  const int top = static_cast<int>(edge + 1 < reach ? edge + 1 : reach);  // the last stage here
  const std::int64_t sy = box.stride_y;
  const std::int64_t sz = box.stride_z;
  const std::int64_t column = x + y * sy;
  // window[j]: stage j's last three planes at this column (stage 0: u), oldest first.
  T window[kSteps][3];
#pragma unroll
  for (int j = 0; j < kSteps; ++j) window[j][0] = window[j][1] = window[j][2] = T(0);
  if (top >= 1) {
    window[0][1] = u[column + (first - kSteps) * sz];
    window[0][2] = u[column + (first - kSteps + 1) * sz];
  }
  int parity = 0;
  // l1: the plane stage 1 computes; stage j computes l1 - (j - 1), within its planes
  // [first - (kSteps - j), last + (kSteps - j)).
  for (std::int64_t l1 = first - kSteps + 1; l1 < last + kSteps - 1; ++l1, parity ^= 1) {
    if (top >= 1) {
      window[0][0] = window[0][1];
      window[0][1] = window[0][2];
      window[0][2] = u[column + (l1 + 1) * sz];
    }
#pragma unroll
    for (int j = 1; j <= kSteps; ++j) {
      const std::int64_t plane = l1 - (j - 1);
      if (plane < first - (kSteps - j) || plane >= last + (kSteps - j)) continue;  // the block's
      if (j > top) continue;
      T x_minus, x_plus, y_minus, y_plus;
      if (j == 1) {
        const std::int64_t at = column + plane * sz;
        x_minus = u[at - 1];
        x_plus = u[at + 1];
        y_minus = u[at - sy];
        y_plus = u[at + sy];
      } else {
        // Stage j - 1 at this plane: written a plane ago, into the other buffer.
        const auto& before = planes[j - 2][parity ^ 1];
        x_minus = before[ty][tx - 1];
        x_plus = before[ty][tx + 1];
        y_minus = before[ty - 1][tx];
        y_plus = before[ty + 1][tx];
      }
      const T value = heat_value(window[j - 1][1], x_minus, x_plus, y_minus, y_plus,
                                 window[j - 1][0], window[j - 1][2], c);
      if (j == kSteps) {
        out[column + plane * sz] = value;
      } else {
        window[j][0] = window[j][1];
        window[j][1] = window[j][2];
        window[j][2] = value;
        planes[j - 1][parity][ty][tx] = value;
      }
    }
    __syncthreads();
  }
}

//! The engine's deep pass (heat_deep_box with the tile above): kSteps steps over `box` from `u`
//! (ghosts kSteps deep) into `out`, in one pass. heat_deep_launch gives its launch.
template <class T, int kSteps>
__global__ void __launch_bounds__(kHeatDeepWidth* kHeatDeepHeight)
    heat_deep(CellBox box, HeatCoefficients<T> c, const T* __restrict__ u, T* __restrict__ out) {
  heat_deep_box<T, kSteps, kHeatDeepWidth, kHeatDeepHeight>(box, c, u, out);
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

//! The deep pass's CPU twin: kSteps single steps, the first over `box` grown by kSteps - 1 cells,
//! each next one cell smaller, in two scratch fields the size of u's; the last writes `box` of
//! `out`, and no other cell of `out`.
template <class T, int kSteps>
void heat_deep_on_host(const LaunchShape& /*shape*/, CellBox box, HeatCoefficients<T> c, const T* u,
                       T* out) {
  constexpr int steps = kSteps;
  // The extent of the field in elements: up to the last cell a step reads, plus one.
  const std::int64_t reach = steps;
  const std::int64_t end = (box.x0 + box.nx + reach) + (box.y0 + box.ny + reach) * box.stride_y +
                           (box.z0 + box.nz + reach) * box.stride_z + 1;
  std::vector<T> stages[2] = {std::vector<T>(static_cast<std::size_t>(end), T(0)),
                              std::vector<T>(static_cast<std::size_t>(end), T(0))};
  const T* from = u;
  for (int s = 1; s <= steps; ++s) {
    const std::int64_t grow = steps - s;
    const CellBox part{.x0 = box.x0 - grow,
                       .y0 = box.y0 - grow,
                       .z0 = box.z0 - grow,
                       .nx = box.nx + 2 * grow,
                       .ny = box.ny + 2 * grow,
                       .nz = box.nz + 2 * grow,
                       .stride_y = box.stride_y,
                       .stride_z = box.stride_z};
    T* to = s == steps ? out : stages[s % 2].data();
    heat_walk_on_host<T>(LaunchShape{}, part, false, c, from, to);
    from = to;
  }
}

}  // namespace haloflow::kernels
