// Which loop form lets heat3d's step reach the copy bandwidth on this GPU? A stand-alone
// measurement, built with the project (tools/labs/CMakeLists.txt; `cmake --build build --target
// heat-kernel-lab`, the program build/labs/heat-kernel-lab) and run by tools/kernel-labs on the GPU
// machine:
//   build/labs/heat-kernel-lab [profile BX BY RUN]
// The field is heat3d's at 512^3 double: 514^3 values (one ghost layer), the 512^3 owned cells
// updated. Every variant is checked bit for bit against a CPU twin
// (apps/models/heat3d/heat_kernels.cuh's heat_value, explicit fused multiply-adds, so the bits
// cannot depend on the compilers) and timed as the median of 20 launches, beside a copy kernel and
// cudaMemcpy in the same run. The model's kernel (heat_walk) is included from
// apps/models/heat3d/heat_kernels.cuh, so this measures what runs. `profile BX BY RUN` runs the old
// kernel, heat_walk with that shape, the one-row walk and the tiled form once each, for Nsight
// Compute.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "heat_kernels.cuh"
#include "lab_timing.cuh"

using haloflow::kernels::CellBox;
using haloflow::kernels::HeatCoefficients;

namespace {

constexpr std::int64_t kN = 512;
constexpr std::int64_t kExtent = kN + 2;

// The model's kernel before this lab (apps/models/heat3d/heat_kernels.cu at e7bbe00): one thread
// per column of a row, rows strided over grid.y, planes over grid.z, the sum contracted as nvcc
// likes.
__global__ void old_heat_box(CellBox box, HeatCoefficients<double> c, const double* __restrict__ u,
                             double* __restrict__ u_new) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= box.x0 + box.nx) return;
  const int rows = static_cast<int>(gridDim.y * blockDim.y);
  const std::int64_t row_step = rows * box.stride_y;
  const int first_row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  for (std::int64_t z = blockIdx.z; z < box.nz; z += gridDim.z) {
    std::int64_t i = x + (box.z0 + z) * box.stride_z + (box.y0 + first_row) * box.stride_y;
    for (int y = first_row; y < box.ny; y += rows, i += row_step) {
      const double centre = u[i];
      const double twice = centre + centre;
      u_new[i] = centre + (c.x * ((u[i - 1] + u[i + 1]) - twice) +
                           c.y * ((u[i - box.stride_y] + u[i + box.stride_y]) - twice) +
                           c.z * ((u[i - box.stride_z] + u[i + box.stride_z]) - twice));
    }
  }
}

// The walk with a tile of the current plane in shared memory (the 2.5D blocking of the
// literature): x and y neighbours from shared memory instead of L1, two barriers per plane.
// Needs a box that the block shape divides.
template <int kBx, int kBy>
__global__ void tiled_walk(CellBox box, HeatCoefficients<double> c, const double* __restrict__ u,
                           double* __restrict__ u_new) {
  __shared__ double plane[kBy + 2][kBx + 2];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * kBx + tx;
  const std::int64_t y = box.y0 + static_cast<std::int64_t>(blockIdx.y) * kBy + ty;
  const std::int64_t run = (box.nz + gridDim.z - 1) / gridDim.z;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.z) * run;
  const std::int64_t last = first + run < box.nz ? first + run : box.nz;
  const std::int64_t sy = box.stride_y;
  const std::int64_t sz = box.stride_z;
  std::int64_t i = x + y * sy + (box.z0 + first) * sz;
  double below = u[i - sz];
  double centre = u[i];
  for (std::int64_t z = first; z < last; ++z, i += sz) {
    const double above = u[i + sz];
    __syncthreads();
    plane[ty + 1][tx + 1] = centre;
    if (tx == 0) plane[ty + 1][0] = u[i - 1];
    if (tx == kBx - 1) plane[ty + 1][kBx + 1] = u[i + 1];
    if (ty == 0) plane[0][tx + 1] = u[i - sy];
    if (ty == kBy - 1) plane[kBy + 1][tx + 1] = u[i + sy];
    __syncthreads();
    u_new[i] =
        haloflow::kernels::heat_value(centre, plane[ty + 1][tx], plane[ty + 1][tx + 2],
                                      plane[ty][tx + 1], plane[ty + 2][tx + 1], below, above, c);
    below = centre;
    centre = above;
  }
}

