#pragma once
//! \file
//! \brief Compressible Euler in 2D, finite volume (euler2d): one SSP Runge-Kutta stage with MUSCL
//! reconstruction of the primitive variables (minmod or van Leer) and HLLC or Rusanov fluxes; the
//! zero-gradient ghost fill of physical boundaries; the CFL wave-speed reduction, which also finds
//! the first cell with a negative density or pressure or a NaN; and the clock, which turns the
//! reduced wave speed into the step's dt on the device, so that no step waits for the host.
//!
//! The state is one array of four fields (rho, rho u, rho v, E), field f at f * field_stride, each
//! laid out as the halo plan's FieldLayout (two ghost layers). Double precision only.

#include <cstdint>

#include "cell_box.hpp"
#include "haloflow/kernel.hpp"
#include "haloflow/launch.hpp"

namespace haloflow::kernels {

//! Limiter of the MUSCL slopes; kNoLimiter: the central slope, unlimited (second order wherever
//! the solution is smooth, extrema included; for order studies, not for shocks).
enum EulerLimiter : int { kMinmod = 0, kVanLeer = 1, kNoLimiter = 2 };
//! Numerical flux at a face.
enum EulerFlux : int { kHllc = 0, kRusanov = 1 };

//! What every stage of a step reads from device memory: the step's dt over the cell sizes, written
//! by the clock at the start of the frame. `active` 0: the run has stopped (end time reached or a
//! bad state): the stages leave their outputs untouched.
struct EulerStep {
  double dt_dx = 0;
  double dt_dy = 0;
  int active = 0;
};

//! One SSP Runge-Kutta stage, with D = dt/dx (F(i+1/2) - F(i-1/2)) + dt/dy (G(j+1/2) - G(j-1/2))
//! of the stage's input: out = in - D for the first stage (base is not read), otherwise
//! out = base + b ((in - D) - base). That form keeps a uniform state exact and adds no bias to the
//! totals (the Shu-Osher form a base + b (in - D) does, by a + b - 1, e.g. 1/3 + 2/3 in double).
struct EulerStage {
  double b = 1;   //!< weight of the forward-Euler update of `in` (stages after the first)
  int first = 1;  //!< 1: the first stage, out = in - D
  double gamma = 1.4;
  std::int64_t field_stride = 0;  //!< elements between fields
};

//! (box, stage, step, base, in, out): one stage over `box`; `out` may be `base` (each cell reads
//! base only at itself), never `in`. Cells read two cells beyond the box on each side, in x and y.
using EulerStageKernel =
    KernelRef<CellBox, EulerStage, const EulerStep*, const double*, const double*, double*>;
//! The stage for `limiter` and `flux` (one instantiation each, so that no branch on them is left
//! in the kernel). \throws Error for values outside the enums.
[[nodiscard]] EulerStageKernel euler_stage_kernel(int limiter, int flux);
//! The stage kernel's launch geometry for `box`: warps of 32 threads of which 28 write (two on
//! each side only feed their neighbours), `kEulerStageWarps` warps per block stacked in y, each
//! thread walking a run of about `rows_per_thread` rows. \throws Error for an empty box.
[[nodiscard]] LaunchShape euler_stage_launch(const CellBox& box, int rows_per_thread = 16);

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

//! Where a run stands, as the clock kernel leaves it (on the device, and mirrored where the host
//! reads it).
enum EulerRunState : int { kRunning = 0, kReachedEnd = 1, kBadState = 2 };
struct EulerClock {
  double time = 0;            //!< simulated time of the state the current frame writes
  double dt = 0;              //!< the current frame's step (0 once stopped)
  long long steps_taken = 0;  //!< frames that advanced the state
  long long frames = 0;       //!< step frames whose clock has run
  int state = kRunning;       //!< EulerRunState
  long long bad_after = -1;   //!< kBadState: the step whose result was bad (-1: the initial state)
};
struct EulerClockParams {
  double cfl = 0.4;
  double t_end = 0;  //!< 0: never stop
  double dx = 1;
  double dy = 1;
};
//! (params, reduced, monitor, clock, step, mirror), one thread, at the start of every step frame:
//! from `reduced` (the wave speed and bad flag of the current state over every rank) it sets the
//! step's dt = cfl / speed (shortened to reach t_end exactly), advances `clock`, writes `step` for
//! the stages, copies `clock` to `mirror` (pinned memory the host reads without a copy) and resets
//! `monitor` for the frame's own reduction. A bad state or the end time stops the run: `step`
//! inactive, `monitor` kept (it names the bad cell), `clock` frozen but for `frames`.
using EulerClockKernel = KernelRef<EulerClockParams, const EulerMonitor*, EulerMonitor*,
                                   EulerClock*, EulerStep*, EulerClock*>;
[[nodiscard]] EulerClockKernel euler_clock_kernel();

}  // namespace haloflow::kernels
