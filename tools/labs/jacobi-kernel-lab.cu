// Which launch shape and loop form lets the jacobi2d sweep reach the copy bandwidth on this GPU?
// A stand-alone measurement, built with the project (tools/labs/CMakeLists.txt; `cmake --build
// build --target jacobi-kernel-lab`, the program build/labs/jacobi-kernel-lab) and run by
// tools/bench-models on the GPU machine.
// Every variant sweeps the same 16384 x 16384 float array (plus one halo row above and below),
// is checked against the first variant bit for bit, and is timed as the median of 30 launches.
// The copy kernel and cudaMemcpy in the same run give the bandwidth the fractions are taken
// against. By default: the one-cell-per-thread shapes, the compile-time runs and the chosen form
// (128 x 2 blocks, runtime run of 4 unrolled by 4); LAB_ALL=1 adds the whole sweep of shapes,
// runs, streaming stores and two-column threads (docs/results/jacobi-kernel-lab-2026-11-30.txt).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "lab_timing.cuh"

constexpr std::int64_t kNx = 16384;
constexpr std::int64_t kRows = 16384;  // computed rows; the array has kRows + 2
constexpr std::int64_t kStride = kNx;

__device__ __forceinline__ float jacobi_value(float right, float left, float next, float previous) {
  return 0.25f * (right + left + next + previous);
}

// One cell per thread, 2D grid (the reference program's kernel).
__global__ void per_cell(const float* __restrict__ a, float* __restrict__ b) {
  const std::int64_t x = 1 + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t y = 1 + blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  if (x >= kNx - 1 || y > kRows) return;
  const std::int64_t i = y * kStride + x;
  b[i] = jacobi_value(a[i + 1], a[i - 1], a[i + kStride], a[i - kStride]);
}

// Each thread walks `run` consecutive rows keeping the rows above and below in registers.
// kStreamingStore: b written with st.global.cs (evict first), so the writes do not push the rows
// of `a` that neighbouring runs still need out of L2.
template <bool kStreamingStore = false>
__global__ void walk(const float* __restrict__ a, float* __restrict__ b, int run) {
  const std::int64_t x = 1 + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t first =
      1 + (blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y) * run;
  if (x >= kNx - 1 || first > kRows) return;
  const std::int64_t last = first + run < kRows + 1 ? first + run : kRows + 1;
  std::int64_t i = first * kStride + x;
  float previous = a[i - kStride];
  float centre = a[i];
#pragma unroll 4
  for (std::int64_t y = first; y < last; ++y, i += kStride) {
    const float next = a[i + kStride];
    const float value = jacobi_value(a[i + 1], a[i - 1], next, previous);
    if constexpr (kStreamingStore) {
      __stcs(b + i, value);
    } else {
      b[i] = value;
    }
    previous = centre;
    centre = next;
  }
}

// The walk with the run fixed at compile time and fully unrolled when the whole run is inside:
// every row load of the run can be issued before the first store.
template <int kRun>
__global__ void walk_fixed(const float* __restrict__ a, float* __restrict__ b) {
  const std::int64_t x = 1 + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t first =
      1 + (blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y) * kRun;
  if (x >= kNx - 1 || first > kRows) return;
  std::int64_t i = first * kStride + x;
  float previous = a[i - kStride];
  float centre = a[i];
  if (first + kRun <= kRows + 1) {
#pragma unroll
    for (int k = 0; k < kRun; ++k, i += kStride) {
      const float next = a[i + kStride];
      b[i] = jacobi_value(a[i + 1], a[i - 1], next, previous);
      previous = centre;
      centre = next;
    }
  } else {
    for (std::int64_t y = first; y <= kRows; ++y, i += kStride) {
      const float next = a[i + kStride];
      b[i] = jacobi_value(a[i + 1], a[i - 1], next, previous);
      previous = centre;
      centre = next;
    }
  }
}

