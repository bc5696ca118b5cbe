// How fast can heat3d go at a size that fits in the L2 (128^3 double, 17 MB a field)? A
// stand-alone measurement, built with the project (tools/labs/CMakeLists.txt) and run by
// tools/kernel-labs on the GPU machine:
//   build/labs/heat-deep-lab [N]      (N: cells per axis, default 128)
// The field is N^3 cells with ghosts 4 deep on every side. Measured, each as microseconds a step:
// a copy kernel over the field (what the bytes cost), the model's one-step walk (heat_walk) at
// its launch (heat_launch) and at other runs of planes, k sub-steps of the walk (what k-step
// frames ran before the deep pass: sub-step s over the box grown by k - s), and the deep pass
// (heat_deep_box: k steps in one pass) at 2, 3 and 4 steps and several tiles and runs. Each time
// is taken two ways: one launch between two events (the median of 30: what a lone launch costs,
// launch included) and 50 launches captured in one CUDA graph (the median of 10 graphs, over 50:
// what a step costs back to back, as in a frame loop). Every variant's owned cells are checked
// bit for bit against the CPU twin (heat_walk_on_host, heat_deep_on_host).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "heat_kernels.cuh"
#include "lab_timing.cuh"

using haloflow::LaunchShape;
using haloflow::kernels::CellBox;
using haloflow::kernels::HeatCoefficients;

namespace {

constexpr std::int64_t kGhosts = 4;

__global__ void copy(const double2* __restrict__ a, double2* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

template <int kSteps, int kWidth, int kHeight>
__global__ void __launch_bounds__(kWidth* kHeight)
    deep(CellBox box, HeatCoefficients<double> c, const double* __restrict__ u,
         double* __restrict__ out) {
  haloflow::kernels::heat_deep_box<double, kSteps, kWidth, kHeight>(box, c, u, out);
}

CellBox grown(CellBox box, std::int64_t by) {
  box.x0 -= by;
  box.y0 -= by;
  box.z0 -= by;
  box.nx += 2 * by;
  box.ny += 2 * by;
  box.nz += 2 * by;
  return box;
}

dim3 walk_grid(const CellBox& box, unsigned bx, unsigned by, std::int64_t run) {
  return dim3(static_cast<unsigned>((box.nx + bx - 1) / bx),
              static_cast<unsigned>((box.ny + by - 1) / by),
              static_cast<unsigned>((box.nz + run - 1) / run));
}

struct Lab {
  std::int64_t n = 0;
  std::int64_t extent = 0;
  std::int64_t cells = 0;
  std::size_t bytes = 0;
  CellBox box{};
  HeatCoefficients<double> c{0.1, 0.11, 0.12};
  std::vector<double> host;
  double* u = nullptr;
  double* a = nullptr;  // sub-step scratch
  double* b = nullptr;
  double* out = nullptr;
  cudaEvent_t start{}, stop{};
  cudaStream_t stream{};

  explicit Lab(std::int64_t cells_per_axis) : n(cells_per_axis) {
    extent = n + 2 * kGhosts;
    cells = extent * extent * extent;
    bytes = static_cast<std::size_t>(cells) * sizeof(double);
    box = CellBox{.x0 = kGhosts,
                  .y0 = kGhosts,
                  .z0 = kGhosts,
                  .nx = n,
                  .ny = n,
                  .nz = n,
                  .stride_y = extent,
                  .stride_z = extent * extent};
    host.resize(static_cast<std::size_t>(cells));
    for (std::int64_t i = 0; i < cells; ++i) {
      host[static_cast<std::size_t>(i)] =
          static_cast<double>((static_cast<std::uint64_t>(i) * 2654435761u) % 100003) / 100003.0;
    }
    CHECK(cudaMalloc(&u, bytes));
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(u, host.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }

  // One launch between events (median of 30), and a graph of 50 launches (median of 10, / 50).
  std::pair<double, double> time(const std::function<void(cudaStream_t)>& launch) {
    const double lone = median_us([&] { launch(nullptr); }, start, stop, 30, 3);
    cudaGraph_t graph{};
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < 50; ++i) launch(stream);
    CHECK(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec{};
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    const double graph_us =
        median_us([&] { CHECK(cudaGraphLaunch(exec, nullptr)); }, start, stop, 10, 2) / 50.0;
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    return {lone, graph_us};
  }

  // The owned cells of `out` against `want`: how many differ.
  std::int64_t differing(const std::vector<double>& want) const {
    std::vector<double> got(host.size());
    CHECK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    std::int64_t count = 0;
    for (std::int64_t z = box.z0; z < box.z0 + n; ++z) {
      for (std::int64_t y = box.y0; y < box.y0 + n; ++y) {
        const std::size_t at = static_cast<std::size_t>(box.x0 + y * extent + z * extent * extent);
        for (std::int64_t x = 0; x < n; ++x) {
          if (std::memcmp(&got[at + static_cast<std::size_t>(x)],
                          &want[at + static_cast<std::size_t>(x)], sizeof(double)) != 0) {
            ++count;
          }
        }
      }
    }
    return count;
  }

  // Every element of `out` against `want` (the ghosts too: the images): how many differ.
  std::int64_t differing_anywhere(const std::vector<double>& want) const {
    std::vector<double> got(host.size());
    CHECK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    std::int64_t count = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0) ++count;
    }
    return count;
  }

  std::vector<double> twin(int steps) const {
    std::vector<double> want(host.size(), 0.0);
    switch (steps) {
      case 1:
        haloflow::kernels::heat_walk_on_host<double>(LaunchShape{}, box, false, c, host.data(),
                                                     want.data());
        break;
      case 2:
        haloflow::kernels::heat_deep_on_host<double, 2>(LaunchShape{}, box, c, host.data(),
                                                        want.data());
        break;
      case 3:
        haloflow::kernels::heat_deep_on_host<double, 3>(LaunchShape{}, box, c, host.data(),
                                                        want.data());
        break;
      default:
        haloflow::kernels::heat_deep_on_host<double, 4>(LaunchShape{}, box, c, host.data(),
                                                        want.data());
        break;
    }
    return want;
  }

  void report(const std::string& name, int steps, const std::vector<double>& want,
              const std::function<void(cudaStream_t)>& launch, bool ghosts_too = false) {
    CHECK(cudaMemset(out, 0, bytes));
    launch(nullptr);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaGetLastError());
    const std::int64_t wrong = ghosts_too ? differing_anywhere(want) : differing(want);
    const auto [lone, looped] = time(launch);
    std::printf("%-44s lone %7.2f us (%6.2f a step)  looped %7.2f us (%6.2f a step)  %s\n",
                name.c_str(), lone, lone / steps, looped, looped / steps,
                wrong == 0 ? "bitwise equal" : ("DIFFERS in " + std::to_string(wrong)).c_str());
  }
};

