// The Jacobi sweep written once per cell (JacobiCell), run by a 2D-launched kernel on the GPU and
// by a row loop on the CPU, so the host executor computes exactly what the GPU computes.

#include "haloflow/per_cell.cuh"
#include "jacobi_kernels.hpp"

namespace haloflow::kernels {
namespace {

template <class T>
struct JacobiCell {
  //! Writes cell `i` of a_new; \returns the update a_new[i] - a[i]. The sum order and the
  //! multiplication by 0.25 (exact in float and double) are the reference program's.
  static HALOFLOW_HD T apply(std::int64_t i, std::int64_t stride, const T* __restrict__ a,
                             T* __restrict__ a_new) {
    const T value = T(0.25) * (a[i + 1] + a[i - 1] + a[i + stride] + a[i - stride]);
    a_new[i] = value;
    return value - a[i];
  }
};

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

//! One thread per column; no division or modulo per cell. Every thread reaches the block sum.
template <class T, bool kNorm>
__global__ void jacobi_rows(CellBox box, const T* __restrict__ a, T* __restrict__ a_new,
                            double* sum) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  double squares = 0;
  if (x < box.x0 + box.nx) {
    // 64-bit multiplies cost several instructions: the index is computed once and then only
    // advanced (profiled on an H200: with a multiply per cell the sweep was compute-bound).
    const int rows = static_cast<int>(gridDim.y * blockDim.y);
    const std::int64_t step = rows * box.stride_y;
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    std::int64_t i = x + (box.y0 + y) * box.stride_y + box.z0 * box.stride_z;
    for (; y < box.ny; y += rows, i += step) {
      const T update = JacobiCell<T>::apply(i, box.stride_y, a, a_new);
      if constexpr (kNorm) squares += static_cast<double>(update) * static_cast<double>(update);
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
      const T update = JacobiCell<T>::apply(row + x, box.stride_y, a, a_new);
      if constexpr (kNorm) squares += static_cast<double>(update) * static_cast<double>(update);
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
