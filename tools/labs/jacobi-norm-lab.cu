// What does jacobi2d's in-sweep norm cost, and what brings it within 10 % of the sweep without it?
// A stand-alone measurement, built with the project (tools/labs/CMakeLists.txt; `cmake --build
// build --target jacobi-norm-lab`, the program build/labs/jacobi-norm-lab) and run by
// tools/kernel-labs on the GPU machine:
//   build/labs/jacobi-norm-lab [profile]
// The model's sweep at 16384 x 16384 float (16382 computed columns, 16384 computed rows, one halo
// row above and below), blocks 128 x 2, runs of 8 rows (and 4). Variants: the sweep alone; the norm
// as the model had it (every block atomicAdds its sum to one double, after a zeroing kernel); the
// norm with 8 runs per thread (a grid 8 times shorter), registers unbounded, as first measured; and
// the norm as apps/models/jacobi2d/jacobi_kernels.cuh has it now (the plain sweep's launch, the
// squares in 1 or 2 independent sums, registers bounded so that 8 blocks fit an SM, each block
// writing its partial, a few blocks summing them in a fixed order; the squares summed in float,
// and, for comparison, in double as before). Each is checked (field bit for
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

// The norm sweep in the form before the float sums (apps/models/jacobi2d/jacobi_kernels.cuh at
// e15e6fb): each float update converted to double and squared into two double sums (the model's
// walk in double, which it keeps for runs longer than kJacobiNormRowsPerSum). With
// `kWarpPartials`, each warp writes its own sum (eight partials a block): no shared memory and no
// __syncthreads at the end, so a warp leaves as soon as its rows are done.
template <bool kWarpPartials>
__global__ void __launch_bounds__(256, 8)
    double_sum_norm_rows(CellBox box, const float* __restrict__ a, float* __restrict__ a_new,
                         double* partials) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int ny = static_cast<int>(box.ny);
  const int threads_y = static_cast<int>(gridDim.y * blockDim.y);
  const int run = (ny + threads_y - 1) / threads_y;
  const int first = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) * run;
  const int last = first + run < ny ? first + run : ny;
  double sums[2] = {0, 0};
  if (x < box.x0 + box.nx && first < last) {
    const std::int64_t stride = box.stride_y;
    const float* p = a + x + (box.y0 + first) * stride + box.z0 * box.stride_z;
    float* q = a_new + (p - a);
    float previous_row = p[-stride];
    float centre = p[0];
    haloflow::kernels::jacobi_norm_walk<float, double, 2>(first, last, stride, p, q, previous_row,
                                                          centre, sums);
  }
  const std::int64_t block = blockIdx.x + static_cast<std::int64_t>(gridDim.x) * blockIdx.y;
  if constexpr (kWarpPartials) {
    double warp = sums[0] + sums[1];
    for (int offset = 16; offset > 0; offset /= 2) {
      warp += __shfl_down_sync(0xffffffffU, warp, offset);
    }
    const unsigned thread = threadIdx.x + blockDim.x * threadIdx.y;
    if (thread % 32 == 0) partials[block * (blockDim.x * blockDim.y / 32) + thread / 32] = warp;
  } else {
    const double sum = haloflow::kernels::block_sum(sums[0] + sums[1]);
    if (threadIdx.x == 0 && threadIdx.y == 0) partials[block] = sum;
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
  // Room for the warp partials (eight a block), and a second set for the deferred finish.
  CHECK(cudaMalloc(&partials, static_cast<std::size_t>(16 * most_partials) * sizeof(double)));
  double* other_partials = partials + 8 * most_partials;
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
  // Deferred finish: the sweep with the norm on one stream, and beside it, on another, the finish
  // of the previous step's partials (`other_partials`), as a frame would run the one of step s-1
  // beside step s's sweep. `warp` picks the warp-partial sweep (8 partials a block).
  cudaStream_t sweep_stream, finish_stream;
  cudaEvent_t fork, sweep_done, finish_done;
  CHECK(cudaStreamCreate(&sweep_stream));
  CHECK(cudaStreamCreateWithPriority(&finish_stream, cudaStreamDefault, -5));
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&sweep_done, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&finish_done, cudaEventDisableTiming));
  const auto deferred_norm = [&](int rows, bool warp, bool with_finish) {
    const dim3 grid = grid_for(rows);
    const std::int64_t count = std::int64_t{grid.x} * grid.y * (warp ? 8 : 1);
    CHECK(cudaEventRecord(fork, 0));
    CHECK(cudaStreamWaitEvent(sweep_stream, fork));
    CHECK(cudaStreamWaitEvent(finish_stream, fork));
    if (with_finish) {
      haloflow::kernels::
          jacobi_norm_finish<<<haloflow::kernels::kNormFinishBlocks,
                               haloflow::kernels::kNormFinishThreads, 0, finish_stream>>>(
              other_partials, count, block_sums, ticket, values, samples);
    }
    if (warp) {
      double_sum_norm_rows<true><<<grid, block, 0, sweep_stream>>>(box, a, b, partials);
    } else {
      haloflow::kernels::jacobi_norm_rows<float, 2>
          <<<grid, block, 0, sweep_stream>>>(box, a, b, partials);
    }
    CHECK(cudaEventRecord(sweep_done, sweep_stream));
    CHECK(cudaEventRecord(finish_done, finish_stream));
    CHECK(cudaStreamWaitEvent(0, sweep_done));
    CHECK(cudaStreamWaitEvent(0, finish_done));
  };
  const auto warp_norm = [&](int rows) {
    const dim3 grid = grid_for(rows);
    double_sum_norm_rows<true><<<grid, block>>>(box, a, b, partials);
    finish(std::int64_t{grid.x} * grid.y * 8);
  };
  const auto double_norm = [&](int rows) {
    const dim3 grid = grid_for(rows);
    double_sum_norm_rows<false><<<grid, block>>>(box, a, b, partials);
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
  // Sums of n positive terms in two orders differ by about n eps; the model's float sums of at
  // most kJacobiNormRowsPerSum squares add that many float roundings.
  const double tolerance =
      static_cast<double>(box.nx * box.ny) * DBL_EPSILON +
      (haloflow::kernels::kJacobiNormRowsPerSum + 1) * static_cast<double>(FLT_EPSILON) / 2;
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
  // The model's float sums against the form before them, and two other ways tried: the finish
  // deferred beside the next sweep, warp partials; each against the sweep alone timed again.
  {
    const int rows = 8;
    const double plain_us = time([&] { plain(rows); });
    const double model_us = time([&] { new_norm(rows, 2); });
    const double alone_us = time([&] { deferred_norm(rows, false, false); });
    const double deferred_us = time([&] { deferred_norm(rows, false, true); });
    const double warp_alone_us = time([&] { deferred_norm(rows, true, false); });
    const double warp_deferred_us = time([&] { deferred_norm(rows, true, true); });
    const dim3 grid = grid_for(rows);
    const double warp_finish_us = time([&] { finish(std::int64_t{grid.x} * grid.y * 8); });
    const auto rise = [&](double us) { return 100.0 * (us / plain_us - 1); };
    std::printf(
        "sweep alone %.1f us; the model's norm (float sums) with its finish after it %.1f us "
        "(%+.1f %%)\n"
        "  the norm sweep without a finish: %.1f us (%+.1f %%); with the previous step's finish "
        "beside it (a stream of higher priority): %.1f us (%+.1f %%)\n"
        "  double sums in warp partials, no finish: %.1f us (%+.1f %%); with a finish of 8x the "
        "partials beside "
        "it: %.1f us (%+.1f %%); that finish alone %.1f us\n",
        plain_us, model_us, rise(model_us), alone_us, rise(alone_us), deferred_us,
        rise(deferred_us), warp_alone_us, rise(warp_alone_us), warp_deferred_us,
        rise(warp_deferred_us), warp_finish_us);
    const double warp_us = time([&] { warp_norm(rows); });
    CHECK(cudaDeviceSynchronize());
    bool field_same = same_field();
    bool repeatable = logs_the_same_twice([&] { warp_norm(rows); });
    unsigned long long n = *samples;
    std::printf(
        "  double sums in warp partials, finish after: %.1f us (%+.1f %%), field %s, norm rel. "
        "error %.2e "
        "(allowed %.2e), %s across repeats\n",
        warp_us, rise(warp_us), field_same ? "same" : "DIFFERENT",
        std::abs(values[n - 1] - want) / want, tolerance,
        repeatable ? "bitwise equal" : "DIFFERENT");
    const double double_us = time([&] { double_norm(rows); });
    CHECK(cudaDeviceSynchronize());
    field_same = same_field();
    repeatable = logs_the_same_twice([&] { double_norm(rows); });
    n = *samples;
    std::printf(
        "  the form before (each update converted to double, double sums), finish after: %.1f us "
        "(%+.1f %%), field %s, norm rel. error %.2e, %s across repeats\n",
        double_us, rise(double_us), field_same ? "same" : "DIFFERENT",
        std::abs(values[n - 1] - want) / want, repeatable ? "bitwise equal" : "DIFFERENT");
  }
  return 0;
}
