// Does walking every other step's rows upwards let jacobi2d read the rows the step before wrote
// last from L2, and what does it save at each size? A stand-alone measurement, built with the
// project (tools/labs/CMakeLists.txt; `cmake --build build --target jacobi-order-lab`, the program
// build/labs/jacobi-order-lab) and run by tools/latency-labs on the GPU machine.
// The model's sweep (apps/models/jacobi2d/jacobi_kernels.cuh; blocks 128 x 2, runs of 8 rows) over
// an n x n float array, columns 0 and n-1 and rows 0 and n-1 fixed, at n = 2048 .. 16384: a
// ping-pong of 100 steps (a -> b, b -> a, ...) launched back to back, timed between two events,
// the median of 7 such batches per step. Each order (the blocks always walking down, and the
// model's alternating walk) with and without the norm; both start from the same field and must
// end bit for bit equal, their norm partials too. A copy kernel over the same two arrays gives
// the bandwidth the floor is taken at. With LAB_PERSIST_MB=M (M MB of L2 set aside for persisting
// lines), also the alternating walk with an L2 access-policy window (persisting) over the rows
// each step writes last, of 8 to 40 MB, at most M.
#include <cuda_runtime.h>

#include <algorithm>
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
using haloflow::kernels::RowOrder;

namespace {

constexpr int kSteps = 100;
constexpr int kBatches = 7;
constexpr unsigned kBlockWidth = 128;
constexpr unsigned kBlockRows = 2;
constexpr unsigned kRowsPerThread = 8;

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

struct Field {
  std::int64_t n = 0;
  std::size_t bytes = 0;
  float* a = nullptr;
  float* b = nullptr;
  double* partials = nullptr;
  std::vector<float> start;
};

// The median per step of kBatches batches of kSteps steps, `step(from, to)` launching one.
double per_step_us(const std::function<void(const float*, float*)>& step, const Field& f,
                   cudaEvent_t start, cudaEvent_t stop) {
  const auto batch = [&] {
    for (int s = 0; s < kSteps; ++s) {
      if (s % 2 == 0) {
        step(f.a, f.b);
      } else {
        step(f.b, f.a);
      }
    }
  };
  return median_us(batch, start, stop, kBatches, 1) / kSteps;
}

}  // namespace

