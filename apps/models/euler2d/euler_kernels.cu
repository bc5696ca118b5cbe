// euler2d's kernels for the engine: the stage walk and the monitor from euler_kernels.cuh (shared
// with tools/euler-kernel-lab.cu), the wall ghost fill and the clock, each with its CPU twin, so
// that the host executor runs the same frames. Compiled with -fmad=false (apps/CMakeLists.txt):
// the only fused multiply-adds are the explicit ones, which the CPU twins make too.

#include <algorithm>
#include <string>

#include "euler_kernels.cuh"
#include "haloflow/error.hpp"

namespace haloflow::kernels {
namespace {

struct WallCell {
  static HALOFLOW_HD void apply(std::int64_t x, std::int64_t y, const CellBox& box,
                                const EulerWall& w, double* q) {
    const std::int64_t to = x + y * box.stride_y + box.z0 * box.stride_z;
    const std::int64_t from = w.axis == 0 ? w.edge + y * box.stride_y + box.z0 * box.stride_z
                                          : x + w.edge * box.stride_y + box.z0 * box.stride_z;
    for (int f = 0; f < 4; ++f) q[to + f * w.field_stride] = q[from + f * w.field_stride];
  }
};

__global__ void euler_wall_rows(CellBox box, EulerWall w, double* q) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= box.x0 + box.nx) return;
  const int rows = static_cast<int>(gridDim.y * blockDim.y);
  for (int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); y < box.ny; y += rows) {
    WallCell::apply(x, box.y0 + y, box, w, q);
  }
}

void euler_wall_on_host(const LaunchShape& /*shape*/, CellBox box, EulerWall w, double* q) {
  for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) WallCell::apply(x, y, box, w, q);
  }
}

__global__ void euler_monitor_reset(EulerMonitor* m) {
  m->speed_bits = 0;
  m->first_bad = ~0ULL;
}

void euler_monitor_reset_on_host(const LaunchShape& /*shape*/, EulerMonitor* m) {
  m->speed_bits = 0;
  m->first_bad = ~0ULL;
}

//! The clock's step, the same on both sides (the division and the comparisons are exact
//! operations, so every rank, and the CPU, get the same dt and time).
struct ClockCell {
  static HALOFLOW_HD void apply(const EulerClockParams& p, const EulerMonitor* reduced,
                                EulerMonitor* monitor, EulerClock* clock, EulerStep* step,
                                EulerClock* mirror) {
    EulerClock c = *clock;
    if (c.state == kRunning) {
      const EulerMonitor m = *reduced;
      if (m.first_bad != ~0ULL) {
        c.state = kBadState;
        c.bad_after = c.frames - 1;
      } else if (p.t_end > 0 && c.time >= p.t_end) {
        c.state = kReachedEnd;
      } else {
        // dt from the state at the start of this step (the previous frame's monitor).
        double dt = p.cfl / double_of(m.speed_bits);
        if (p.t_end > 0 && c.time + dt >= p.t_end) dt = p.t_end - c.time;
        c.time = p.t_end > 0 && dt == p.t_end - c.time ? p.t_end : c.time + dt;
        c.dt = dt;
        ++c.steps_taken;
      }
    }
    const bool active = c.state == kRunning;
    if (!active) c.dt = 0;
    *step = EulerStep{.dt_dx = active ? c.dt / p.dx : 0.0,
                      .dt_dy = active ? c.dt / p.dy : 0.0,
                      .active = active ? 1 : 0};
    if (active) {  // a stopped run keeps the monitor: it names the bad cell
      monitor->speed_bits = 0;
      monitor->first_bad = ~0ULL;
    }
    ++c.frames;
    *clock = c;
    *mirror = c;
  }
};

__global__ void euler_clock(EulerClockParams p, const EulerMonitor* reduced, EulerMonitor* monitor,
                            EulerClock* clock, EulerStep* step, EulerClock* mirror) {
  ClockCell::apply(p, reduced, monitor, clock, step, mirror);
}

