// How close does the deep sweep (jacobi_deep_rows: 4 or 8 Jacobi steps in one pass over memory)
// come to its floor, and which of its launches is fastest? A stand-alone measurement, built with
// the project (tools/labs/CMakeLists.txt; `cmake --build build --target jacobi-deep-lab`, the
// program build/labs/jacobi-deep-lab), for the GPU machine. The model's kernels
// (apps/models/jacobi2d/jacobi_kernels.cuh, jacobi_deep_kernels.cuh) over an n x n float box with
// ghosts 8 deep, the columns just outside it fixed, at n = 16384, 4096 and 2048 (or the sizes
// given as arguments). Each variant first takes its k steps once from the same start and must give
// every cell of the box bit for bit as k one-step sweeps do (the one-step sweeps cover the ghosts
// too, so that both read the same cells); then a ping-pong of 96 steps (96 / k launches) launched
// back to back, timed between two events, the median of 7 batches, per step. The floor of a k-step
// pass: the array read once and written once at the copy kernel's rate measured in the same run,
// over k. Exit 1 when any variant differs in any cell.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "jacobi_deep_kernels.cuh"
#include "lab_timing.cuh"

using haloflow::kernels::CellBox;
using haloflow::kernels::FixedColumns;

namespace {

constexpr int kSteps = 96;  // a multiple of every depth
constexpr int kBatches = 7;
constexpr std::int64_t kGhosts = 8;

using Launch = std::function<void(const float*, float*)>;

struct Field {
  std::int64_t stride = 0;
  std::size_t cells = 0;
  float* a = nullptr;
  float* b = nullptr;
  std::vector<float> start;
  CellBox box;
  FixedColumns fixed;
};

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

template <int kDepth, int kBlocksPerSm, bool kLoadAhead = false, bool kTwoWalks = true>
void deep(dim3 grid, dim3 block, CellBox box, const float* from, float* to, FixedColumns fixed) {
  haloflow::kernels::jacobi_deep_rows<float, kDepth, kBlocksPerSm, kLoadAhead, kTwoWalks>
      <<<grid, block>>>(box, from, to, fixed);
}

// The deep sweep's variants: the model's launch (band 0: deep_launch's choice) and others.
struct Variant {
  const char* name;
  int depth;
  unsigned band;  // rows a block walks; 0: deep_launch's choice
  void (*launch)(dim3, dim3, CellBox, const float*, float*, FixedColumns);
};
constexpr int kModel8 = haloflow::kernels::kDeepBlocksPerSm<float, 8>;
constexpr int kModel4 = haloflow::kernels::kDeepBlocksPerSm<float, 4>;
const Variant kVariants[] = {{"deep 2, 6/SM", 2, 0, &deep<2, 6>},
                             {"deep 4, model", 4, 0, &deep<4, kModel4>},
                             {"deep 4, band 64", 4, 64, &deep<4, kModel4>},
                             {"deep 4, band 512", 4, 512, &deep<4, kModel4>},
                             {"deep 4, 5/SM", 4, 0, &deep<4, 5>},
                             {"deep 4, 1 walk", 4, 0, &deep<4, kModel4, false, false>},
                             {"deep 4, 8/SM spills", 4, 0, &deep<4, 8>},
                             {"deep 4, ahead 5/SM", 4, 0, &deep<4, 5, true>},
                             {"deep 8, model", 8, 0, &deep<8, kModel8>},
                             {"deep 8, band 128", 8, 128, &deep<8, kModel8>},
                             {"deep 8, band 1024", 8, 1024, &deep<8, kModel8>},
                             {"deep 8, 3/SM", 8, 0, &deep<8, 3>},
                             {"deep 8, 1 walk", 8, 0, &deep<8, kModel8, false, false>},
                             {"deep 8, 2/SM", 8, 0, &deep<8, 2>},
                             {"deep 8, ahead", 8, 0, &deep<8, kModel8, true>}};

// The median per step of kBatches ping-pongs of kSteps steps, `launch` taking `per` a launch.
double per_step_us(const Launch& launch, int per, const Field& f, cudaEvent_t start,
                   cudaEvent_t stop) {
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

void reset(const Field& f) {
  CHECK(cudaMemcpy(f.a, f.start.data(), f.cells * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(f.b, f.start.data(), f.cells * sizeof(float), cudaMemcpyHostToDevice));
}

// The array after `launches` launches from the start (ping-pong).
std::vector<float> after(const Field& f, const Launch& launch, int launches) {
  reset(f);
  for (int s = 0; s < launches; ++s) {
    if (s % 2 == 0) {
      launch(f.a, f.b);
    } else {
      launch(f.b, f.a);
    }
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  std::vector<float> field(f.cells);
  CHECK(cudaMemcpy(field.data(), launches % 2 == 1 ? f.b : f.a, f.cells * sizeof(float),
                   cudaMemcpyDeviceToHost));
  return field;
}

// Cells of the box whose bits differ.
std::size_t differing(const Field& f, const std::vector<float>& got,
                      const std::vector<float>& want) {
  std::size_t count = 0;
  for (std::int64_t y = f.box.y0; y < f.box.y0 + f.box.ny; ++y) {
    for (std::int64_t x = f.box.x0; x < f.box.x0 + f.box.nx; ++x) {
      const auto i = static_cast<std::size_t>(y * f.stride + x);
      count += std::memcmp(&got[i], &want[i], sizeof(float)) != 0 ? 1 : 0;
    }
  }
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::int64_t> sizes = {16384, 4096, 2048};
  if (argc > 1) sizes.clear();
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf(
      "%d steps a batch, median of %d batches; us per step; floor: one read and one write "
      "of the array a pass at the copy kernel's rate, over the steps a pass takes\n",
      kSteps, kBatches);
  std::size_t failures = 0;
  for (const std::int64_t n : sizes) {
    Field f;
    f.stride = n + 2 * kGhosts;
    f.cells = static_cast<std::size_t>(f.stride * f.stride);
    f.start.resize(f.cells);
    for (std::size_t i = 0; i < f.cells; ++i) {
      f.start[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    }
    CHECK(cudaMalloc(&f.a, f.cells * sizeof(float)));
    CHECK(cudaMalloc(&f.b, f.cells * sizeof(float)));
    // The computed cells: columns kGhosts+1 .. n+kGhosts-2 (the two beside them fixed), rows
    // kGhosts .. n+kGhosts-1; every depth's ghosts lie inside the array.
    f.box = {.x0 = kGhosts + 1,
             .y0 = kGhosts,
             .z0 = 0,
             .nx = n - 2,
             .ny = n,
             .nz = 1,
             .stride_y = f.stride,
             .stride_z = f.stride * f.stride};
    f.fixed = {.left = kGhosts, .right = kGhosts + n - 1};
    // The one-step sweeps cover the whole array but its outer ring, between the fixed columns.
    const CellBox one_box{.x0 = kGhosts + 1,
                          .y0 = 1,
                          .z0 = 0,
                          .nx = n - 2,
                          .ny = f.stride - 2,
                          .nz = 1,
                          .stride_y = f.stride,
                          .stride_z = f.stride * f.stride};
    const Launch one = [&](const float* from, float* to) {
      const dim3 grid(static_cast<unsigned>((one_box.nx + 127) / 128),
                      static_cast<unsigned>((one_box.ny + 15) / 16));
      haloflow::kernels::jacobi_rows<float><<<grid, dim3(128, 2)>>>(one_box, from, to, nullptr);
    };
    const auto copy_us = median_us(
        [&] {
          copy<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(f.a),
                                 reinterpret_cast<float4*>(f.b),
                                 static_cast<std::int64_t>(f.cells / 4));
        },
        start, stop);
    const double pass_bytes = 2.0 * static_cast<double>(f.cells) * sizeof(float);
    const double rate = pass_bytes / (copy_us * 1e-6);
    const double floor_one = pass_bytes / rate * 1e6;
    reset(f);
    const double one_us = per_step_us(one, 1, f, start, stop);
    std::printf(
        "\nn %lld: copy kernel %.1f us (%.2f TB/s); one-step sweep %.1f us a step (%.2fx "
        "its floor %.1f)\n",
        static_cast<long long>(n), copy_us, rate * 1e-12, one_us, one_us / floor_one, floor_one);
    std::printf("  %-18s %5s %7s %10s %9s %8s %s\n", "variant", "depth", "band", "us/step", "floor",
                "x floor", "bits");
    std::vector<float> want[9];
    const auto reference = [&](int depth) -> const std::vector<float>& {
      if (want[depth].empty()) want[depth] = after(f, one, depth);
      return want[depth];
    };
    const auto row = [&](const char* name, int depth, unsigned band, const Launch& launch) {
      const std::size_t bad = differing(f, after(f, launch, 1), reference(depth));
      failures += bad;
      reset(f);
      const double us = per_step_us(launch, depth, f, start, stop);
      const double floor_us = floor_one / depth;
      std::printf("  %-18s %5d %7u %10.1f %9.1f %8.2f %s\n", name, depth, band, us, floor_us,
                  us / floor_us, bad == 0 ? "same" : "DIFFERENT");
      if (bad != 0) std::printf("    %zu cells differ\n", bad);
    };
    {
      const dim3 grid(static_cast<unsigned>((f.box.nx + 119) / 120),
                      static_cast<unsigned>((f.box.ny + 15) / 16));
      row("two-step (model)", 2, 16, [&](const float* from, float* to) {
        haloflow::kernels::jacobi_two_rows<float><<<grid, dim3(128, 2)>>>(f.box, from, to, f.fixed);
      });
    }
    for (const Variant& v : kVariants) {
      const haloflow::LaunchShape shape = haloflow::kernels::deep_launch(f.box, v.depth, v.band);
      const dim3 grid(shape.grid.x, shape.grid.y);
      const dim3 block(shape.block.x);
      const auto band = static_cast<unsigned>((f.box.ny + shape.grid.y - 1) / shape.grid.y);
      row(v.name, v.depth, band,
          [&](const float* from, float* to) { v.launch(grid, block, f.box, from, to, f.fixed); });
    }
    CHECK(cudaFree(f.a));
    CHECK(cudaFree(f.b));
  }
  std::printf("\n%s\n", failures == 0 ? "every variant bitwise equal to the one-step sweeps"
                                      : "SOME VARIANTS DIFFER");
  return failures == 0 ? 0 : 1;
}
