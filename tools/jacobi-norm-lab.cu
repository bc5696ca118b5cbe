// What does jacobi2d's in-sweep norm cost, and what brings it within 10 % of the sweep without it?
// A stand-alone measurement (not part of the build), run by tools/kernel-labs on the GPU machine:
//   nvcc -O3 -std=c++20 -arch=sm_90 -Iengine/include -Iapps/models/support -Iapps/models/<model>
//   tools/jacobi-norm-lab.cu \
//     -o jacobi-norm-lab && ./jacobi-norm-lab [profile]
// The model's sweep at 16384 x 16384 float (16382 computed columns, 16384 computed rows, one halo
// row above and below), blocks 128 x 2, runs of 8 rows (and 4). Variants: the sweep alone; the norm
// as the model had it (every block atomicAdds its sum to one double, after a zeroing kernel); the
// norm with 8 runs per thread (a grid 8 times shorter), registers unbounded, as first measured; and
// the norm as apps/models/jacobi2d/jacobi_kernels.cuh has it now (the plain sweep's launch, the
// squares in 1 or 2 independent sums, registers bounded so that 8 blocks fit an SM, each block
// writing its partial, a few blocks summing them in a fixed order). Each is checked (field bit for
// bit against the sweep alone, the norm against a CPU sum to n eps, the new norm's bits across
// repeats) and timed as the median of 30 launches of the whole step (its kernels back to back).
// `profile`: each variant once, for ncu.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "jacobi_kernels.cuh"
#include "lab_timing.cuh"

using haloflow::kernels::CellBox;

namespace {

constexpr std::int64_t kNx = 16384;
constexpr std::int64_t kRows = 16384;

// The model's norm before this lab (apps/models/jacobi2d/jacobi_kernels.cu at e7bbe00): every block
// adds its sum to one double with atomicAdd.
__device__ void old_add_block_sum(double value, double* sum) {
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

__global__ void old_norm_rows(CellBox box, const float* __restrict__ a, float* __restrict__ a_new,
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
    float previous_row = a[i - stride];
    float centre = a[i];
#pragma unroll 4
    for (std::int64_t y = first; y < last; ++y, i += stride) {
      const float next_row = a[i + stride];
      const float value =
          haloflow::kernels::jacobi_value(a[i + 1], a[i - 1], next_row, previous_row);
      a_new[i] = value;
      const double update = static_cast<double>(value - centre);
      squares += update * update;
      previous_row = centre;
      centre = next_row;
    }
  }
  old_add_block_sum(squares, sum);
}

// The norm sweep as measured on 2026-12-01 08:37 (apps/models/jacobi2d/jacobi_kernels.cuh then):
// the same runs per thread, 64-bit row counters, unrolled by 4, registers left to nvcc (64: 4
// blocks per SM).
__global__ void unbounded_norm_rows(CellBox box, std::int64_t run, const float* __restrict__ a,
                                    float* __restrict__ a_new, double* partials) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t run_stride = static_cast<std::int64_t>(gridDim.y) * blockDim.y * run;
  double squares = 0;
  if (x < box.x0 + box.nx) {
    const std::int64_t stride = box.stride_y;
    for (std::int64_t first =
             (static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y) * run;
         first < box.ny; first += run_stride) {
      const std::int64_t last = first + run < box.ny ? first + run : box.ny;
      std::int64_t i = x + (box.y0 + first) * stride + box.z0 * box.stride_z;
      float previous_row = a[i - stride];
      float centre = a[i];
#pragma unroll 4
      for (std::int64_t y = first; y < last; ++y, i += stride) {
        const float next_row = a[i + stride];
        const float value =
            haloflow::kernels::jacobi_value(a[i + 1], a[i - 1], next_row, previous_row);
        a_new[i] = value;
        const double update = static_cast<double>(value - centre);
        squares += update * update;
        previous_row = centre;
        centre = next_row;
      }
    }
  }
  const double block = haloflow::kernels::block_sum(squares);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    partials[blockIdx.x + static_cast<std::int64_t>(gridDim.x) * blockIdx.y] = block;
  }
}

