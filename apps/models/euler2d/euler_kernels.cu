// euler2d's kernels written once per cell (EulerCell, WallCell, MonitorCell), run by 2D-launched
// kernels on the GPU and by row loops on the CPU, so the host executor does the same arithmetic.
// Only +, -, *, / and sqrt (all correctly rounded on both sides); the file is compiled with
// -fmad=false, so the GPU forms no fused multiply-add the CPU would not.

#include <cfloat>
#include <cmath>
#include <cstring>

#include "euler_kernels.hpp"
#include "haloflow/per_cell.cuh"

namespace haloflow::kernels {
namespace {

//! Primitive variables in a face's frame: density, normal and tangential velocity, pressure.
struct Prim {
  double r, n, t, p;
};
//! A flux through a face in that frame: mass, normal and tangential momentum, energy.
struct Flux {
  double m, n, t, e;
};

HALOFLOW_HD inline Prim primitive_x(const double* q, std::int64_t i, std::int64_t fs, double gm1) {
  const double r = q[i];
  const double mu = q[i + fs];
  const double mv = q[i + fs + fs];
  const double e = q[i + fs + fs + fs];
  const double u = mu / r;
  const double v = mv / r;
  return {r, u, v, gm1 * (e - 0.5 * (mu * u + mv * v))};
}

HALOFLOW_HD inline Prim rotate(const Prim& q) {
  return {q.r, q.t, q.n, q.p};
}

HALOFLOW_HD inline double limited(double left, double right, int limiter) {
  if (!(left * right > 0)) return 0.0;
  if (limiter == kMinmod) return fabs(left) < fabs(right) ? left : right;
  return 2.0 * left * right / (left + right);  // van Leer
}

//! Half the limited slope of cell `c` between its neighbours.
HALOFLOW_HD inline Prim half_slope(const Prim& l, const Prim& c, const Prim& r, int limiter) {
  return {
      0.5 * limited(c.r - l.r, r.r - c.r, limiter), 0.5 * limited(c.n - l.n, r.n - c.n, limiter),
      0.5 * limited(c.t - l.t, r.t - c.t, limiter), 0.5 * limited(c.p - l.p, r.p - c.p, limiter)};
}

HALOFLOW_HD inline Flux physical_flux(const Prim& q, double energy) {
  const double m = q.r * q.n;
  return {m, m * q.n + q.p, m * q.t, q.n * (energy + q.p)};
}

HALOFLOW_HD inline double total_energy(const Prim& q, double gm1) {
  return q.p / gm1 + 0.5 * q.r * (q.n * q.n + q.t * q.t);
}

//! HLLC (Toro), with Davis's wave-speed estimates.
HALOFLOW_HD inline Flux hllc(const Prim& l, const Prim& r, double gamma) {
  const double gm1 = gamma - 1.0;
  const double cl = sqrt(gamma * l.p / l.r);
  const double cr = sqrt(gamma * r.p / r.r);
  const double el = total_energy(l, gm1);
  const double er = total_energy(r, gm1);
  const double sl = fmin(l.n - cl, r.n - cr);
  const double sr = fmax(l.n + cl, r.n + cr);
  const Flux fl = physical_flux(l, el);
  if (sl >= 0.0) return fl;
  const Flux fr = physical_flux(r, er);
  if (sr <= 0.0) return fr;
  const double ml = l.r * (sl - l.n);
  const double mr = r.r * (sr - r.n);
  const double star = (r.p - l.p + l.n * ml - r.n * mr) / (ml - mr);
  const Prim& q = star >= 0.0 ? l : r;
  const double s = star >= 0.0 ? sl : sr;
  const double m = star >= 0.0 ? ml : mr;
  const double e = star >= 0.0 ? el : er;
  const Flux& f = star >= 0.0 ? fl : fr;
  const double scale = m / (s - star);  // rho*_K
  const double us_r = scale;
  const double us_n = scale * star;
  const double us_t = scale * q.t;
  const double us_e = scale * (e / q.r + (star - q.n) * (star + q.p / m));
  return {f.m + s * (us_r - q.r), f.n + s * (us_n - q.r * q.n), f.t + s * (us_t - q.r * q.t),
          f.e + s * (us_e - e)};
}

HALOFLOW_HD inline Flux rusanov(const Prim& l, const Prim& r, double gamma) {
  const double gm1 = gamma - 1.0;
  const double el = total_energy(l, gm1);
  const double er = total_energy(r, gm1);
  const double s = fmax(fabs(l.n) + sqrt(gamma * l.p / l.r), fabs(r.n) + sqrt(gamma * r.p / r.r));
  const Flux fl = physical_flux(l, el);
  const Flux fr = physical_flux(r, er);
  return {0.5 * (fl.m + fr.m) - 0.5 * s * (r.r - l.r),
          0.5 * (fl.n + fr.n) - 0.5 * s * (r.r * r.n - l.r * l.n),
          0.5 * (fl.t + fr.t) - 0.5 * s * (r.r * r.t - l.r * l.t),
          0.5 * (fl.e + fr.e) - 0.5 * s * (er - el)};
}

//! The flux through the face between cells 1 and 2 of four consecutive cells: the same call,
//! with the same arguments, from the cells on both sides, so both see the same flux and the
//! update is conservative to round-off.
HALOFLOW_HD inline Flux face_flux(const Prim& q0, const Prim& q1, const Prim& q2, const Prim& q3,
                                  const EulerStage& s) {
  const Prim d1 = half_slope(q0, q1, q2, s.limiter);
  const Prim d2 = half_slope(q1, q2, q3, s.limiter);
  const Prim l{q1.r + d1.r, q1.n + d1.n, q1.t + d1.t, q1.p + d1.p};
  const Prim r{q2.r - d2.r, q2.n - d2.n, q2.t - d2.t, q2.p - d2.p};
  return s.flux == kRusanov ? rusanov(l, r, s.gamma) : hllc(l, r, s.gamma);
}

struct EulerCell {
  static HALOFLOW_HD void apply(std::int64_t i, std::int64_t sy, const EulerStage& s,
                                const double* base, const double* __restrict__ in, double* out) {
    const std::int64_t fs = s.field_stride;
    const double gm1 = s.gamma - 1.0;
    const Prim c = primitive_x(in, i, fs, gm1);
    const Prim xm2 = primitive_x(in, i - 2, fs, gm1);
    const Prim xm1 = primitive_x(in, i - 1, fs, gm1);
    const Prim xp1 = primitive_x(in, i + 1, fs, gm1);
    const Prim xp2 = primitive_x(in, i + 2, fs, gm1);
    const Flux fl = face_flux(xm2, xm1, c, xp1, s);
    const Flux fr = face_flux(xm1, c, xp1, xp2, s);
    const Prim ym2 = rotate(primitive_x(in, i - sy - sy, fs, gm1));
    const Prim ym1 = rotate(primitive_x(in, i - sy, fs, gm1));
    const Prim yp1 = rotate(primitive_x(in, i + sy, fs, gm1));
    const Prim yp2 = rotate(primitive_x(in, i + sy + sy, fs, gm1));
    const Prim cy = rotate(c);
    const Flux gb = face_flux(ym2, ym1, cy, yp1, s);
    const Flux gt = face_flux(ym1, cy, yp1, yp2, s);
    // Rotated back: in the y frame the normal momentum is rho v, the tangential rho u.
    const double d[4] = {s.dt_dx * (fr.m - fl.m) + s.dt_dy * (gt.m - gb.m),
                         s.dt_dx * (fr.n - fl.n) + s.dt_dy * (gt.t - gb.t),
                         s.dt_dx * (fr.t - fl.t) + s.dt_dy * (gt.n - gb.n),
                         s.dt_dx * (fr.e - fl.e) + s.dt_dy * (gt.e - gb.e)};
    std::int64_t at = i;
    for (int f = 0; f < 4; ++f, at += fs) out[at] = s.a * base[at] + s.b * (in[at] - d[f]);
  }
};

__global__ void euler_stage_rows(CellBox box, EulerStage s, const double* base,
                                 const double* __restrict__ in, double* out) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= box.x0 + box.nx) return;
  // Indices advance by additions: no 64-bit multiply per cell.
  const int rows = static_cast<int>(gridDim.y * blockDim.y);
  const std::int64_t row_step = rows * box.stride_y;
  int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  std::int64_t i = x + (box.y0 + y) * box.stride_y + box.z0 * box.stride_z;
  for (; y < box.ny; y += rows, i += row_step) EulerCell::apply(i, box.stride_y, s, base, in, out);
}

