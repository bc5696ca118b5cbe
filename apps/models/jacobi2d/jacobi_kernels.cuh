#pragma once
//! \file
//! \brief The Jacobi sweep, its in-sweep norm and the norm's finishing reduction, included by
//! apps/models/jacobi2d/jacobi_kernels.cu (the model) and tools/jacobi-norm-lab.cu (which checks
//! and times them against the sweep without the norm), so that the lab measures the code the model
//! runs. Include from `.cu` files only.

#include <vector>

#include "haloflow/per_cell.cuh"
#include "jacobi_kernels.hpp"

namespace haloflow::kernels {

//! The new value of a cell from its four face neighbours. The sum order and the multiplication
//! by 0.25 (exact in float and double) are the reference program's; GPU and CPU both call this,
//! so they agree bit for bit.
template <class T>
HALOFLOW_HD inline T jacobi_value(T right, T left, T next_row, T previous_row) {
  return T(0.25) * (right + left + next_row + previous_row);
}

//! The sum of `value` over the threads of the block (blocks of a multiple of 32 threads, at most
//! 1024), in a fixed order (so the same inputs give the same bits); valid in thread 0 only.
__device__ inline double block_sum(double value) {
  __shared__ double warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffU, value, offset);
  }
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned warps = blockDim.x * blockDim.y * blockDim.z / 32;
  if (thread % 32 == 0) warp_sums[thread / 32] = value;
  __syncthreads();
  if (thread >= 32) return 0.0;
  value = thread < warps ? warp_sums[thread] : 0.0;
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffU, value, offset);
  }
  return value;
}

//! The order in which a sweep's blocks take the box's bands of rows. A step reads one array whole
//! and writes the other, and what it touched last is still in L2 when the next step starts (H200:
//! 62.9 MB, against 134 MB a step at 4096^2); a step that walks up after one that walked down
//! starts on the rows just written and reads them from L2 instead of DRAM. `downwards` is the order
//! before, kept for tools/jacobi-order-lab.cu to measure against.
enum class RowOrder { alternating, downwards };

//! The band of rows (counted from the top, as blockIdx.y counts them) that this block sweeps. The
//! GPU starts blocks in index order, so reversing the map reverses the walk. With
//! RowOrder::alternating the walk goes up when `a` lies above `a_new` in memory: a ping-pong
//! swaps the two every step, so successive steps alternate with no parameter to patch. Which
//! band a block sweeps changes no cell's value, nor the order of a norm's sums (their partials are
//! indexed by band).
template <RowOrder kOrder>
__device__ __forceinline__ unsigned block_band(const void* a, const void* a_new) {
  const bool upwards =
      kOrder == RowOrder::alternating &&
      reinterpret_cast<std::uintptr_t>(a) > reinterpret_cast<std::uintptr_t>(a_new);
  return upwards ? gridDim.y - 1 - blockIdx.y : blockIdx.y;
}

//! One thread per column, walking a run of consecutive rows: the rows above and below stay in
//! registers as the thread moves down, so each step loads one new row value (left and right come
//! from the neighbouring lanes' loads, in L1). The run is the box's rows over the grid's threads
//! along y; the blocks take their bands in kOrder (block_band).
template <class T, RowOrder kOrder = RowOrder::alternating>
__global__ void jacobi_rows(CellBox box, const T* __restrict__ a, T* __restrict__ a_new,
                            double* /*partials*/) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t threads_y = static_cast<std::int64_t>(gridDim.y) * blockDim.y;
  const std::int64_t run = (box.ny + threads_y - 1) / threads_y;
  const std::int64_t first =
      (static_cast<std::int64_t>(block_band<kOrder>(a, a_new)) * blockDim.y + threadIdx.y) * run;
  const std::int64_t last = first + run < box.ny ? first + run : box.ny;
  if (x >= box.x0 + box.nx || first >= last) return;
  const std::int64_t stride = box.stride_y;
  std::int64_t i = x + (box.y0 + first) * stride + box.z0 * box.stride_z;
  T previous_row = a[i - stride];
  T centre = a[i];
#pragma unroll 4
  for (std::int64_t y = first; y < last; ++y, i += stride) {
    const T next_row = a[i + stride];
    a_new[i] = jacobi_value(a[i + 1], a[i - 1], next_row, previous_row);
    previous_row = centre;
    centre = next_row;
  }
}

