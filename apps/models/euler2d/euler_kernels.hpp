#pragma once
//! \file
//! \brief Compressible Euler in 2D, finite volume (euler2d): one SSP Runge-Kutta stage with MUSCL
//! reconstruction of the primitive variables (minmod or van Leer) and HLLC or Rusanov fluxes; the
//! zero-gradient ghost fill of physical boundaries; the CFL wave-speed reduction, which also finds
//! the first cell with a negative density or pressure or a NaN.
//!
//! The state is one array of four fields (rho, rho u, rho v, E), field f at f * field_stride, each
//! laid out as the halo plan's FieldLayout (two ghost layers). Double precision only.
//! Launch geometry: x over grid.x * block.x, rows over grid.y * block.y (striding), plane z0.

#include <cstdint>

#include "cell_box.hpp"
#include "haloflow/kernel.hpp"

namespace haloflow::kernels {

//! Limiter of the MUSCL slopes.
enum EulerLimiter : int { kMinmod = 0, kVanLeer = 1 };
//! Numerical flux at a face.
enum EulerFlux : int { kHllc = 0, kRusanov = 1 };

//! One Shu-Osher stage: out = a * base + b * (in - dt/dx (F(i+1/2) - F(i-1/2)) - dt/dy (...)).
struct EulerStage {
  double a = 0;      //!< weight of the state at the start of the step
  double b = 1;      //!< weight of the forward-Euler update of `in`
  double dt_dx = 0;  //!< patched every step (the CFL time step)
  double dt_dy = 0;  //!< patched every step
  double gamma = 1.4;
  std::int64_t field_stride = 0;  //!< elements between fields
  int limiter = kVanLeer;
  int flux = kHllc;
};

//! (box, stage, base, in, out): one stage over `box`; `out` may be `base` (each cell reads base
//! only at itself), never `in`.
using EulerStageKernel = KernelRef<CellBox, EulerStage, const double*, const double*, double*>;
[[nodiscard]] EulerStageKernel euler_stage_kernel();

//! Zero-gradient (transmissive) ghost cells: every cell of the ghost box takes the value of the
//! cell at coordinate `edge` along `axis` (0: x, 1: y) in the same row/column, all four fields.
struct EulerWall {
  int axis = 0;
  std::int64_t edge = 0;
  std::int64_t field_stride = 0;
};
using EulerWallKernel = KernelRef<CellBox, EulerWall, double*>;
[[nodiscard]] EulerWallKernel euler_wall_kernel();

//! What the monitor kernel leaves on the device: the largest (|u|+c)/dx + (|v|+c)/dy over the
//! good cells, as the bits of a non-negative double (ordered as unsigned integers, so atomicMax
//! works), and the smallest storage offset of a bad cell (~0 when none).
struct EulerMonitor {
  unsigned long long speed_bits = 0;
  unsigned long long first_bad = ~0ULL;
};
struct EulerMonitorParams {
  double inv_dx = 1;
  double inv_dy = 1;
  double gamma = 1.4;
  std::int64_t field_stride = 0;
};
//! (box, params, state, monitor): max-reduces the wave speed (block reduction, one atomicMax per
//! block) and min-reduces the offset of cells with !(rho > 0), !(p > 0) or a non-finite speed.
using EulerMonitorKernel = KernelRef<CellBox, EulerMonitorParams, const double*, EulerMonitor*>;
[[nodiscard]] EulerMonitorKernel euler_monitor_kernel();
//! (monitor): resets it (speed 0, no bad cell); one thread.
[[nodiscard]] KernelRef<EulerMonitor*> euler_monitor_reset_kernel();

}  // namespace haloflow::kernels
