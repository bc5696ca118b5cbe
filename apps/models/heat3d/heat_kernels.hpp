#pragma once
//! \file
//! \brief One explicit (forward Euler) step of the heat equation with the 7-point Laplacian:
//! u_new = u + cx (u[x-1] + u[x+1] - 2u) + cy (...) + cz (...), c_axis = nu dt / h_axis^2, the
//! products fused explicitly, so that the GPU and the CPU twin compute the same bits.
//!
//! Launch geometry (heat_launch): one thread per x and kHeatRowsPerThread rows of the box (x over
//! grid.x * block.x, rows over grid.y * block.y), each walking a run of ceil(nz / grid.z)
//! consecutive planes.

#include <cstddef>

#include "cell_box.hpp"
#include "haloflow/kernel.hpp"
#include "haloflow/launch.hpp"

namespace haloflow::kernels {

//! nu dt / h^2 per axis (equal on a cubic grid).
template <class T>
struct HeatCoefficients {
  T x = 0;
  T y = 0;
  T z = 0;
};

//! (box, x_images, coefficients, u, u_new): one step over `box`. `x_images`: x is a periodic axis
//! this rank spans alone and `box` spans its owned x range; each new value of the first and last
//! columns is also written into the ghost across the box (its periodic image), where the next
//! step reads it, so no copy of the x faces is needed between steps
//! (ExchangeOptions::self_left_to_kernels). A copy of an x face touches a cache line per cell (a
//! measurable share of the step: docs/benchmarks.md); here the image lands in a line that the
//! row's other cells write anyway. The ghosts must hold the images before the first step.
template <class T>
using HeatKernel = KernelRef<CellBox, bool, HeatCoefficients<T>, const T*, T*>;

//! The heat kernel: the walk compiled with the x images where `x_images` (the same value must be
//! passed as the kernel's argument), without them otherwise, so that it keeps 32 registers.
template <class T>
HeatKernel<T> heat_kernel(bool x_images);

//! The walk's block shape, rows and run: the fastest of tools/heat-kernel-lab.cu's shapes at 512^3
//! double on an H200 (the times of each: docs/benchmarks.md).
inline constexpr unsigned kHeatBlockWidth = 128;
inline constexpr unsigned kHeatBlockThreads = 256;
inline constexpr int kHeatRowsPerThread = 2;
inline constexpr std::int64_t kHeatPlanesPerThread = 4;

//! The launch of heat_kernel over `box`: blocks of kHeatBlockThreads, kHeatBlockWidth wide (fewer
//! for narrower boxes), kHeatRowsPerThread rows and kHeatPlanesPerThread planes per thread (more
//! planes past CUDA's 65535 runs).
//! \throws Error for an empty box or one too large for CUDA's grid.
[[nodiscard]] LaunchShape heat_launch(const CellBox& box);

//! The deep pass's block: 32 x 16 threads (0.82 of them write at 2 steps, 0.51 at 4), the fastest
//! of tools/labs/heat-deep-lab.cu's at 128^3 and 256^3 double on an H200 (docs/benchmarks.md).
inline constexpr int kHeatDeepWidth = 32;
inline constexpr int kHeatDeepHeight = 16;

//! The planes a block of the deep pass walks: 32 (each run recomputes 2 (steps - 1) planes of the
//! runs beside it, so deeper passes want longer runs; tools/labs/heat-deep-lab.cu's fastest at
//! 512^3 for 2 to 4 steps and at 128^3 for 3 and 4; 16 was 8 % faster at 128^3 with 2).
inline constexpr std::int64_t kHeatDeepPlanes = 32;

//! (box, coefficients, u, out): `steps` steps over `box` in one pass (heat_deep_box), reading `u`
//! up to `steps` cells around the box (ghosts that deep) and writing only the box of `out`, the
//! bits of `steps` single steps (each over the box grown by the steps still to come).
template <class T>
using HeatDeepKernel = KernelRef<CellBox, HeatCoefficients<T>, const T*, T*>;

//! The fewest and most steps a deep pass takes.
inline constexpr int kHeatDeepFewest = 2;
inline constexpr int kHeatDeepMost = 4;

//! The deep pass of `steps` steps (kHeatDeepFewest to kHeatDeepMost).
//! \throws Error for another number of steps.
template <class T>
HeatDeepKernel<T> heat_deep_kernel(int steps);

//! The launch of heat_deep_kernel(steps) over `box`: a block a tile of columns (kHeatDeepWidth x
//! kHeatDeepHeight threads, the tile 2 (steps - 1) narrower each way), a run of
//! kHeatDeepPlanes planes a block.
//! \throws Error for an empty box, a number of steps heat_deep_kernel refuses, or a box too large
//! for CUDA's grid.
[[nodiscard]] LaunchShape heat_deep_launch(const CellBox& box, int steps);

}  // namespace haloflow::kernels