void euler_clock_on_host(const LaunchShape& /*shape*/, EulerClockParams p,
                         const EulerMonitor* reduced, EulerMonitor* monitor, EulerClock* clock,
                         EulerStep* step, EulerClock* mirror) {
  ClockCell::apply(p, reduced, monitor, clock, step, mirror);
}

// The stage staged through shared memory, at most 96 registers (5 blocks of 4 warps per SM): the
// fastest on an H200 of tools/euler-kernel-lab.cu's variants, faster than 128 registers and than
// the walk without the ring at 96 (the times: docs/benchmarks.md).
constexpr int kStageMinBlocks = 5;

template <int kLimiter, int kFlux>
EulerStageKernel stage_kernel() {
  return {&euler_stage_staged<kLimiter, kFlux, kEulerStageWarps, kStageMinBlocks>,
          &euler_stage_on_host<kLimiter, kFlux>, "euler_stage"};
}

}  // namespace

EulerStageKernel euler_stage_kernel(int limiter, int flux) {
  if (limiter == kVanLeer && flux == kHllc) return stage_kernel<kVanLeer, kHllc>();
  if (limiter == kVanLeer && flux == kRusanov) return stage_kernel<kVanLeer, kRusanov>();
  if (limiter == kMinmod && flux == kHllc) return stage_kernel<kMinmod, kHllc>();
  if (limiter == kMinmod && flux == kRusanov) return stage_kernel<kMinmod, kRusanov>();
  if (limiter == kNoLimiter && flux == kHllc) return stage_kernel<kNoLimiter, kHllc>();
  if (limiter == kNoLimiter && flux == kRusanov) return stage_kernel<kNoLimiter, kRusanov>();
  throw Error("euler stage kernel: limiter " + std::to_string(limiter) + " and flux " +
              std::to_string(flux) +
              " are not allowed; expected limiter 0 (minmod), 1 (van Leer) or 2 (none) and flux 0 "
              "(HLLC) or 1 (Rusanov)");
}

LaunchShape euler_stage_launch(const CellBox& box, int rows_per_thread) {
  if (box.nx < 1 || box.ny < 1 || rows_per_thread < 1) {
    throw Error("euler stage launch: a box of " + std::to_string(box.nx) + " x " +
                std::to_string(box.ny) + " cells with " + std::to_string(rows_per_thread) +
                " rows per thread is not allowed; expected at least one cell per axis and one row "
                "per thread");
  }
  constexpr std::int64_t kGridLimit = 65535;  // CUDA's limit on grid.y (the run grows past it)
  const std::int64_t columns = (box.nx + kEulerWarpOutputs - 1) / kEulerWarpOutputs;
  const std::int64_t band = std::int64_t{kEulerStageWarps} * rows_per_thread;
  const std::int64_t rows = std::min((box.ny + band - 1) / band, kGridLimit);
  if (columns > 0x7fffffff) {
    throw Error("euler stage launch: " + std::to_string(box.nx) + " cells along x need " +
                std::to_string(columns) + " blocks, over CUDA's limit");
  }
  return LaunchShape{.grid = {static_cast<unsigned>(columns), static_cast<unsigned>(rows), 1},
                     .block = {32, kEulerStageWarps, 1}};
}

EulerWallKernel euler_wall_kernel() {
  return {&euler_wall_rows, &euler_wall_on_host, "euler_wall"};
}

EulerMonitorKernel euler_monitor_kernel() {
  return {&euler_monitor_rows, &euler_monitor_on_host, "euler_monitor"};
}

KernelRef<EulerMonitor*> euler_monitor_reset_kernel() {
  return {&euler_monitor_reset, &euler_monitor_reset_on_host, "euler_monitor_reset"};
}

EulerClockKernel euler_clock_kernel() {
  return {&euler_clock, &euler_clock_on_host, "euler_clock"};
}

}  // namespace haloflow::kernels