// heat_walk with streaming stores (st.global.cs): u_new is not read again in the step, so its
// lines need not stay in L2 where they push out planes of u that neighbouring runs still read.
__global__ void streaming_walk(CellBox box, HeatCoefficients<double> c,
                               const double* __restrict__ u, double* __restrict__ u_new) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t y = box.y0 + static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (x >= box.x0 + box.nx || y >= box.y0 + box.ny) return;
  const std::int64_t run = (box.nz + gridDim.z - 1) / gridDim.z;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.z) * run;
  const std::int64_t last = first + run < box.nz ? first + run : box.nz;
  if (first >= last) return;
  const std::int64_t sy = box.stride_y;
  const std::int64_t sz = box.stride_z;
  std::int64_t i = x + y * sy + (box.z0 + first) * sz;
  double below = u[i - sz];
  double centre = u[i];
#pragma unroll 4
  for (std::int64_t z = first; z < last; ++z, i += sz) {
    const double above = u[i + sz];
    __stcs(u_new + i, haloflow::kernels::heat_value(centre, u[i - 1], u[i + 1], u[i - sy],
                                                    u[i + sy], below, above, c));
    below = centre;
    centre = above;
  }
}

// The model's walk (heat_walk_rows) with kRows rows per thread for every thread: 1 is the model's
// kernel before 2026-12-01 14:40, 2 the model's now (heat_walk, which also takes boxes with an odd
// row count). Needs ny divisible by kRows.
template <int kRows>
__global__ void rows_walk(CellBox box, HeatCoefficients<double> c, const double* __restrict__ u,
                          double* __restrict__ u_new) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t y =
      box.y0 + (static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y) * kRows;
  if (x >= box.x0 + box.nx || y >= box.y0 + box.ny) return;
  const std::int64_t run = (box.nz + gridDim.z - 1) / gridDim.z;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.z) * run;
  const std::int64_t last = first + run < box.nz ? first + run : box.nz;
  if (first >= last) return;
  haloflow::kernels::heat_walk_rows<double, kRows>(
      x + y * box.stride_y + (box.z0 + first) * box.stride_z, first, last, box.stride_y,
      box.stride_z, c, u, u_new, false, false, 0);
}

// The model's walk with its registers bounded so that 8 blocks of 256 fit an SM (32 registers;
// the model's kernel gets 40 in double with the x images, so 6 blocks). It spills: 966 to 973 us
// at 14:55.
__global__ void __launch_bounds__(256, 8)
    bounded_walk(CellBox box, bool x_images, HeatCoefficients<double> c,
                 const double* __restrict__ u, double* __restrict__ u_new) {
  haloflow::kernels::heat_walk_box(box, x_images, c, u, u_new);
}

__global__ void copy(const double2* __restrict__ a, double2* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

// Eight independent chains of fused multiply-adds per thread: the FP64 issue rate.
__global__ void fma_rate(double* out, int rounds) {
  double v[8];
  for (int k = 0; k < 8; ++k) v[k] = threadIdx.x * 1e-9 + k;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = fma(v[k], 0.999999, 1e-7);
  }
  double sum = 0;
  for (int k = 0; k < 8; ++k) sum += v[k];
  if (sum == 12345.0) out[0] = sum;  // never true; keeps the chains alive
}

