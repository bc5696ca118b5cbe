// Where do the +30 % of jacobi2d's in-sweep norm go: the per-cell arithmetic (a float -> double
// conversion and a double fused multiply-add per cell, one dependent chain per thread), or the
// block's reduction at the end (shuffles, a barrier, one partial per block)? A stand-alone
// measurement, built with the project (tools/labs/CMakeLists.txt; `cmake --build build --target
// jacobi-norm-forms-lab`, the program build/labs/jacobi-norm-forms-lab) and run by
// tools/kernel-labs on the GPU machine, beside tools/labs/jacobi-norm-lab.cu.
// The model's sweep at 16384 x 16384 float, blocks 128 x 2, the plain sweep's loop (one run of
// `rows` rows per thread, unrolled by 4) with the sum of the squared updates kept in one of several
// ways and reduced in one of several ways. Each is timed as the median of 30 launches against the
// sweep alone in the same run, its field checked bit for bit and its norm against a CPU sum.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "jacobi_kernels.cuh"
#include "lab_timing.cuh"

using haloflow::kernels::CellBox;

namespace {

constexpr std::int64_t kNx = 16384;
constexpr std::int64_t kRows = 16384;

// How the squares are kept per thread.
enum Sum : int {
  kDouble = 0,       // the model's: (double)update, fma in double, one chain
  kDoubleTwo = 1,    // the same in two chains (even and odd rows)
  kFloat = 2,        // in float (not accurate enough for the model: a timing bound)
  kCompensated = 3,  // in float with the exact product error and Knuth's two-sum (about 48 bits)
};
// How the threads' sums leave the kernel.
enum Reduce : int {
  kBlock = 0,  // the model's: block_sum, one partial per block
  kWarp = 1,   // shuffles only, one partial per warp, no barrier
  kNone = 2,   // none: written only if impossible (the arithmetic's cost alone)
};

template <int kSum>
struct Squares {
  double d0 = 0, d1 = 0;
  float hi = 0, lo = 0;
  __device__ void add(float update, int y) {
    if constexpr (kSum == kDouble) {
      const double u = update;
      d0 = fma(u, u, d0);
    } else if constexpr (kSum == kDoubleTwo) {
      const double u = update;
      if (y & 1) {
        d1 = fma(u, u, d1);
      } else {
        d0 = fma(u, u, d0);
      }
    } else if constexpr (kSum == kFloat) {
      hi = fmaf(update, update, hi);
    } else {
      const float p = update * update;
      const float e = fmaf(update, update, -p);  // p + e == update^2 exactly
      const float s = hi + p;
      const float v = s - hi;
      const float t = (hi - (s - v)) + (p - v);  // s + t == hi + p exactly
      hi = s;
      lo += t + e;
    }
  }
  __device__ double total() const {
    if constexpr (kSum == kDouble || kSum == kDoubleTwo) return d0 + d1;
    return static_cast<double>(hi) + static_cast<double>(lo);
  }
};

// Bounded as the model's norm sweep is (32 registers, 8 blocks of 256 threads per SM), so that the
// forms differ in their arithmetic and reduction, not in occupancy.
template <int kSum, int kReduce>
__global__ void __launch_bounds__(256, 8) norm_rows(CellBox box, const float* __restrict__ a,
                                                    float* __restrict__ a_new, double* partials) {
  // The plain sweep's run of rows, walked by pointer with 32-bit row counters (as the model's norm
  // sweep is) so that it fits in 32 registers without spilling.
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int ny = static_cast<int>(box.ny);
  const int threads_y = static_cast<int>(gridDim.y * blockDim.y);
  const int run = (ny + threads_y - 1) / threads_y;
  const int first = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) * run;
  const int last = first + run < ny ? first + run : ny;
  Squares<kSum> squares;
  if (x < box.x0 + box.nx && first < last) {
    const std::int64_t stride = box.stride_y;
    const float* p = a + x + (box.y0 + first) * stride + box.z0 * box.stride_z;
    float* q = a_new + (p - a);
    float previous_row = p[-stride];
    float centre = p[0];
#pragma unroll 4
    for (int y = first; y < last; ++y, p += stride, q += stride) {
      const float next_row = p[stride];
      const float value = haloflow::kernels::jacobi_value(p[1], p[-1], next_row, previous_row);
      *q = value;
      squares.add(value - centre, y);
      previous_row = centre;
      centre = next_row;
    }
  }
  const double mine = squares.total();
  const unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
  if constexpr (kReduce == kBlock) {
    const double sum = haloflow::kernels::block_sum(mine);
    if (threadIdx.x == 0 && threadIdx.y == 0) partials[block] = sum;
  } else if constexpr (kReduce == kWarp) {
    double sum = mine;
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffU, sum, offset);
    }
    const unsigned thread = threadIdx.x + blockDim.x * threadIdx.y;
    if (thread % 32 == 0) partials[block * (blockDim.x * blockDim.y / 32) + thread / 32] = sum;
  } else {
    if (mine == -1.0) partials[0] = mine;
  }
}

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

}  // namespace