void euler_stage_on_host(const LaunchShape& /*shape*/, CellBox box, EulerStage s,
                         const double* base, const double* in, double* out) {
  std::int64_t row = box.y0 * box.stride_y + box.z0 * box.stride_z;
  for (std::int64_t y = 0; y < box.ny; ++y, row += box.stride_y) {
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
      EulerCell::apply(row + x, box.stride_y, s, base, in, out);
    }
  }
}

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

struct MonitorCell {
  //! The cell's wave-speed sum, or -1 for a bad cell (non-positive density or pressure, NaN,
  //! infinity).
  static HALOFLOW_HD double apply(std::int64_t i, const EulerMonitorParams& m, const double* q) {
    const std::int64_t fs = m.field_stride;
    const Prim p = primitive_x(q, i, fs, m.gamma - 1.0);
    if (!(p.r > 0.0) || !(p.p > 0.0)) return -1.0;
    const double c = sqrt(m.gamma * p.p / p.r);
    const double s = (fabs(p.n) + c) * m.inv_dx + (fabs(p.t) + c) * m.inv_dy;
    return s <= DBL_MAX ? s : -1.0;
  }
};

HALOFLOW_HD inline unsigned long long bits_of(double value) {
  unsigned long long bits = 0;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

__global__ void euler_monitor_rows(CellBox box, EulerMonitorParams m, const double* q,
                                   EulerMonitor* out) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Non-negative doubles order as their bits: the maximum is taken on the bits.
  unsigned long long speed = 0;
  unsigned long long bad = ~0ULL;
  if (x < box.x0 + box.nx) {
    const int rows = static_cast<int>(gridDim.y * blockDim.y);
    const std::int64_t row_step = rows * box.stride_y;
    int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    std::int64_t i = x + (box.y0 + y) * box.stride_y + box.z0 * box.stride_z;
    for (; y < box.ny; y += rows, i += row_step) {
      const double s = MonitorCell::apply(i, m, q);
      if (s < 0.0) {
        bad = min(bad, static_cast<unsigned long long>(i));
      } else {
        speed = max(speed, bits_of(s));
      }
    }
  }
  __shared__ unsigned long long warp_speed[32];
  __shared__ unsigned long long warp_bad[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    speed = max(speed, __shfl_down_sync(0xffffffffU, speed, offset));
    bad = min(bad, __shfl_down_sync(0xffffffffU, bad, offset));
  }
  const unsigned thread = threadIdx.x + blockDim.x * threadIdx.y;
  const unsigned warps = blockDim.x * blockDim.y / 32;
  if (thread % 32 == 0) {
    warp_speed[thread / 32] = speed;
    warp_bad[thread / 32] = bad;
  }
  __syncthreads();
  if (thread >= 32) return;
  speed = thread < warps ? warp_speed[thread] : 0ULL;
  bad = thread < warps ? warp_bad[thread] : ~0ULL;
  for (int offset = 16; offset > 0; offset /= 2) {
    speed = max(speed, __shfl_down_sync(0xffffffffU, speed, offset));
    bad = min(bad, __shfl_down_sync(0xffffffffU, bad, offset));
  }
  if (thread == 0) {
    atomicMax(&out->speed_bits, speed);
    if (bad != ~0ULL) atomicMin(&out->first_bad, bad);
  }
}

void euler_monitor_on_host(const LaunchShape& /*shape*/, CellBox box, EulerMonitorParams m,
                           const double* q, EulerMonitor* out) {
  for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
    const std::int64_t row = y * box.stride_y + box.z0 * box.stride_z;
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
      const double s = MonitorCell::apply(row + x, m, q);
      const auto i = static_cast<unsigned long long>(row + x);
      if (s < 0.0) {
        if (i < out->first_bad) out->first_bad = i;
      } else if (bits_of(s) > out->speed_bits) {
        out->speed_bits = bits_of(s);
      }
    }
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

}  // namespace

EulerStageKernel euler_stage_kernel() {
  return {&euler_stage_rows, &euler_stage_on_host, "euler_stage"};
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

}  // namespace haloflow::kernels