__global__ void zero_value(double* value) {
  *value = 0.0;
}

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
  const std::int64_t cells = kNx * (kRows + 2);
  const std::size_t bytes = static_cast<std::size_t>(cells) * sizeof(float);
  std::vector<float> host(static_cast<std::size_t>(cells));
  for (std::int64_t i = 0; i < cells; ++i)
    host[static_cast<std::size_t>(i)] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
  const CellBox box{.x0 = 1,
                    .y0 = 1,
                    .z0 = 0,
                    .nx = kNx - 2,
                    .ny = kRows,
                    .nz = 1,
                    .stride_y = kNx,
                    .stride_z = kNx * (kRows + 2)};
  float *a = nullptr, *b = nullptr;
  double *partials = nullptr, *sum = nullptr, *values = nullptr, *block_sums = nullptr;
  unsigned* ticket = nullptr;
  unsigned long long* samples = nullptr;
  const dim3 block(128, 2);
  const auto grid_for = [&](int rows_per_thread) {
    return dim3(static_cast<unsigned>((box.nx + 127) / 128),
                static_cast<unsigned>((box.ny + 2 * rows_per_thread - 1) / (2 * rows_per_thread)));
  };
  const std::int64_t most_partials = std::int64_t{grid_for(2).x} * grid_for(2).y;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&partials, static_cast<std::size_t>(most_partials) * sizeof(double)));
  CHECK(cudaMalloc(&sum, sizeof(double)));
  CHECK(cudaMalloc(&block_sums, haloflow::kernels::kNormFinishBlocks * sizeof(double)));
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
  // The norm log in pinned host memory, as the model keeps it: room for every launch here.
  CHECK(cudaHostAlloc(&values, 1 << 22, cudaHostAllocDefault));
  CHECK(cudaHostAlloc(&samples, sizeof(unsigned long long), cudaHostAllocDefault));
  *samples = 0;
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  const auto plain = [&](int rows) {
    haloflow::kernels::jacobi_rows<float><<<grid_for(rows), block>>>(box, a, b, nullptr);
  };
  const auto old_norm = [&](int rows) {
    zero_value<<<1, 1>>>(sum);
    old_norm_rows<<<grid_for(rows), block>>>(box, a, b, sum);
  };
  const auto finish = [&](std::int64_t count) {
    haloflow::kernels::jacobi_norm_finish<<<haloflow::kernels::kNormFinishBlocks,
                                            haloflow::kernels::kNormFinishThreads>>>(
        partials, count, block_sums, ticket, values, samples);
  };
  // The model's norm: the plain sweep's launch, the squares in `chains` sums, then the finish.
  const auto new_norm = [&](int rows, int chains) {
    const dim3 grid = grid_for(rows);
    if (chains == 1) {
      haloflow::kernels::jacobi_norm_rows<float, 1><<<grid, block>>>(box, a, b, partials);
    } else {
      haloflow::kernels::jacobi_norm_rows<float, 2><<<grid, block>>>(box, a, b, partials);
    }
    finish(std::int64_t{grid.x} * grid.y);
  };
  // The model's norm sweep in taller blocks (128 x `height`, registers bounded so that 2048
  // threads fit an SM, as with 128 x 2): fewer blocks, so fewer block sums and partials.
  const auto tall_norm = [&](int rows, unsigned height) {
    const dim3 tall(128, height);
    const dim3 grid(grid_for(rows).x,
                    static_cast<unsigned>((box.ny + height * rows - 1) / (height * rows)));
    if (height == 4) {
      haloflow::kernels::jacobi_norm_rows<float, 2, 512><<<grid, tall>>>(box, a, b, partials);
    } else {
      haloflow::kernels::jacobi_norm_rows<float, 2, 1024><<<grid, tall>>>(box, a, b, partials);
    }
    finish(std::int64_t{grid.x} * grid.y);
  };
  const auto unbounded_norm = [&](int rows, int runs) {
    const dim3 grid = grid_for(rows * runs);
    unbounded_norm_rows<<<grid, block>>>(box, rows, a, b, partials);
    finish(std::int64_t{grid.x} * grid.y);
  };
  if (profile) {
    plain(8);
    old_norm(8);
    unbounded_norm(8, 8);
    new_norm(8, 2);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }

  const auto time = [&](const std::function<void()>& launch) {
    return median_us(launch, start, stop);
  };
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double copy_us = time([&] {
    copy<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b),
                           cells / 4);
  });
  const double memcpy_us =
      time([&] { CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  const double moved = 2.0 * static_cast<double>(bytes);
  std::printf(
      "copy kernel: %.1f us = %.3f TB/s (read + written); cudaMemcpy D2D: %.1f us = %.3f TB/s\n",
      copy_us, 1e-12 * moved / (copy_us * 1e-6), memcpy_us, 1e-12 * moved / (memcpy_us * 1e-6));

  // The CPU's sum of the squared updates of one sweep of `host`, in double.
  double want = 0;
  for (std::int64_t y = 1; y <= kRows; ++y) {
    for (std::int64_t x = 1; x < kNx - 1; ++x) {
      const std::size_t i = static_cast<std::size_t>(y * kNx + x);
      const float value =
          haloflow::kernels::jacobi_value(host[i + 1], host[i - 1], host[i + kNx], host[i - kNx]);
      const double update = static_cast<double>(value - host[i]);
      want += update * update;
    }
  }
  std::vector<float> reference(host.size()), got(host.size());
  plain(8);
  CHECK(cudaMemcpy(reference.data(), b, bytes, cudaMemcpyDeviceToHost));
  const double tolerance = static_cast<double>(box.nx * box.ny) * DBL_EPSILON;
  const auto same_field = [&] {
    CHECK(cudaMemcpy(got.data(), b, bytes, cudaMemcpyDeviceToHost));
    return std::memcmp(got.data() + kNx, reference.data() + kNx, kNx * kRows * sizeof(float)) == 0;
  };
  // Two more sweeps of `norm`: their logged sums must be bitwise equal (no atomics, fixed order).
  const auto logs_the_same_twice = [&](const std::function<void()>& norm) {
    norm();
    norm();
    CHECK(cudaDeviceSynchronize());
    const unsigned long long n = *samples;
    return std::memcmp(&values[n - 1], &values[n - 2], sizeof(double)) == 0;
  };
  for (int rows : {4, 8}) {
    const double plain_us = time([&] { plain(rows); });
    const bool plain_same = same_field();
    const double old_us = time([&] { old_norm(rows); });
    const bool old_same = same_field();
    double old_value = 0;
    CHECK(cudaMemcpy(&old_value, sum, sizeof(double), cudaMemcpyDeviceToHost));
    std::printf(
        "rows per thread %2d (%u blocks): sweep alone %.1f us (%.1f %% of the copy kernel)%s\n"
        "  old norm (zero + atomicAdd per block): %.1f us = +%.1f %%, field %s, norm rel. "
        "error %.2e\n",
        rows, grid_for(rows).x * grid_for(rows).y, plain_us, 100.0 * copy_us / plain_us,
        plain_same ? "" : " DIFFERENT FIELD", old_us, 100.0 * (old_us / plain_us - 1),
        old_same ? "same" : "DIFFERENT", std::abs(old_value - want) / want);
    {
      const double us = time([&] { unbounded_norm(rows, 8); });
      std::printf(
          "  norm as measured at 08:37 (unroll 4, registers unbounded), 8 runs per "
          "thread: %.1f us = +%.1f %%, field %s\n",
          us, 100.0 * (us / plain_us - 1), same_field() ? "same" : "DIFFERENT");
    }
    for (int chains : {1, 2}) {
      const double new_us = time([&] { new_norm(rows, chains); });
      CHECK(cudaDeviceSynchronize());
      const bool new_same = same_field();
      const bool repeatable = logs_the_same_twice([&] { new_norm(rows, chains); });
      const double new_value = values[*samples - 1];
      const dim3 grid = grid_for(rows);
      const double finish_us = time([&] { finish(std::int64_t{grid.x} * grid.y); });
      std::printf(
          "  norm, squares in %d sums (%u blocks, partials + %u-block finish): %.1f us = +%.1f %% "
          "(finish alone %.1f us), field %s, norm rel. error %.2e (allowed %.2e), %s across "
          "repeats\n",
          chains, grid.x * grid.y, haloflow::kernels::kNormFinishBlocks, new_us,
          100.0 * (new_us / plain_us - 1), finish_us, new_same ? "same" : "DIFFERENT",
          std::abs(new_value - want) / want, tolerance, repeatable ? "bitwise equal" : "DIFFERENT");
    }
  }
  // Taller blocks, runs of 8 rows; the sweep alone and the model's form timed again beside them.
  {
    const int rows = 8;
    const double plain_us = time([&] { plain(rows); });
    const double model_us = time([&] { new_norm(rows, 2); });
    std::printf(
        "blocks 128 x 2 (the model's): sweep alone %.1f us, with the norm %.1f us = %+.1f %%\n",
        plain_us, model_us, 100.0 * (model_us / plain_us - 1));
    for (unsigned height : {4u, 8u}) {
      const double us = time([&] { tall_norm(rows, height); });
      CHECK(cudaDeviceSynchronize());
      const bool field_same = same_field();
      const bool repeatable = logs_the_same_twice([&] { tall_norm(rows, height); });
      const unsigned long long n = *samples;
      std::printf(
          "  norm in blocks 128 x %u: %.1f us = %+.1f %% of the sweep alone, field %s, norm rel. "
          "error %.2e (allowed %.2e), %s across repeats\n",
          height, us, 100.0 * (us / plain_us - 1), field_same ? "same" : "DIFFERENT",
          std::abs(values[n - 1] - want) / want, tolerance,
          repeatable ? "bitwise equal" : "DIFFERENT");
    }
  }
  return 0;
}