int main() {
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
  const dim3 block(128, 2);
  const auto grid_for = [&](int rows) {
    return dim3(static_cast<unsigned>((box.nx + 127) / 128),
                static_cast<unsigned>((box.ny + 2 * rows - 1) / (2 * rows)));
  };
  float *a = nullptr, *b = nullptr;
  double *partials = nullptr, *values = nullptr, *block_sums = nullptr;
  unsigned* ticket = nullptr;
  unsigned long long* samples = nullptr;
  const std::int64_t most_partials = std::int64_t{grid_for(4).x} * grid_for(4).y * 8;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&partials, static_cast<std::size_t>(most_partials) * sizeof(double)));
  CHECK(cudaHostAlloc(&values, 1 << 22, cudaHostAllocDefault));
  CHECK(cudaMalloc(&block_sums, haloflow::kernels::kNormFinishBlocks * sizeof(double)));
  CHECK(cudaMalloc(&ticket, sizeof(unsigned)));
  CHECK(cudaMemset(ticket, 0, sizeof(unsigned)));
  CHECK(cudaHostAlloc(&samples, sizeof(unsigned long long), cudaHostAllocDefault));
  *samples = 0;
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const auto time = [&](const std::function<void()>& launch) {
    return median_us(launch, start, stop);
  };
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double copy_us = time([&] {
    copy<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(b),
                           cells / 4);
  });
  std::printf("copy kernel: %.1f us = %.3f TB/s (read + written)\n", copy_us,
              1e-12 * 2.0 * static_cast<double>(bytes) / (copy_us * 1e-6));

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
  haloflow::kernels::jacobi_rows<float><<<grid_for(8), block>>>(box, a, b, nullptr);
  CHECK(cudaMemcpy(reference.data(), b, bytes, cudaMemcpyDeviceToHost));
  const auto same_field = [&] {
    CHECK(cudaMemcpy(got.data(), b, bytes, cudaMemcpyDeviceToHost));
    return std::memcmp(got.data() + kNx, reference.data() + kNx, kNx * kRows * sizeof(float)) == 0;
  };
  const double tolerance = static_cast<double>(box.nx * box.ny) * DBL_EPSILON;

  using Kernel = void (*)(CellBox, const float*, float*, double*);
  struct Form {
    const char* name;
    Kernel kernel;
    int reduce;
  };
  const Form forms[] = {
      {"double, block partial (the model's sum)", norm_rows<kDouble, kBlock>, kBlock},
      {"double, warp partials", norm_rows<kDouble, kWarp>, kWarp},
      {"double, not reduced", norm_rows<kDouble, kNone>, kNone},
      {"double in two chains, block partial", norm_rows<kDoubleTwo, kBlock>, kBlock},
      {"float (inexact), block partial", norm_rows<kFloat, kBlock>, kBlock},
      {"float (inexact), not reduced", norm_rows<kFloat, kNone>, kNone},
      {"compensated float, block partial", norm_rows<kCompensated, kBlock>, kBlock},
      {"compensated float, warp partials", norm_rows<kCompensated, kWarp>, kWarp},
  };
  for (int rows : {4, 8, 16, 32}) {
    const dim3 grid = grid_for(rows);
    const double plain_us =
        time([&] { haloflow::kernels::jacobi_rows<float><<<grid, block>>>(box, a, b, nullptr); });
    std::printf(
        "rows per thread %2d (%u blocks): sweep alone %.1f us (%.1f %% of the copy kernel)\n", rows,
        grid.x * grid.y, plain_us, 100.0 * copy_us / plain_us);
    {
      const double us = time([&] {
        haloflow::kernels::jacobi_norm_rows<float><<<grid, block>>>(box, a, b, partials);
        haloflow::kernels::jacobi_norm_finish<<<haloflow::kernels::kNormFinishBlocks,
                                                haloflow::kernels::kNormFinishThreads>>>(
            partials, std::int64_t{grid.x} * grid.y, block_sums, ticket, values, samples);
      });
      std::printf("  %-42s %7.1f us = %+6.1f %%, field %s\n", "the model's norm sweep and finish",
                  us, 100.0 * (us / plain_us - 1), same_field() ? "same" : "DIFFERENT");
    }
    for (const Form& form : forms) {
      const std::int64_t count = std::int64_t{grid.x} * grid.y * (form.reduce == kWarp ? 8 : 1);
      const auto launch = [&] {
        form.kernel<<<grid, block>>>(box, a, b, partials);
        if (form.reduce != kNone) {
          haloflow::kernels::jacobi_norm_finish<<<haloflow::kernels::kNormFinishBlocks,
                                                  haloflow::kernels::kNormFinishThreads>>>(
              partials, count, block_sums, ticket, values, samples);
        }
      };
      const double us = time(launch);
      const bool same = same_field();
      CHECK(cudaDeviceSynchronize());
      const double got_norm = form.reduce == kNone ? want : values[*samples - 1];
      std::printf("  %-42s %7.1f us = %+6.1f %%, field %s, norm rel. error %.2e (allowed %.2e)\n",
                  form.name, us, 100.0 * (us / plain_us - 1), same ? "same" : "DIFFERENT",
                  std::abs(got_norm - want) / want, tolerance);
    }
  }
  return 0;
}
