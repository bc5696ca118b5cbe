#pragma once
//! \file
//! \brief The deep temporal-blocking sweep (kDepth Jacobi steps in one pass over memory) and its
//! CPU twin, included by apps/models/jacobi2d/jacobi_kernels.cu (the model) and
//! tools/labs/jacobi-deep-lab.cu (which checks it against kDepth one-step sweeps and times it), so
//! that the lab measures the code the model runs. Include from `.cu` files only. The design and its
//! arithmetic: docs/k-step-frames.md ("jacobi2d's deep sweeps").

#include <type_traits>
#include <utility>
#include <vector>

#include "jacobi_kernels.cuh"

namespace haloflow::kernels {

//! kDepth steps in one pass ("2.5D streaming", as AN5D and EBISU): each warp owns a strip of
//! 32 * kDeepColumnsPerLane consecutive columns, kDeepColumnsPerLane per lane, and walks down a
//! band of rows. Per level l = 1..kDepth it keeps three rows of level l-1 for its own columns in
//! registers, so each new input row yields, one row later per level, a row of every level: row
//! y of level l from rows y-1, y, y+1 of level l-1, the lane's outer columns' left and right
//! neighbours by shuffle. So a level costs a lane one shuffle each way per row, not one per cell,
//! and no shared memory or barrier: warps run alone, and a level's row is ready as soon as the row
//! under it is. The strip's outer kDepth columns on each side are only ever valid up to the level
//! their distance from the edge allows, so a warp writes the 32 * kDeepColumnsPerLane - 2 kDepth
//! columns inside; a band starts kDepth rows above its first output row and ends kDepth rows below
//! its last, for the same reason. Every value is jacobi_value of the same four neighbours in the
//! same order as a one-step sweep's, and a fixed column keeps its value at every level (`kept`,
//! as jacobi_two_rows): bit for bit the field kDepth one-step sweeps give, wherever the box's
//! outputs read cells of `a` at most kDepth away (ghosts kDepth deep). The rows are kept in a ring
//! of three per level whose slots are compile-time (the walk unrolled three times), so that
//! moving down a row moves no register. With kLoadAhead a lane loads the next input row before it
//! computes the levels of this one (4 more registers; tools/labs/jacobi-deep-lab.cu measures
//! both). kTwoWalks compiles the walk twice, for the warps with a fixed column and without (it
//! saves the others one select a cell and level; the lab measures it against one walk).
template <class T, int kDepth, int kBlocksPerSm = kDeepBlocksPerSm<T, kDepth>,
          bool kLoadAhead = false, bool kTwoWalks = true, RowOrder kOrder = RowOrder::alternating>
__global__ void __launch_bounds__(kDeepBlockThreads, kBlocksPerSm)
    jacobi_deep_rows(CellBox box, const T* __restrict__ a, T* __restrict__ a_new,
                     FixedColumns fixed) {
  constexpr int kLane = kDeepColumnsPerLane;
  constexpr int kStrip = 32 * kLane;
  constexpr unsigned kAll = 0xffffffffU;
  static_assert(kDepth >= 1 && 2 * kDepth < kStrip);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::int64_t strip = box.x0 - kDepth + warp * (kStrip - 2 * kDepth);
  if (strip + kDepth >= box.x0 + box.nx) return;  // the whole warp: nothing of the box to write
  const int ny = static_cast<int>(box.ny);
  const int run = (ny + static_cast<int>(gridDim.y) - 1) / static_cast<int>(gridDim.y);
  const int first = static_cast<int>(block_band<kOrder>(a, a_new)) * run;
  const int last = first + run < ny ? first + run : ny;
  if (first >= last) return;  // the whole block
  const std::int64_t x = strip + kLane * lane;
  bool readable[kLane];  // inside the box grown by kDepth: the rest is never read
  bool writes[kLane];
  bool kept[kLane];
#pragma unroll
  for (int e = 0; e < kLane; ++e) {
    const std::int64_t column = x + e;
    const int in_strip = kLane * lane + e;
    readable[e] = column < box.x0 + box.nx + kDepth;
    writes[e] = in_strip >= kDepth && in_strip < kStrip - kDepth && column < box.x0 + box.nx;
    kept[e] = column == fixed.left || column == fixed.right;
  }
  const std::int64_t stride = box.stride_y;
  // The offset of this lane's first column in the input row the walk is at, from `first` - kDepth.
  const std::int64_t start = x + (box.y0 + first - kDepth) * stride + box.z0 * box.stride_z;
  // Input row r gives level l's row r - l; level kDepth's is the output row r - 2 kDepth from
  // `first`. The walk takes rows three at a time with no branch between them (a row past the band
  // loads and stores nothing, by predicate), so that the compiler may issue the three rows' loads
  // before their levels.
  const int rows = last - first + 2 * kDepth;
  // The walk, compiled twice: a warp without a fixed column (all but one or two of a row of
  // strips) takes the one without the test, one select a cell and level fewer.
  const auto walk = [&](auto warp_keeps) {
    constexpr bool kKeeps = decltype(warp_keeps)::value;
    // ring[l][slot][e]: level l's row in `slot` (the row's index mod 3) at column x + e, l <
    // kDepth.
    T ring[kDepth][3][kLane] = {};
    T ahead[kLane] = {};
    if (kLoadAhead) {
#pragma unroll
      for (int e = 0; e < kLane; ++e) ahead[e] = readable[e] ? a[start + e] : T(0);
    }
    std::int64_t at = start;
    for (int r0 = 0; r0 < rows; r0 += 3) {
#pragma unroll
      for (int newest = 0; newest < 3; ++newest, at += stride) {
        const int r = r0 + newest;
        const int centre = (newest + 2) % 3;
        const int above = (newest + 1) % 3;
#pragma unroll
        for (int e = 0; e < kLane; ++e) {
          ring[0][newest][e] = kLoadAhead ? ahead[e] : readable[e] && r < rows ? a[at + e] : T(0);
        }
        if (kLoadAhead) {
#pragma unroll
          for (int e = 0; e < kLane; ++e) {
            ahead[e] = readable[e] && r + 1 < rows ? a[at + stride + e] : T(0);
          }
        }
#pragma unroll
        for (int level = 1; level <= kDepth; ++level) {
          const T(&from)[3][kLane] = ring[level - 1];
          const T left_edge = __shfl_up_sync(kAll, from[centre][kLane - 1], 1);
          const T right_edge = __shfl_down_sync(kAll, from[centre][0], 1);
          T value[kLane];
#pragma unroll
          for (int e = 0; e < kLane; ++e) {
            const T right = e + 1 < kLane ? from[centre][e + 1 < kLane ? e + 1 : e] : right_edge;
            const T left = e > 0 ? from[centre][e > 0 ? e - 1 : e] : left_edge;
            value[e] = kKeeps && kept[e]
                           ? from[centre][e]
                           : jacobi_value(right, left, from[newest][e], from[above][e]);
          }
          if (level < kDepth) {
#pragma unroll
            for (int e = 0; e < kLane; ++e) ring[level < kDepth ? level : 0][newest][e] = value[e];
          } else {
            const bool output = r >= 2 * kDepth && r < rows;
#pragma unroll
            for (int e = 0; e < kLane; ++e) {
              if (writes[e] && output) a_new[at - kDepth * stride + e] = value[e];
            }
          }
        }
      }
    }
  };
  bool keeps = false;
#pragma unroll
  for (int e = 0; e < kLane; ++e) keeps = keeps || kept[e];
  if (!kTwoWalks || __any_sync(kAll, keeps)) {
    walk(std::true_type{});
  } else {
    walk(std::false_type{});
  }
}

//! The CPU twin: kDepth one-step sweeps, level l over the box grown by kDepth - l (fixed columns
//! copied), from level l-1 one cell wider, rows in order; the last level is the box.
template <class T, int kDepth>
void jacobi_deep_rows_on_host(const LaunchShape& /*shape*/, CellBox box, const T* a, T* a_new,
                              FixedColumns fixed) {
  const std::int64_t width = box.nx + 2 * kDepth;
  const std::int64_t size = width * (box.ny + 2 * kDepth);
  std::vector<T> from(static_cast<std::size_t>(size));
  std::vector<T> to(from.size());
  const auto at = [&](std::vector<T>& level, std::int64_t x, std::int64_t y) -> T& {
    return level[static_cast<std::size_t>((y - box.y0 + kDepth) * width + (x - box.x0 + kDepth))];
  };
  const std::int64_t plane = box.z0 * box.stride_z;
  for (std::int64_t y = box.y0 - kDepth; y < box.y0 + box.ny + kDepth; ++y) {
    for (std::int64_t x = box.x0 - kDepth; x < box.x0 + box.nx + kDepth; ++x) {
      at(from, x, y) = a[plane + y * box.stride_y + x];
    }
  }
  for (int level = 1; level <= kDepth; ++level) {
    const int grow = kDepth - level;
    for (std::int64_t y = box.y0 - grow; y < box.y0 + box.ny + grow; ++y) {
      for (std::int64_t x = box.x0 - grow; x < box.x0 + box.nx + grow; ++x) {
        at(to, x, y) = x == fixed.left || x == fixed.right
                           ? at(from, x, y)
                           : jacobi_value(at(from, x + 1, y), at(from, x - 1, y),
                                          at(from, x, y + 1), at(from, x, y - 1));
      }
    }
    std::swap(from, to);
  }
  for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
      a_new[plane + y * box.stride_y + x] = at(from, x, y);
    }
  }
}

}  // namespace haloflow::kernels