template <int kSteps, int kWidth, int kHeight>
void deep_variant(Lab& lab, const std::vector<double>& want, std::int64_t run) {
  constexpr int kTileX = kWidth - 2 * (kSteps - 1);
  constexpr int kTileY = kHeight - 2 * (kSteps - 1);
  const dim3 grid(static_cast<unsigned>((lab.n + kTileX - 1) / kTileX),
                  static_cast<unsigned>((lab.n + kTileY - 1) / kTileY),
                  static_cast<unsigned>((lab.n + run - 1) / run));
  lab.report("deep " + std::to_string(kSteps) + " steps, " + std::to_string(kWidth) + " x " +
                 std::to_string(kHeight) + ", runs of " + std::to_string(run),
             kSteps, want, [&](cudaStream_t s) {
               deep<kSteps, kWidth, kHeight>
                   <<<grid, dim3(kWidth, kHeight), 0, s>>>(lab.box, lab.c, lab.u, lab.out);
             });
}

}  // namespace

int main(int argc, char** argv) {
  Lab lab(argc > 1 ? std::atoll(argv[1]) : 128);
  // quick: the model's launches only (the walk, with and without images; the deep passes at
  // their launch's tile, two runs), for large fields.
  const bool quick = argc > 2 && std::strcmp(argv[2], "quick") == 0;
  std::printf("heat3d %lld^3 double, ghosts %lld deep: a field %.1f MB\n",
              static_cast<long long>(lab.n), static_cast<long long>(kGhosts), 1e-6 * lab.bytes);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  {
    const auto [lone, looped] = lab.time([&](cudaStream_t s) {
      copy<<<sms * 8, 256, 0, s>>>(reinterpret_cast<const double2*>(lab.u),
                                   reinterpret_cast<double2*>(lab.out), lab.cells / 2);
    });
    const double moved = 2.0 * static_cast<double>(lab.bytes);
    std::printf("copy kernel: lone %.2f us, looped %.2f us = %.3f TB/s (read + written)\n", lone,
                looped, 1e-12 * moved / (looped * 1e-6));
  }
  const std::vector<double> one = lab.twin(1);
  const LaunchShape shape = haloflow::kernels::heat_launch(lab.box);
  const dim3 engine_grid(shape.grid.x, shape.grid.y, shape.grid.z);
  const dim3 engine_block(shape.block.x, shape.block.y);
  lab.report("walk (the model's launch)", 1, one, [&](cudaStream_t s) {
    haloflow::kernels::heat_walk<double, false>
        <<<engine_grid, engine_block, 0, s>>>(lab.box, false, lab.c, lab.u, lab.out);
  });
  {
    // The model's walk writing the x images (one rank along a wrapping x), checked with every
    // ghost against the twin.
    std::vector<double> imaged(lab.host.size(), 0.0);
    haloflow::kernels::heat_walk_on_host<double>(LaunchShape{}, lab.box, true, lab.c,
                                                 lab.host.data(), imaged.data());
    lab.report(
        "walk, x images (the model's launch)", 1, imaged,
        [&](cudaStream_t s) {
          haloflow::kernels::heat_walk<double, true>
              <<<engine_grid, engine_block, 0, s>>>(lab.box, true, lab.c, lab.u, lab.out);
        },
        true);
  }
  for (unsigned width : {32u, 64u, 128u}) {
    if (quick) break;
    for (std::int64_t run : {1, 2, 4, 8, 16}) {
      const unsigned height = 256 / width;
      const dim3 grid = walk_grid(lab.box, width, height * 2, run);
      lab.report("walk " + std::to_string(width) + " x " + std::to_string(height) + ", runs of " +
                     std::to_string(run),
                 1, one, [&, grid, width, height](cudaStream_t s) {
                   haloflow::kernels::heat_walk<double, false>
                       <<<grid, dim3(width, height), 0, s>>>(lab.box, false, lab.c, lab.u, lab.out);
                 });
    }
  }
  for (int steps = 2; steps <= 4; ++steps) {
    const std::vector<double> want = lab.twin(steps);
    // The sub-steps as k-step frames ran them: the walk over the box grown by k - s.
    lab.report(std::to_string(steps) + " sub-steps of the walk", steps, want, [&](cudaStream_t s) {
      const double* from = lab.u;
      for (int step = 1; step <= steps; ++step) {
        const CellBox part = grown(lab.box, steps - step);
        double* to = step == steps ? lab.out : (step % 2 == 1 ? lab.a : lab.b);
        const LaunchShape sub = haloflow::kernels::heat_launch(part);
        haloflow::kernels::heat_walk<double, false>
            <<<dim3(sub.grid.x, sub.grid.y, sub.grid.z), dim3(sub.block.x, sub.block.y), 0, s>>>(
                part, false, lab.c, from, to);
        from = to;
      }
    });
    for (std::int64_t run : {8, 16, 32, 64}) {
      if (quick && run != 32) continue;
      if (quick) {
        // The model's tile.
        if (steps == 2) deep_variant<2, 32, 16>(lab, want, run);
        if (steps == 3) deep_variant<3, 32, 16>(lab, want, run);
        if (steps == 4) deep_variant<4, 32, 16>(lab, want, run);
        continue;
      }
      if (steps == 2) {
        deep_variant<2, 32, 8>(lab, want, run);
        deep_variant<2, 32, 16>(lab, want, run);
        deep_variant<2, 64, 8>(lab, want, run);
      } else if (steps == 3) {
        deep_variant<3, 32, 16>(lab, want, run);
        deep_variant<3, 64, 8>(lab, want, run);
      } else {
        deep_variant<4, 32, 16>(lab, want, run);
        deep_variant<4, 32, 32>(lab, want, run);
      }
    }
  }
  return 0;
}