//! Two steps in one pass (jacobi_two_step_kernel): each lane walks one column `x` down a run of
//! rows, computing the first step `s` there (kept in registers, three rows of it) from `a` (three
//! rows of its own column in registers, its neighbours' from L1); the second step at (y, x) takes
//! s(y, x +- 1) from the neighbouring lanes by shuffle. So the warp's outer lanes compute the
//! first step only, and a warp writes the 30 columns inside its 32. The first step is computed
//! one ring around the box (rows y0-1 and y0+ny, columns x0-1 and x0+nx), reading `a` two cells
//! around it; at a fixed column it is `a` itself. Lanes beyond the ring's right column load
//! nothing and take part in the shuffles only. Eight blocks an SM (32 registers) and the walk not
//! unrolled: the fastest of tools/jacobi-two-step-lab.cu's variants on an H200 at every size
//! (the times: docs/benchmarks.md).
template <class T, RowOrder kOrder = RowOrder::alternating, int kBlocksPerSm = 8, int kUnroll = 1>
__global__ void __launch_bounds__(256, kBlocksPerSm)
    jacobi_two_rows(CellBox box, const T* __restrict__ a, T* __restrict__ a_new,
                    FixedColumns fixed) {
  constexpr unsigned kAll = 0xffffffffU;
  const unsigned lane = threadIdx.x % 32;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::int64_t x = box.x0 - 1 + warp * kTwoStepColumnsPerWarp + lane;
  const int ny = static_cast<int>(box.ny);
  const int threads_y = static_cast<int>(gridDim.y * blockDim.y);
  const int run = (ny + threads_y - 1) / threads_y;
  const int first = static_cast<int>(block_band<kOrder>(a, a_new) * blockDim.y + threadIdx.y) * run;
  const int last = first + run < ny ? first + run : ny;
  if (first >= last) return;  // the whole warp: its lanes share threadIdx.y
  const bool inside = x <= box.x0 + box.nx;
  const bool writes = lane >= 1 && lane <= kTwoStepColumnsPerWarp && x < box.x0 + box.nx;
  const bool kept = x == fixed.left || x == fixed.right;
  const std::int64_t stride = box.stride_y;
  const T* p = a + x + (box.y0 + first) * stride + box.z0 * box.stride_z;
  T* q = a_new + (p - a);
  // The first step at the row of `centre` (pointer `at`), from the rows above and below.
  const auto first_step = [&](const T* at, T above, T centre, T below) {
    return kept ? centre : jacobi_value(at[1], at[-1], below, above);
  };
  T above = inside ? p[-2 * stride] : T(0);
  T centre = inside ? p[-stride] : T(0);
  T below = inside ? p[0] : T(0);
  T s_above = inside ? first_step(p - stride, above, centre, below) : T(0);
  above = centre;
  centre = below;
  below = inside ? p[stride] : T(0);
  T s_centre = inside ? first_step(p, above, centre, below) : T(0);
#pragma unroll kUnroll
  for (int y = first; y < last; ++y, p += stride, q += stride) {
    above = centre;
    centre = below;
    below = inside ? p[2 * stride] : T(0);
    const T s_below = inside ? first_step(p + stride, above, centre, below) : T(0);
    const T s_right = __shfl_down_sync(kAll, s_centre, 1);
    const T s_left = __shfl_up_sync(kAll, s_centre, 1);
    if (writes) *q = jacobi_value(s_right, s_left, s_below, s_above);
    s_above = s_centre;
    s_centre = s_below;
  }
}

//! The CPU twin of the two-step sweep: the first step over the box and its ring into a scratch
//! array (kept columns copied), then the second step over the box, rows in order.
template <class T>
void jacobi_two_rows_on_host(const LaunchShape& /*shape*/, CellBox box, const T* a, T* a_new,
                             FixedColumns fixed) {
  const std::int64_t width = box.nx + 2;
  const std::int64_t height = box.ny + 2;
  std::vector<T> first(static_cast<std::size_t>(width * height));
  const auto at = [&](std::int64_t x, std::int64_t y) -> T& {
    return first[static_cast<std::size_t>((y - box.y0 + 1) * width + (x - box.x0 + 1))];
  };
  const std::int64_t plane = box.z0 * box.stride_z;
  for (std::int64_t y = box.y0 - 1; y <= box.y0 + box.ny; ++y) {
    for (std::int64_t x = box.x0 - 1; x <= box.x0 + box.nx; ++x) {
      const std::int64_t i = plane + y * box.stride_y + x;
      at(x, y) = x == fixed.left || x == fixed.right
                     ? a[i]
                     : jacobi_value(a[i + 1], a[i - 1], a[i + box.stride_y], a[i - box.stride_y]);
    }
  }
  for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
      a_new[plane + y * box.stride_y + x] =
          jacobi_value(at(x + 1, y), at(x - 1, y), at(x, y + 1), at(x, y - 1));
    }
  }
}