dim3 walk_grid(const CellBox& box, unsigned bx, unsigned by, std::int64_t run) {
  return dim3(static_cast<unsigned>((box.nx + bx - 1) / bx),
              static_cast<unsigned>((box.ny + by - 1) / by),
              static_cast<unsigned>((box.nz + run - 1) / run));
}

}  // namespace

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
  const std::int64_t cells = kExtent * kExtent * kExtent;
  const std::size_t bytes = static_cast<std::size_t>(cells) * sizeof(double);
  const CellBox box{.x0 = 1,
                    .y0 = 1,
                    .z0 = 1,
                    .nx = kN,
                    .ny = kN,
                    .nz = kN,
                    .stride_y = kExtent,
                    .stride_z = kExtent * kExtent};
  // Not powers of two, so that a product rounded before its add would show in the bits.
  const HeatCoefficients<double> c{0.1, 0.11, 0.12};
  std::vector<double> host(static_cast<std::size_t>(cells));
  for (std::int64_t i = 0; i < cells; ++i) {
    host[static_cast<std::size_t>(i)] =
        static_cast<double>((static_cast<std::uint64_t>(i) * 2654435761u) % 100003) / 100003.0;
  }
  double *u = nullptr, *u_new = nullptr, *scratch = nullptr;
  CHECK(cudaMalloc(&u, bytes));
  CHECK(cudaMalloc(&u_new, bytes));
  CHECK(cudaMalloc(&scratch, sizeof(double)));
  CHECK(cudaMemcpy(u, host.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const auto time = [&](const std::function<void()>& launch) {
    return median_us(launch, start, stop, 20, 3);
  };

  if (profile) {
    if (argc < 5) {
      std::fprintf(stderr, "profile needs BX BY RUN\n");
      return 1;
    }
    const unsigned bx = static_cast<unsigned>(std::atoi(argv[2]));
    const unsigned by = static_cast<unsigned>(std::atoi(argv[3]));
    const std::int64_t run = std::atoi(argv[4]);
    old_heat_box<<<dim3(16, 16, 512), dim3(32, 8)>>>(box, c, u, u_new);
    haloflow::kernels::heat_walk<double, false>
        <<<walk_grid(box, bx, by * haloflow::kernels::kHeatRowsPerThread, run), dim3(bx, by)>>>(
            box, false, c, u, u_new);
    rows_walk<1><<<walk_grid(box, 64, 4, 4), dim3(64, 4)>>>(box, c, u, u_new);
    tiled_walk<32, 8><<<walk_grid(box, 32, 8, 64), dim3(32, 8)>>>(box, c, u, u_new);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }

  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double copy_us = time([&] {
    copy<<<sms * 8, 256>>>(reinterpret_cast<const double2*>(u), reinterpret_cast<double2*>(u_new),
                           cells / 2);
  });
  const double memcpy_us =
      time([&] { CHECK(cudaMemcpyAsync(u_new, u, bytes, cudaMemcpyDeviceToDevice)); });
  const double moved = 2.0 * static_cast<double>(bytes);
  std::printf(
      "copy kernel: %.1f us = %.3f TB/s (read + written); cudaMemcpy D2D: %.1f us = %.3f TB/s\n",
      copy_us, 1e-12 * moved / (copy_us * 1e-6), memcpy_us, 1e-12 * moved / (memcpy_us * 1e-6));
  const double memcpy_bandwidth = moved / (memcpy_us * 1e-6);
  const int rounds = 4096;
  const unsigned fma_blocks = static_cast<unsigned>(sms) * 16;
  const double fma_us = time([&] { fma_rate<<<fma_blocks, 256>>>(scratch, rounds); });
  const double fmas = 8.0 * rounds * fma_blocks * 256;
  std::printf("FP64 fused multiply-add: %.3f T instructions/s = %.2f TFLOP/s\n",
              1e-12 * fmas / (fma_us * 1e-6), 2e-12 * fmas / (fma_us * 1e-6));
  const double step_bytes = 2.0 * static_cast<double>(kN * kN * kN) * sizeof(double);
  std::printf(
      "step moves %.4g GB (read u + write u_new over 512^3): floor %.1f us at the cudaMemcpy "
      "bandwidth, %.1f us at the copy kernel's\n",
      1e-9 * step_bytes, step_bytes / memcpy_bandwidth * 1e6,
      step_bytes / (moved / (copy_us * 1e-6)) * 1e6);

  // The CPU twin (with or without the x images), over the planes in 16 threads.
  const auto on_host = [&](bool x_images) {
    std::vector<double> result(host.size(), 0.0);
    std::vector<std::thread> threads;
    const int workers = 16;
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        CellBox part = box;
        part.z0 = box.z0 + kN * w / workers;
        part.nz = box.z0 + kN * (w + 1) / workers - part.z0;
        haloflow::kernels::heat_walk_on_host<double>({}, part, x_images, c, host.data(),
                                                     result.data());
      });
    }
    for (auto& t : threads) t.join();
    return result;
  };
  const std::vector<double> want = on_host(false);
  std::vector<double> got(host.size());
  const auto check = [&](const std::string& name, double us) {
    CHECK(cudaMemcpy(got.data(), u_new, bytes, cudaMemcpyDeviceToHost));
    std::int64_t differing = 0;
    for (std::int64_t z = 1; z <= kN; ++z) {
      for (std::int64_t y = 1; y <= kN; ++y) {
        const std::size_t at = static_cast<std::size_t>(1 + y * kExtent + z * kExtent * kExtent);
        if (std::memcmp(&got[at], &want[at], kN * sizeof(double)) != 0) ++differing;
      }
    }
    std::printf("%-32s %8.1f us  %5.1f %% of cudaMemcpy  %5.1f %% of the copy kernel  %s\n",
                name.c_str(), us, 100.0 * step_bytes / memcpy_bandwidth / (us * 1e-6),
                100.0 * copy_us * 1e-6 * step_bytes / moved / (us * 1e-6),
                differing == 0 ? "same as the CPU twin"
                               : (std::to_string(differing) + " rows DIFFERENT").c_str());
  };
  const auto reset = [&] { CHECK(cudaMemset(u_new, 0xff, bytes)); };

  reset();
  const double old_us =
      time([&] { old_heat_box<<<dim3(16, 16, 512), dim3(32, 8)>>>(box, c, u, u_new); });
  std::printf("%-32s %8.1f us  %5.1f %% of cudaMemcpy  (contracted by nvcc: not bitwise)\n",
              "old: strided rows, 32x8", old_us,
              100.0 * step_bytes / memcpy_bandwidth / (old_us * 1e-6));
  double best_us = 1e30;
  std::string best;
  for (auto [bx, by] : {std::pair{32u, 4u},
                        {32u, 8u},
                        {32u, 16u},
                        {64u, 2u},
                        {64u, 4u},
                        {64u, 8u},
                        {128u, 1u},
                        {128u, 2u},
                        {128u, 4u},
                        {256u, 1u},
                        {256u, 2u},
                        {512u, 1u}}) {
    for (std::int64_t run : {4, 8, 16, 32, 64, 128, 512}) {
      reset();
      const double us = time([&] {
        haloflow::kernels::heat_walk<double, false>
            <<<walk_grid(box, bx, by * haloflow::kernels::kHeatRowsPerThread, run), dim3(bx, by)>>>(
                box, false, c, u, u_new);
      });
      const std::string name = "walk (2 rows) " + std::to_string(bx) + "x" + std::to_string(by) +
                               " run " + std::to_string(run);
      check(name, us);
      if (us < best_us) {
        best_us = us;
        best = std::to_string(bx) + " " + std::to_string(by) + " " + std::to_string(run);
      }
    }
  }
  for (std::int64_t run : {8, 32, 128}) {
    for (auto [bx, by] : {std::pair{64u, 4u}, {128u, 2u}, {32u, 8u}}) {
      reset();
      check("walk, streaming stores " + std::to_string(bx) + "x" + std::to_string(by) + " run " +
                std::to_string(run),
            time([&] {
              streaming_walk<<<walk_grid(box, bx, by, run), dim3(bx, by)>>>(box, c, u, u_new);
            }));
    }
  }
  // The model's walk writing the x images (a wrapping x axis: the first and last columns also
  // store into the ghosts across the box), checked with the ghost columns against the CPU twin,
  // and the same walk with its registers bounded; beside the model's walk without the images.
  {
    const std::vector<double> imaged = on_host(true);
    const unsigned bx = haloflow::kernels::kHeatBlockWidth;
    const unsigned by = haloflow::kernels::kHeatBlockThreads / bx;
    const dim3 grid = walk_grid(box, bx, by * haloflow::kernels::kHeatRowsPerThread,
                                haloflow::kernels::kHeatPlanesPerThread);
    const auto check_images = [&](const std::string& name, double us) {
      CHECK(cudaMemcpy(got.data(), u_new, bytes, cudaMemcpyDeviceToHost));
      std::int64_t differing = 0;
      for (std::int64_t z = 1; z <= kN; ++z) {
        for (std::int64_t y = 1; y <= kN; ++y) {
          const std::size_t at = static_cast<std::size_t>(y * kExtent + z * kExtent * kExtent);
          if (std::memcmp(&got[at], &imaged[at], kExtent * sizeof(double)) != 0) ++differing;
        }
      }
      std::printf("%-32s %8.1f us  %5.1f %% of cudaMemcpy  %s\n", name.c_str(), us,
                  100.0 * step_bytes / memcpy_bandwidth / (us * 1e-6),
                  differing == 0 ? "same as the CPU twin, ghost columns included"
                                 : (std::to_string(differing) + " rows DIFFERENT").c_str());
    };
    for (int round = 0; round < 2; ++round) {
      reset();
      check("model walk, no images", time([&] {
              haloflow::kernels::heat_walk<double, false>
                  <<<grid, dim3(bx, by)>>>(box, false, c, u, u_new);
            }));
      reset();
      check_images("model walk, x images", time([&] {
                     haloflow::kernels::heat_walk<double, true>
                         <<<grid, dim3(bx, by)>>>(box, true, c, u, u_new);
                   }));
      reset();
      check_images("bounded walk, x images",
                   time([&] { bounded_walk<<<grid, dim3(bx, by)>>>(box, true, c, u, u_new); }));
      reset();
      check("bounded walk, no images",
            time([&] { bounded_walk<<<grid, dim3(bx, by)>>>(box, false, c, u, u_new); }));
    }
  }
  // One row per thread (the model's walk before) and four.
  for (auto [bx, by] : {std::pair{64u, 4u}, {32u, 8u}, {128u, 2u}, {64u, 2u}}) {
    for (std::int64_t run : {4, 8, 16}) {
      reset();
      check("rows 1, " + std::to_string(bx) + "x" + std::to_string(by) + " run " +
                std::to_string(run),
            time([&] {
              rows_walk<1><<<walk_grid(box, bx, by, run), dim3(bx, by)>>>(box, c, u, u_new);
            }));
      reset();
      check("rows 4, " + std::to_string(bx) + "x" + std::to_string(by) + " run " +
                std::to_string(run),
            time([&] {
              rows_walk<4><<<walk_grid(box, bx, by * 4, run), dim3(bx, by)>>>(box, c, u, u_new);
            }));
    }
  }
  for (std::int64_t run : {16, 64, 512}) {
    reset();
    check("tiled 32x8 run " + std::to_string(run), time([&] {
            tiled_walk<32, 8><<<walk_grid(box, 32, 8, run), dim3(32, 8)>>>(box, c, u, u_new);
          }));
    reset();
    check("tiled 64x4 run " + std::to_string(run), time([&] {
            tiled_walk<64, 4><<<walk_grid(box, 64, 4, run), dim3(64, 4)>>>(box, c, u, u_new);
          }));
    reset();
    check("tiled 32x16 run " + std::to_string(run), time([&] {
            tiled_walk<32, 16><<<walk_grid(box, 32, 16, run), dim3(32, 16)>>>(box, c, u, u_new);
          }));
  }
  std::printf("best walk: %s (%.1f us)\n", best.c_str(), best_us);
  if (FILE* f = std::fopen("heat-best.txt", "w")) {
    std::fprintf(f, "%s\n", best.c_str());
    std::fclose(f);
  }
  return 0;
}
