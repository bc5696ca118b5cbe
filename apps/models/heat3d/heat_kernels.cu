// The heat step for the engine: heat_walk and its CPU twin from heat_kernels.cuh (shared with
// tools/heat-kernel-lab.cu), and the launch geometry the walk was measured fastest with (frames
// of several steps walk each sub-step's box the same way).

#include <algorithm>
#include <string>

#include "haloflow/error.hpp"
#include "heat_kernels.cuh"

namespace haloflow::kernels {

template <class T>
HeatKernel<T> heat_kernel(bool x_images) {
  return {x_images ? &heat_walk<T, true> : &heat_walk<T, false>, &heat_walk_on_host<T>, "heat"};
}

LaunchShape heat_launch(const CellBox& box) {
  if (box.nx < 1 || box.ny < 1 || box.nz < 1) {
    throw Error("heat launch: a box of " + std::to_string(box.nx) + " x " + std::to_string(box.ny) +
                " x " + std::to_string(box.nz) +
                " cells is not allowed; expected at least one cell per axis");
  }
  constexpr std::int64_t kGridLimit = 65535;  // CUDA's limit on grid.y and grid.z
  // Narrower boxes (the x slabs) get narrower blocks, by powers of two, so few threads idle.
  unsigned width = kHeatBlockWidth;
  while (width > 1 && width > box.nx) width /= 2;
  const unsigned height = kHeatBlockThreads / width;
  const std::int64_t columns = (box.nx + width - 1) / width;
  const std::int64_t band = std::int64_t{height} * kHeatRowsPerThread;
  const std::int64_t rows = (box.ny + band - 1) / band;
  if (columns > 0x7fffffff || rows > kGridLimit) {
    throw Error("heat launch: a box of " + std::to_string(box.nx) + " x " + std::to_string(box.ny) +
                " cells needs " + std::to_string(columns) + " x " + std::to_string(rows) +
                " blocks, over CUDA's limits");
  }
  const std::int64_t runs =
      std::min((box.nz + kHeatPlanesPerThread - 1) / kHeatPlanesPerThread, kGridLimit);
  return LaunchShape{.grid = {static_cast<unsigned>(columns), static_cast<unsigned>(rows),
                              static_cast<unsigned>(runs)},
                     .block = {width, height, 1}};
}

template <class T>
HeatDeepKernel<T> heat_deep_kernel(int steps) {
  switch (steps) {
    case 2:
      return {&heat_deep<T, 2>, &heat_deep_on_host<T, 2>, "heat deep 2"};
    case 3:
      return {&heat_deep<T, 3>, &heat_deep_on_host<T, 3>, "heat deep 3"};
    case 4:
      return {&heat_deep<T, 4>, &heat_deep_on_host<T, 4>, "heat deep 4"};
    default:
      throw Error("heat deep pass: " + std::to_string(steps) + " steps is not allowed; expected " +
                  std::to_string(kHeatDeepFewest) + " to " + std::to_string(kHeatDeepMost));
  }
}

LaunchShape heat_deep_launch(const CellBox& box, int steps) {
  if (steps < kHeatDeepFewest || steps > kHeatDeepMost) {
    throw Error("heat deep launch: " + std::to_string(steps) + " steps is not allowed; expected " +
                std::to_string(kHeatDeepFewest) + " to " + std::to_string(kHeatDeepMost));
  }
  if (box.nx < 1 || box.ny < 1 || box.nz < 1) {
    throw Error("heat deep launch: a box of " + std::to_string(box.nx) + " x " +
                std::to_string(box.ny) + " x " + std::to_string(box.nz) +
                " cells is not allowed; expected at least one cell per axis");
  }
  constexpr std::int64_t kGridLimit = 65535;  // CUDA's limit on grid.y and grid.z
  const std::int64_t tile_x = kHeatDeepWidth - 2 * (steps - 1);
  const std::int64_t tile_y = kHeatDeepHeight - 2 * (steps - 1);
  const std::int64_t columns = (box.nx + tile_x - 1) / tile_x;
  const std::int64_t rows = (box.ny + tile_y - 1) / tile_y;
  const std::int64_t runs = std::min((box.nz + kHeatDeepPlanes - 1) / kHeatDeepPlanes, kGridLimit);
  if (columns > 0x7fffffff || rows > kGridLimit) {
    throw Error("heat deep launch: a box of " + std::to_string(box.nx) + " x " +
                std::to_string(box.ny) + " cells needs " + std::to_string(columns) + " x " +
                std::to_string(rows) + " blocks, over CUDA's limits");
  }
  return LaunchShape{
      .grid = {static_cast<unsigned>(columns), static_cast<unsigned>(rows),
               static_cast<unsigned>(runs)},
      .block = {static_cast<unsigned>(kHeatDeepWidth), static_cast<unsigned>(kHeatDeepHeight), 1}};
}

template HeatKernel<float> heat_kernel<float>(bool);
template HeatKernel<double> heat_kernel<double>(bool);
template HeatDeepKernel<float> heat_deep_kernel<float>(int);
template HeatDeepKernel<double> heat_deep_kernel<double>(int);

}  // namespace haloflow::kernels