//! The norm sweep's blocks (the model's 128 x 2) and the blocks per SM its registers must allow:
//! 8, a full SM, as the plain sweep (31 registers) gets. Left to itself nvcc gave the norm sweep
//! 40 registers, so 6 blocks per SM, and the sweep, which needs every load in flight it can get,
//! lost bandwidth (tools/jacobi-norm-lab.cu, docs/benchmarks.md).
inline constexpr int kJacobiNormBlockThreads = 256;
inline constexpr int kJacobiNormBlocksPerSm = 8;

//! The norm sweep's walk of rows [first, last) of a thread's column from `p` (in a) and `q` (in
//! a_new), `previous_row` and `centre` the values above and at the first row: writes the new
//! values and adds their squared updates, in Sum, to `sums` (even rows, odd rows; with one chain
//! every row in the first).
template <class T, class Sum, int kChains>
__device__ __forceinline__ void jacobi_norm_walk(int first, int last, std::int64_t stride,
                                                 const T*& p, T*& q, T& previous_row, T& centre,
                                                 Sum (&sums)[2]) {
#pragma unroll 4
  for (int y = first; y < last; ++y, p += stride, q += stride) {
    const T next_row = p[stride];
    const T value = jacobi_value(p[1], p[-1], next_row, previous_row);
    *q = value;
    const Sum update = static_cast<Sum>(value - centre);
    if (kChains == 2 && (y & 1) != 0) {
      sums[1] = fma(update, update, sums[1]);
    } else {
      sums[0] = fma(update, update, sums[0]);
    }
    previous_row = centre;
    centre = next_row;
  }
}

//! The sweep with the norm: the plain sweep's walk (the same launch, one run of rows per thread),
//! summing the squared updates in T, not double: converting each float update to double and
//! summing in double cost the sweep +10 % at 16384^2 where float sums cost +3 %
//! (tools/jacobi-norm-lab.cu, docs/benchmarks.md). A run longer than kJacobiNormRowsPerSum
//! (jacobi_kernels.hpp) is summed in double instead, so that a float sum never holds more than
//! that many squares (summing a long run in pieces needs a counter and a test in the loop, which
//! cost +22 %). The squares go into `kChains` independent sums (even and odd rows, so that each
//! fused multiply-add waits for the one two rows back, not the one before). Each block writes the
//! sum of its threads' to `partials[blockIdx.x + gridDim.x * its band]` once at the end: no
//! atomics, so the sum does not depend on the order in which blocks finish. Rows are counted in 32
//! bits and walked by pointer so that it fits in 32 registers (kJacobiNormBlocksPerSm).
template <class T, int kChains = 2, int kBlockThreads = kJacobiNormBlockThreads,
          RowOrder kOrder = RowOrder::alternating>
__global__ void __launch_bounds__(kBlockThreads,
                                  kJacobiNormBlocksPerSm* kJacobiNormBlockThreads / kBlockThreads)
    jacobi_norm_rows(CellBox box, const T* __restrict__ a, T* __restrict__ a_new,
                     double* partials) {
  static_assert(kChains == 1 || kChains == 2);
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int ny = static_cast<int>(box.ny);
  const int threads_y = static_cast<int>(gridDim.y * blockDim.y);
  const int run = (ny + threads_y - 1) / threads_y;
  const unsigned band = block_band<kOrder>(a, a_new);
  const int first = static_cast<int>(band * blockDim.y + threadIdx.y) * run;
  const int last = first + run < ny ? first + run : ny;
  double total = 0;
  if (x < box.x0 + box.nx && first < last) {
    const std::int64_t stride = box.stride_y;
    const T* p = a + x + (box.y0 + first) * stride + box.z0 * box.stride_z;
    T* q = a_new + (p - a);
    T previous_row = p[-stride];
    T centre = p[0];
    if (last - first <= kJacobiNormRowsPerSum) {
      T sums[2] = {0, 0};
      jacobi_norm_walk<T, T, kChains>(first, last, stride, p, q, previous_row, centre, sums);
      total = static_cast<double>(sums[0]) + static_cast<double>(sums[1]);
    } else {
      double sums[2] = {0, 0};
      jacobi_norm_walk<T, double, kChains>(first, last, stride, p, q, previous_row, centre, sums);
      total = sums[0] + sums[1];
    }
  }
  const double block = block_sum(total);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    partials[blockIdx.x + static_cast<std::int64_t>(gridDim.x) * band] = block;
  }
}