// The walk with two columns per thread: aligned float2 loads and stores of the rows above and
// below (cells 2t and 2t+1; the fixed columns 0 and nx-1 are read, never written). With
// kShuffle the left and right neighbours come from the neighbouring lanes, else from loads.
template <bool kShuffle>
__global__ void walk2(const float* __restrict__ a, float* __restrict__ b, int run) {
  const std::int64_t pair = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t x = 2 * pair;
  const std::int64_t first =
      1 + (blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y) * run;
  if (first > kRows) return;  // whole warps leave together: blockDim.x is a multiple of 32
  const bool inside = x < kNx;
  const std::int64_t last = first + run < kRows + 1 ? first + run : kRows + 1;
  std::int64_t i = first * kStride + x;
  const auto load2 = [&](std::int64_t at) {
    return inside ? *reinterpret_cast<const float2*>(a + at) : float2{0, 0};
  };
  float2 previous = load2(i - kStride);
  float2 centre = load2(i);
  const unsigned lane = threadIdx.x % 32;
#pragma unroll 4
  for (std::int64_t y = first; y < last; ++y, i += kStride) {
    const float2 next = load2(i + kStride);
    float left, right;
    if constexpr (kShuffle) {
      left = __shfl_up_sync(0xffffffffU, centre.y, 1);
      right = __shfl_down_sync(0xffffffffU, centre.x, 1);
      if (lane == 0 && inside && x > 0) left = a[i - 1];
      if (lane == 31 && inside && x + 2 < kNx) right = a[i + 2];
    } else {
      left = inside && x > 0 ? a[i - 1] : 0.0f;
      right = inside && x + 2 < kNx ? a[i + 2] : 0.0f;
    }
    if (inside) {
      float2 out;
      out.x = x > 0 ? jacobi_value(centre.y, left, next.x, previous.x) : centre.x;
      out.y = x + 1 < kNx - 1 ? jacobi_value(right, centre.x, next.y, previous.y) : b[i + 1];
      if (x > 0 && x + 1 < kNx - 1) {
        *reinterpret_cast<float2*>(b + i) = out;
      } else if (x > 0) {
        b[i] = out.x;
      } else {
        b[i + 1] = out.y;
      }
    }
    previous = centre;
    centre = next;
  }
}

// The grid strides over rows (the form the models used before the walk).
__global__ void strided(const float* __restrict__ a, float* __restrict__ b) {
  const std::int64_t x = 1 + blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (x >= kNx - 1) return;
  const int rows = static_cast<int>(gridDim.y * blockDim.y);
  int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  std::int64_t i = x + (1 + y) * kStride;
  for (; y < kRows; y += rows, i += rows * kStride) {
    b[i] = jacobi_value(a[i + 1], a[i - 1], a[i + kStride], a[i - kStride]);
  }
}

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

