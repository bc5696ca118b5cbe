// The Jacobi sweep: the value of a cell written once (jacobi_value), used by a kernel that walks
// runs of rows on the GPU and by a row loop on the CPU, so the host executor computes exactly what
// the GPU computes.

#include "haloflow/per_cell.cuh"
#include "jacobi_kernels.hpp"

namespace haloflow::kernels {
namespace {

//! The new value of a cell from its four face neighbours. The sum order and the multiplication
//! by 0.25 (exact in float and double) are the reference program's; GPU and CPU both call this,
//! so they agree bit for bit.
template <class T>
HALOFLOW_HD T jacobi_value(T right, T left, T next_row, T previous_row) {
  return T(0.25) * (right + left + next_row + previous_row);
}

//! Adds `value` of every thread of the block to `*sum` with one atomicAdd (blocks of a multiple
//! of 32 threads, at most 1024).
__device__ void add_block_sum(double value, double* sum) {
  __shared__ double warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffU, value, offset);
  }
  const unsigned thread = threadIdx.x + blockDim.x * threadIdx.y;
  const unsigned warps = blockDim.x * blockDim.y / 32;
  if (thread % 32 == 0) warp_sums[thread / 32] = value;
  __syncthreads();
  if (thread >= 32) return;
  value = thread < warps ? warp_sums[thread] : 0.0;
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffU, value, offset);
  }
  if (thread == 0) atomicAdd(sum, value);
}

//! One thread per column, walking a run of consecutive rows: the rows above and below stay in
//! registers as the thread moves down, so each step loads one new row value (left and right come
//! from the neighbouring lanes' loads, in L1). The earlier form, a strided loop loading all four
//! neighbours per cell, reached 63 % of the copy bandwidth on an H200 (docs/benchmarks.md).
//! The run is the box's rows over the grid's threads along y; every thread reaches the block sum.
template <class T, bool kNorm>
__global__ void jacobi_rows(CellBox box, const T* __restrict__ a, T* __restrict__ a_new,
                            double* sum) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t threads_y = static_cast<std::int64_t>(gridDim.y) * blockDim.y;
  const std::int64_t run = (box.ny + threads_y - 1) / threads_y;
  const std::int64_t first =
      (static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y) * run;
  const std::int64_t last = first + run < box.ny ? first + run : box.ny;
  double squares = 0;
  if (x < box.x0 + box.nx && first < last) {
    const std::int64_t stride = box.stride_y;
    std::int64_t i = x + (box.y0 + first) * stride + box.z0 * box.stride_z;
    T previous_row = a[i - stride];
    T centre = a[i];
#pragma unroll 4
    for (std::int64_t y = first; y < last; ++y, i += stride) {
      const T next_row = a[i + stride];
      const T value = jacobi_value(a[i + 1], a[i - 1], next_row, previous_row);
      a_new[i] = value;
      if constexpr (kNorm) {
        const double update = static_cast<double>(value - centre);
        squares += update * update;
      }
      previous_row = centre;
      centre = next_row;
    }
  }
  if constexpr (kNorm) add_block_sum(squares, sum);
}

//! The CPU twin: rows in order, x fastest; the squares summed in that order.
template <class T, bool kNorm>
void jacobi_rows_on_host(const LaunchShape& /*shape*/, CellBox box, const T* a, T* a_new,
                         double* sum) {
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
  if constexpr (kNorm) *sum += squares;
}

__global__ void zero_value(double* value) {
  *value = 0.0;
}

void zero_value_on_host(const LaunchShape& /*shape*/, double* value) {
  *value = 0.0;
}

}  // namespace

template <class T>
JacobiKernel<T> jacobi_kernel() {
  return {&jacobi_rows<T, false>, &jacobi_rows_on_host<T, false>, "jacobi"};
}

template <class T>
JacobiKernel<T> jacobi_norm_kernel() {
  return {&jacobi_rows<T, true>, &jacobi_rows_on_host<T, true>, "jacobi_norm"};
}

KernelRef<double*> zero_kernel() {
  return {&zero_value, &zero_value_on_host, "zero"};
}

template JacobiKernel<float> jacobi_kernel<float>();
template JacobiKernel<double> jacobi_kernel<double>();
template JacobiKernel<float> jacobi_norm_kernel<float>();
template JacobiKernel<double> jacobi_norm_kernel<double>();

}  // namespace haloflow::kernels