//! The CPU twin of both sweeps: rows in order, x fastest; with the norm, the squares summed in
//! that order into the node's first partial, its other partials (one per block of the GPU launch)
//! set to zero.
template <class T, bool kNorm>
void jacobi_rows_on_host(const LaunchShape& shape, CellBox box, const T* a, T* a_new,
                         double* partials) {
  double squares = 0;
  for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
    const std::int64_t row = y * box.stride_y + box.z0 * box.stride_z;
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
      const std::int64_t i = row + x;
      const T value = jacobi_value(a[i + 1], a[i - 1], a[i + box.stride_y], a[i - box.stride_y]);
      a_new[i] = value;
      if constexpr (kNorm) {
        const double update = static_cast<double>(value - a[i]);
        squares += update * update;
      }
    }
  }
  if constexpr (kNorm) {
    const std::uint64_t blocks = shape.grid.x * static_cast<std::uint64_t>(shape.grid.y);
    partials[0] = squares;
    for (std::uint64_t b = 1; b < blocks; ++b) partials[b] = 0.0;
  }
}

//! The finishing reduction's blocks and their threads: enough blocks that the sweeps' partials
//! (one per block of 2048 cells: 131072 at 16384^2, 1 MiB) are read in one round of loads per
//! thread, not one SM's sixteen (measured faster with tools/jacobi-norm-lab.cu; the times:
//! docs/benchmarks.md).
inline constexpr unsigned kNormFinishBlocks = 128;
inline constexpr unsigned kNormFinishThreads = 256;

//! values[*samples] = the sum of partials[0, count), then ++*samples, in a fixed order whatever
//! the order in which the blocks run: block b sums the b-th of kNormFinishBlocks equal slices
//! (four interleaved sums per thread, so that loads overlap, then the block sum) into
//! block_sums[b]; the block that finishes last (the ticket it draws) sums block_sums in index
//! order, logs the total and sets the ticket back to 0 for the next launch. `ticket` is 0 before
//! the first launch. `values` and `samples` may be pinned host memory: the host reads them back
//! when it wants the norms.
__global__ void jacobi_norm_finish(const double* __restrict__ partials, std::int64_t count,
                                   double* block_sums, unsigned* ticket, double* values,
                                   unsigned long long* samples) {
  const std::int64_t slice = (count + gridDim.x - 1) / gridDim.x;
  const std::int64_t begin = slice * blockIdx.x;
  const std::int64_t end = begin + slice < count ? begin + slice : count;
  const std::int64_t stride = blockDim.x;
  double sums[4] = {0, 0, 0, 0};
  std::int64_t k = begin + threadIdx.x;
  for (; k + 3 * stride < end; k += 4 * stride) {
    sums[0] += partials[k];
    sums[1] += partials[k + stride];
    sums[2] += partials[k + 2 * stride];
    sums[3] += partials[k + 3 * stride];
  }
  for (; k < end; k += stride) sums[0] += partials[k];
  const double mine = block_sum((sums[0] + sums[1]) + (sums[2] + sums[3]));
  __shared__ bool last;
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = mine;
    __threadfence();  // the sum is visible to every block before the ticket says it is there
    last = atomicAdd(ticket, 1U) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const double total = block_sum(threadIdx.x < gridDim.x ? __ldcg(&block_sums[threadIdx.x]) : 0.0);
  if (threadIdx.x == 0) {
    const unsigned long long n = *samples;
    values[n] = total;
    *samples = n + 1;
    *ticket = 0;
  }
}

//! The CPU twin: the partials in index order (block_sums and the ticket are the GPU's scratch).
inline void jacobi_norm_finish_on_host(const LaunchShape& /*shape*/, const double* partials,
                                       std::int64_t count, double* /*block_sums*/,
                                       unsigned* /*ticket*/, double* values,
                                       unsigned long long* samples) {
  double total = 0;
  for (std::int64_t k = 0; k < count; ++k) total += partials[k];
  values[*samples] = total;
  ++*samples;
}

}  // namespace haloflow::kernels