int main() {
  const std::int64_t cells = kStride * (kRows + 2);
  const std::size_t bytes = static_cast<std::size_t>(cells) * sizeof(float);
  std::vector<float> host(static_cast<std::size_t>(cells));
  for (std::int64_t i = 0; i < cells; ++i)
    host[static_cast<std::size_t>(i)] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
  float *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const auto time = [&](const std::function<void()>& launch) {
    return median_us(launch, start, stop, 30, 3);
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
  const double bandwidth = moved / (copy_us * 1e-6);
  std::printf(
      "copy kernel: %.1f us = %.3f TB/s (read + written); cudaMemcpy D2D: %.1f us = %.3f TB/s\n",
      copy_us, 1e-12 * bandwidth, memcpy_us, 1e-12 * moved / (memcpy_us * 1e-6));
  const double sweep_bytes = 2.0 * static_cast<double>(kNx * kRows) * sizeof(float);
  std::printf(
      "sweep moves %.4g GB; floor at the copy kernel's bandwidth %.1f us, at 4.3 TB/s %.1f us\n",
      1e-9 * sweep_bytes, sweep_bytes / bandwidth * 1e6, sweep_bytes / 4.3e12 * 1e6);

  std::vector<float> reference;
  const auto check = [&](const std::string& name, double us) {
    std::vector<float> out(host.size());
    CHECK(cudaMemcpy(out.data(), b, bytes, cudaMemcpyDeviceToHost));
    bool same = true;
    if (reference.empty()) {
      reference = out;
    } else {
      for (std::int64_t y = 1; y <= kRows && same; ++y) {
        same = std::memcmp(&out[y * kStride + 1], &reference[y * kStride + 1],
                           (kNx - 2) * sizeof(float)) == 0;
      }
    }
    std::printf("%-34s %8.1f us  %5.1f %% of the copy kernel  %5.1f %% of 4.3 TB/s  %s\n",
                name.c_str(), us, 100.0 * sweep_bytes / bandwidth / (us * 1e-6),
                100.0 * sweep_bytes / 4.3e12 / (us * 1e-6), same ? "same" : "DIFFERENT");
  };
  for (auto [bx, by] :
       {std::pair{32u, 8u}, {32u, 32u}, {64u, 4u}, {128u, 2u}, {256u, 1u}, {128u, 4u}}) {
    const dim3 block(bx, by);
    const dim3 grid(static_cast<unsigned>((kNx - 2 + bx - 1) / bx),
                    static_cast<unsigned>((kRows + by - 1) / by));
    CHECK(cudaMemset(b, 0, bytes));
    const double us = time([&] { per_cell<<<grid, block>>>(a, b); });
    check("per cell " + std::to_string(bx) + "x" + std::to_string(by), us);
  }
  const auto fixed = [&](auto run_constant, unsigned bx, unsigned by) {
    constexpr int run = decltype(run_constant)::value;
    const dim3 block(bx, by);
    const std::int64_t threads_y = (kRows + run - 1) / run;
    const dim3 grid(static_cast<unsigned>((kNx - 2 + bx - 1) / bx),
                    static_cast<unsigned>((threads_y + by - 1) / by));
    check("walk fixed " + std::to_string(bx) + "x" + std::to_string(by) + " run " +
              std::to_string(run),
          time([&] { walk_fixed<run><<<grid, block>>>(a, b); }));
  };
  for (auto [bx, by] : {std::pair{128u, 2u}, {256u, 1u}, {64u, 4u}}) {
    fixed(std::integral_constant<int, 4>{}, bx, by);
    fixed(std::integral_constant<int, 6>{}, bx, by);
    fixed(std::integral_constant<int, 8>{}, bx, by);
    fixed(std::integral_constant<int, 12>{}, bx, by);
    fixed(std::integral_constant<int, 16>{}, bx, by);
  }
  {
    const dim3 block(128, 2);
    const dim3 grid(static_cast<unsigned>((kNx - 2 + 127) / 128),
                    static_cast<unsigned>((kRows / 4 + 1) / 2));
    check("walk 128x2 run 4 (unroll 4)", time([&] { walk<false><<<grid, block>>>(a, b, 4); }));
  }
  if (std::getenv("LAB_ALL") == nullptr) return 0;
  for (auto [bx, by] : {std::pair{32u, 8u}, {64u, 4u}, {128u, 2u}, {256u, 1u}, {512u, 1u}}) {
    for (int run : {1, 2, 3, 4, 5, 6, 8, 16}) {
      const dim3 block(bx, by);
      const std::int64_t threads_y = (kRows + run - 1) / run;
      const dim3 grid(static_cast<unsigned>((kNx - 2 + bx - 1) / bx),
                      static_cast<unsigned>((threads_y + by - 1) / by));
      const double us = time([&] { walk<false><<<grid, block>>>(a, b, run); });
      check("walk " + std::to_string(bx) + "x" + std::to_string(by) + " run " + std::to_string(run),
            us);
    }
  }
  for (auto [bx, by] : {std::pair{64u, 4u}, {128u, 2u}, {256u, 1u}}) {
    for (int run : {3, 4, 5, 6}) {
      const dim3 block(bx, by);
      const std::int64_t threads_y = (kRows + run - 1) / run;
      const dim3 grid(static_cast<unsigned>((kNx - 2 + bx - 1) / bx),
                      static_cast<unsigned>((threads_y + by - 1) / by));
      check("walk, streaming stores " + std::to_string(bx) + "x" + std::to_string(by) + " run " +
                std::to_string(run),
            time([&] { walk<true><<<grid, block>>>(a, b, run); }));
    }
  }
  for (auto [bx, by] : {std::pair{64u, 2u}, {128u, 1u}, {128u, 2u}, {256u, 1u}}) {
    for (int run : {2, 4, 8}) {
      const dim3 block(bx, by);
      const std::int64_t threads_y = (kRows + run - 1) / run;
      const dim3 grid(static_cast<unsigned>((kNx / 2 + bx - 1) / bx),
                      static_cast<unsigned>((threads_y + by - 1) / by));
      const std::string shape =
          std::to_string(bx) + "x" + std::to_string(by) + " run " + std::to_string(run);
      check("walk2 loads " + shape, time([&] { walk2<false><<<grid, block>>>(a, b, run); }));
      check("walk2 shuffles " + shape, time([&] { walk2<true><<<grid, block>>>(a, b, run); }));
    }
  }
  for (unsigned rows_per_thread : {1u, 8u}) {
    const dim3 block(32, 8);
    const dim3 grid(
        static_cast<unsigned>((kNx - 2 + 31) / 32),
        static_cast<unsigned>((kRows + 8 * rows_per_thread - 1) / (8 * rows_per_thread)));
    const double us = time([&] { strided<<<grid, block>>>(a, b); });
    check("strided 32x8, " + std::to_string(rows_per_thread) + " rows per thread", us);
  }
  return 0;
}
