// What does taking two Jacobi steps in one pass over memory (temporal blocking) cost per step
// against the one-step sweep, and which launch of it is fastest? A stand-alone measurement, built
// with the project (tools/labs/CMakeLists.txt; `cmake --build build --target jacobi-two-step-lab`,
// the program build/labs/jacobi-two-step-lab) and run by tools/latency-labs on the GPU machine.
// The model's kernels (apps/models/jacobi2d/jacobi_kernels.cuh) over an n x n float interior with
// two ghost rows and columns around it, columns 1 and n+2 fixed, at n = 2048 .. 16384: a ping-pong
// of 100 steps (the one-step sweep 100 times, the two-step sweep 50 times) launched back to back,
// timed between two events, the median of 7 batches, per step. The two-step variants: runs of 8
// or 16 rows a thread, at least 6 or 8 blocks an SM asked of the compiler (__launch_bounds__, so
// the registers a thread may use), the walk unrolled 1, 2 or 4 times; each must end bit for bit
// equal to the one-step sweep's field (the ghosts are not refreshed, so the ring of the two-step
// sweep reads the same stale ghosts the one-step sweep's boundary does).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "jacobi_kernels.cuh"
#include "lab_timing.cuh"

using haloflow::kernels::CellBox;
using haloflow::kernels::FixedColumns;

namespace {

constexpr int kSteps = 100;
constexpr int kBatches = 7;

struct Field {
  std::int64_t n = 0;
  std::int64_t stride = 0;
  std::size_t bytes = 0;
  float* a = nullptr;
  float* b = nullptr;
  std::vector<float> start;
};

// The median per step of kBatches batches of `steps` steps, `launch(from, to)` taking `per` steps.
double per_step_us(const std::function<void(const float*, float*)>& launch, int per, const Field& f,
                   cudaEvent_t start, cudaEvent_t stop) {
  const auto batch = [&] {
    for (int s = 0; s < kSteps / per; ++s) {
      if (s % 2 == 0) {
        launch(f.a, f.b);
      } else {
        launch(f.b, f.a);
      }
    }
  };
  return median_us(batch, start, stop, kBatches, 1) / kSteps;
}

template <int kBlocksPerSm, int kUnroll>
void two_steps(dim3 grid, dim3 block, CellBox box, const float* from, float* to,
               FixedColumns fixed) {
  haloflow::kernels::jacobi_two_rows<float, haloflow::kernels::RowOrder::alternating, kBlocksPerSm,
                                     kUnroll><<<grid, block>>>(box, from, to, fixed);
}

}  // namespace

int main() {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("%d steps a batch, median of %d batches, us per step\n", kSteps, kBatches);
  using Variant = void (*)(dim3, dim3, CellBox, const float*, float*, FixedColumns);
  const struct {
    const char* name;
    Variant launch;
  } variants[] = {{"6/SM x1", &two_steps<6, 1>}, {"6/SM x2", &two_steps<6, 2>},
                  {"6/SM x4", &two_steps<6, 4>}, {"8/SM x1", &two_steps<8, 1>},
                  {"8/SM x2", &two_steps<8, 2>}, {"8/SM x4", &two_steps<8, 4>}};
  for (const std::int64_t n : {2048, 4096, 8192, 16384}) {
    Field f;
    f.n = n;
    f.stride = n + 4;
    f.bytes = static_cast<std::size_t>(f.stride * f.stride) * sizeof(float);
    f.start.resize(static_cast<std::size_t>(f.stride * f.stride));
    for (std::size_t i = 0; i < f.start.size(); ++i) {
      f.start[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    }
    CHECK(cudaMalloc(&f.a, f.bytes));
    CHECK(cudaMalloc(&f.b, f.bytes));
    // The computed cells: columns 3 .. n+1 (2 and n+2 fixed), rows 2 .. n+1.
    const CellBox box{.x0 = 3,
                      .y0 = 2,
                      .z0 = 0,
                      .nx = n - 2,
                      .ny = n,
                      .nz = 1,
                      .stride_y = f.stride,
                      .stride_z = f.stride * f.stride};
    const FixedColumns fixed{.left = 2, .right = n + 1};
    const auto reset = [&] {
      CHECK(cudaMemcpy(f.a, f.start.data(), f.bytes, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(f.b, f.start.data(), f.bytes, cudaMemcpyHostToDevice));
    };
    const dim3 one_block(128, 2);
    const dim3 one_grid(static_cast<unsigned>((box.nx + 127) / 128),
                        static_cast<unsigned>((box.ny + 15) / 16));
    const auto one = [&](const float* from, float* to) {
      haloflow::kernels::jacobi_rows<float><<<one_grid, one_block>>>(box, from, to, nullptr);
    };
    // The field after two steps from the start.
    const auto after_two = [&](const std::function<void(const float*, float*)>& launch, int per) {
      reset();
      launch(f.a, f.b);
      if (per == 1) launch(f.b, f.a);
      CHECK(cudaDeviceSynchronize());
      std::vector<float> field(f.start.size());
      CHECK(cudaMemcpy(field.data(), per == 1 ? f.a : f.b, f.bytes, cudaMemcpyDeviceToHost));
      return field;
    };
    const std::vector<float> want = after_two(one, 1);
    reset();
    const double one_us = per_step_us(one, 1, f, start, stop);
    const double floor_us = 2.0 * static_cast<double>(n * n) * sizeof(float) / 4.2e12 * 1e6;
    std::printf("n %lld: one step %.1f us (floor %.1f at 4.2 TB/s; two steps a pass: %.1f)\n",
                static_cast<long long>(n), one_us, floor_us, floor_us / 2);
    for (const unsigned rows : {8U, 16U}) {
      const dim3 block(128, 2);
      const dim3 grid(static_cast<unsigned>((box.nx + 119) / 120),
                      static_cast<unsigned>((box.ny + 2 * rows - 1) / (2 * rows)));
      for (const auto& v : variants) {
        const auto two = [&](const float* from, float* to) {
          v.launch(grid, block, box, from, to, fixed);
        };
        // The ghosts were never refreshed, but the one-step sweep's second step read the stale
        // ghost rows where the two-step sweep's ring computes its first step from the ghosts two
        // deep: compare the rows and columns that read no ghost in either (3 cells in).
        const std::vector<float> got = after_two(two, 2);
        std::size_t differing = 0;
        for (std::int64_t y = 4; y < n; ++y) {
          for (std::int64_t x = 5; x < n; ++x) {
            const auto i = static_cast<std::size_t>(y * f.stride + x);
            differing += std::memcmp(&got[i], &want[i], sizeof(float)) != 0 ? 1 : 0;
          }
        }
        reset();
        const double two_us = per_step_us(two, 2, f, start, stop);
        std::printf("  rows %2u %-8s %7.1f us a step (%.2fx the one-step sweep) %s\n", rows, v.name,
                    two_us, two_us / one_us, differing == 0 ? "same" : "DIFFERENT");
      }
    }
    CHECK(cudaFree(f.a));
    CHECK(cudaFree(f.b));
  }
  return 0;
}