int main() {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int sms = 0;
  int l2 = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  int persisting_max = 0;
  int window_max = 0;
  CHECK(cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, 0));
  CHECK(cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  // LAB_PERSIST_MB: the L2 set aside for persisting lines, at most what the device allows
  // (default 0: none, and no window variants). Setting it aside takes it from every other access:
  // at 17:43 on 2026-12-01, with 39.3 MB set aside, every variant ran 2.5 to 3.5 times slower
  // than without (docs/results/jacobi-order-persisting-2026-12-01-1743.txt).
  const char* persist_mb = std::getenv("LAB_PERSIST_MB");
  const std::size_t persisting_limit =
      persist_mb != nullptr ? std::min<std::size_t>(std::strtoull(persist_mb, nullptr, 10) << 20,
                                                    static_cast<std::size_t>(persisting_max))
                            : 0;
  if (persisting_limit > 0) {
    CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, persisting_limit));
  }
  const auto window_limit = static_cast<std::size_t>(window_max);
  std::printf(
      "L2 %.1f MB (%.1f MB set aside for persisting lines, at most %.1f; windows up to "
      "%.1f MB), %d SMs; %d steps a batch, median of %d batches, per step\n",
      l2 / 1e6, persisting_limit / 1e6, persisting_max / 1e6, window_max / 1e6, sms, kSteps,
      kBatches);
  std::printf("%-7s %9s %9s %9s %9s %9s %9s %9s %s\n", "n", "MB/step", "floor", "down", "alternate",
              "saved", "norm down", "norm alt", "check");
  for (const std::int64_t n : {2048, 4096, 8192, 16384}) {
    Field f;
    f.n = n;
    f.bytes = static_cast<std::size_t>(n * n) * sizeof(float);
    f.start.resize(static_cast<std::size_t>(n * n));
    for (std::size_t i = 0; i < f.start.size(); ++i) {
      f.start[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    }
    CHECK(cudaMalloc(&f.a, f.bytes));
    CHECK(cudaMalloc(&f.b, f.bytes));
    const CellBox box{.x0 = 1,
                      .y0 = 1,
                      .z0 = 0,
                      .nx = n - 2,
                      .ny = n - 2,
                      .nz = 1,
                      .stride_y = n,
                      .stride_z = n * n};
    const dim3 block(kBlockWidth, kBlockRows);
    const dim3 grid(static_cast<unsigned>((box.nx + kBlockWidth - 1) / kBlockWidth),
                    static_cast<unsigned>((box.ny + kBlockRows * kRowsPerThread - 1) /
                                          (kBlockRows * kRowsPerThread)));
    const std::size_t partial_count = static_cast<std::size_t>(grid.x) * grid.y;
    CHECK(cudaMalloc(&f.partials, partial_count * sizeof(double)));
    const auto reset = [&] {
      CHECK(cudaMemcpy(f.a, f.start.data(), f.bytes, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(f.b, f.start.data(), f.bytes, cudaMemcpyHostToDevice));
    };
    const double copy_us = median_us(
        [&] {
          copy<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(f.a),
                                 reinterpret_cast<float4*>(f.b),
                                 static_cast<std::int64_t>(f.bytes / 16));
        },
        start, stop, 30, 3);
    const double swept = 2.0 * static_cast<double>(box.nx * box.ny) * sizeof(float);
    const double floor_us = swept / (2.0 * static_cast<double>(f.bytes) / copy_us);

    // The field and partials after kSteps steps of one order from the start field.
    const auto result = [&](const std::function<void(const float*, float*)>& step) {
      reset();
      for (int s = 0; s < kSteps; ++s) {
        if (s % 2 == 0) {
          step(f.a, f.b);
        } else {
          step(f.b, f.a);
        }
      }
      CHECK(cudaDeviceSynchronize());
      std::vector<float> field(f.start.size());
      std::vector<double> partials(partial_count);
      CHECK(cudaMemcpy(field.data(), f.a, f.bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(partials.data(), f.partials, partial_count * sizeof(double),
                       cudaMemcpyDeviceToHost));
      return std::pair{field, partials};
    };
    const auto down = [&](const float* from, float* to) {
      haloflow::kernels::jacobi_rows<float, RowOrder::downwards>
          <<<grid, block>>>(box, from, to, nullptr);
    };
    const auto alternate = [&](const float* from, float* to) {
      haloflow::kernels::jacobi_rows<float><<<grid, block>>>(box, from, to, nullptr);
    };
    using haloflow::kernels::kJacobiNormBlockThreads;
    const auto norm_down = [&](const float* from, float* to) {
      haloflow::kernels::jacobi_norm_rows<float, 2, kJacobiNormBlockThreads, RowOrder::downwards>
          <<<grid, block>>>(box, from, to, f.partials);
    };
    const auto norm_alternate = [&](const float* from, float* to) {
      haloflow::kernels::jacobi_norm_rows<float><<<grid, block>>>(box, from, to, f.partials);
    };
    const auto [field_down, partials_down] = result(norm_down);
    const auto [field_alt, partials_alt] = result(norm_alternate);
    const auto [field_plain, unused] = result(alternate);
    const bool same =
        std::memcmp(field_down.data(), field_alt.data(), f.bytes) == 0 &&
        std::memcmp(field_plain.data(), field_alt.data(), f.bytes) == 0 &&
        std::memcmp(partials_down.data(), partials_alt.data(), partial_count * sizeof(double)) == 0;
    reset();
    const double down_us = per_step_us(down, f, start, stop);
    const double alternate_us = per_step_us(alternate, f, start, stop);
    const double norm_down_us = per_step_us(norm_down, f, start, stop);
    const double norm_alternate_us = per_step_us(norm_alternate, f, start, stop);
    std::printf("%-7lld %9.1f %9.1f %9.1f %9.1f %8.1f%% %9.1f %9.1f %s\n",
                static_cast<long long>(n), swept / 1e6, floor_us, down_us, alternate_us,
                100.0 * (1.0 - alternate_us / down_us), norm_down_us, norm_alternate_us,
                same ? "field and partials same" : "DIFFERENT");
    // The alternating walk with an L2 access-policy window on the rows each step writes last (the
    // bottom of `to` when it walks down, the top when it walks up), persisting, so that the next
    // step, which starts there, reads them from L2.
    for (const std::size_t window_mb : {8, 16, 24, 32, 40}) {
      const std::size_t window =
          std::min<std::size_t>({window_mb << 20, persisting_limit, window_limit, f.bytes / 2});
      if (window == 0 || window < (window_mb << 20)) continue;
      const auto persisting = [&](const float* from, float* to) {
        const bool upwards = reinterpret_cast<std::uintptr_t>(from) >
                             reinterpret_cast<std::uintptr_t>(to);  // block_band's rule
        cudaLaunchAttribute attribute{};
        attribute.id = cudaLaunchAttributeAccessPolicyWindow;
        attribute.val.accessPolicyWindow.base_ptr =
            upwards ? static_cast<void*>(to)
                    : static_cast<void*>(reinterpret_cast<char*>(to) + f.bytes - window);
        attribute.val.accessPolicyWindow.num_bytes = window;
        attribute.val.accessPolicyWindow.hitRatio = 1.0f;
        attribute.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        attribute.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        cudaLaunchConfig_t config{};
        config.gridDim = grid;
        config.blockDim = block;
        config.attrs = &attribute;
        config.numAttrs = 1;
        CHECK(cudaLaunchKernelEx(&config, haloflow::kernels::jacobi_rows<float>, box, from, to,
                                 static_cast<double*>(nullptr)));
      };
      const auto [field_window, unused_partials] = result(persisting);
      CHECK(cudaCtxResetPersistingL2Cache());
      const double window_us = per_step_us(persisting, f, start, stop);
      CHECK(cudaCtxResetPersistingL2Cache());
      std::printf(
          "        alternate, %2zu MB persisting window on the rows written last: %7.1f us "
          "(%+.1f %% against alternate) %s\n",
          window >> 20, window_us, 100.0 * (window_us / alternate_us - 1.0),
          std::memcmp(field_window.data(), field_plain.data(), f.bytes) == 0 ? "field same"
                                                                             : "field DIFFERENT");
    }
    CHECK(cudaFree(f.a));
    CHECK(cudaFree(f.b));
    CHECK(cudaFree(f.partials));
  }
  return 0;
}
