#pragma once
//! \file
//! \brief euler2d's arithmetic, written once for the GPU and the CPU (HALOFLOW_HD), its stage
//! kernel (a walk along y that computes every face flux once) and the CFL monitor, included by
//! apps/models/euler2d/euler_kernels.cu (the model) and tools/euler-kernel-lab.cu (which checks
//! them bit for bit against the CPU twins and times them), so that the lab measures the code the
//! model runs. Include from `.cu` files only, one per program.
//!
//! GPU and CPU compute the same bits: only +, -, *, /, sqrt, fabs, fmin, fmax (correctly rounded
//! on both) and explicit fused multiply-adds (`fma`: std::fma on the CPU, the same operation on
//! the GPU), and the file is compiled with -fmad=false so that nvcc fuses nothing else. Each face
//! flux is one call with the same arguments wherever it is needed, so the update is conservative to
//! round-off and the GPU, which computes it once, agrees with the CPU twin, which computes it on
//! both sides.

#include <cfloat>
#include <cmath>
#include <cstring>

#include "euler_kernels.hpp"
#include "haloflow/per_cell.cuh"

#if defined(__CUDACC__)
#include <cuda_pipeline.h>
#endif

namespace haloflow::kernels {

//! Primitive variables in a face's frame: density, normal and tangential velocity, pressure.
struct Prim {
  double r, n, t, p;
};
//! A flux through a face in that frame: mass, normal and tangential momentum, energy.
struct Flux {
  double m, n, t, e;
};
//! The gas constants a stage needs, formed once per launch.
struct Gas {
  double gamma, gm1, inv_gm1;
};

HALOFLOW_HD inline Gas gas_of(double gamma) {
  return {gamma, gamma - 1.0, 1.0 / (gamma - 1.0)};
}

//! From the conserved variables (rho, rho u, rho v, E) in the x frame: one division.
HALOFLOW_HD inline Prim primitive(double r, double mu, double mv, double e, double gm1) {
  const double inv = 1.0 / r;
  const double u = mu * inv;
  const double v = mv * inv;
  return {r, u, v, gm1 * (e - 0.5 * fma(mu, u, mv * v))};
}

//! The cell at storage offset `i` of a four-field state.
HALOFLOW_HD inline Prim primitive_at(const double* q, std::int64_t i, std::int64_t fs, double gm1) {
  return primitive(q[i], q[i + fs], q[i + fs + fs], q[i + fs + fs + fs], gm1);
}

//! The y frame: the normal velocity is v, the tangential u.
HALOFLOW_HD inline Prim rotate(const Prim& q) {
  return {q.r, q.t, q.n, q.p};
}

//! Half the limited slope from the one-sided differences `left` and `right` (unlimited: half the
//! central slope (left + right) / 2).
template <int kLimiter>
HALOFLOW_HD inline double half_limited(double left, double right) {
  if constexpr (kLimiter == kNoLimiter) {
    return 0.25 * (left + right);
  } else {
    const double product = left * right;
    if (!(product > 0.0)) return 0.0;
    if constexpr (kLimiter == kMinmod) {
      return 0.5 * (fabs(left) < fabs(right) ? left : right);
    } else {
      return product / (left + right);  // half of van Leer's 2 l r / (l + r)
    }
  }
}

//! Half the limited slope of cell `c` between its neighbours `l` and `r`, per variable.
template <int kLimiter>
HALOFLOW_HD inline Prim half_slope(const Prim& l, const Prim& c, const Prim& r) {
  return {
      half_limited<kLimiter>(c.r - l.r, r.r - c.r), half_limited<kLimiter>(c.n - l.n, r.n - c.n),
      half_limited<kLimiter>(c.t - l.t, r.t - c.t), half_limited<kLimiter>(c.p - l.p, r.p - c.p)};
}

HALOFLOW_HD inline double total_energy(const Prim& q, const Gas& g) {
  return fma(0.5 * q.r, fma(q.n, q.n, q.t * q.t), q.p * g.inv_gm1);
}

HALOFLOW_HD inline Flux physical_flux(const Prim& q, double energy) {
  const double m = q.r * q.n;
  return {m, fma(m, q.n, q.p), m * q.t, q.n * (energy + q.p)};
}

//! HLLC (Toro), with Davis's wave-speed estimates. The side the flux is taken from is chosen
//! before its energy and physical flux are formed, so only that side's are.
HALOFLOW_HD inline Flux hllc(const Prim& l, const Prim& r, const Gas& g) {
  const double il = 1.0 / l.r;
  const double ir = 1.0 / r.r;
  const double cl = sqrt(g.gamma * l.p * il);
  const double cr = sqrt(g.gamma * r.p * ir);
  const double sl = fmin(l.n - cl, r.n - cr);
  const double sr = fmax(l.n + cl, r.n + cr);
  const bool subsonic = sl < 0.0 && sr > 0.0;
  double star = 0;
  double m = 0;
  bool from_left = sl >= 0.0;
  if (subsonic) {
    const double ml = l.r * (sl - l.n);
    const double mr = r.r * (sr - r.n);
    star = fma(l.n, ml, fma(-r.n, mr, r.p - l.p)) / (ml - mr);
    from_left = star >= 0.0;
    m = from_left ? ml : mr;
  }
  const Prim q = from_left ? l : r;
  const double e = total_energy(q, g);
  const Flux f = physical_flux(q, e);
  if (!subsonic) return f;
  const double s = from_left ? sl : sr;
  const double inv = from_left ? il : ir;
  const double scale = m / (s - star);  // rho in the star region on q's side
  const double more = scale - q.r;      // rho* - rho
  // F* = F + s (U* - U), U* = rho* (1, star, q.t, e / rho + (star - q.n) (star + p / m)); the
  // normal momentum rho q.n is f.m exactly.
  return {fma(s, more, f.m), fma(s, scale * star - f.m, f.n), fma(s, q.t * more, f.t),
          fma(s, scale * fma(star - q.n, star + q.p / m, e * inv) - e, f.e)};
}

HALOFLOW_HD inline Flux rusanov(const Prim& l, const Prim& r, const Gas& g) {
  const double el = total_energy(l, g);
  const double er = total_energy(r, g);
  const double s =
      fmax(fabs(l.n) + sqrt(g.gamma * l.p / l.r), fabs(r.n) + sqrt(g.gamma * r.p / r.r));
  const Flux fl = physical_flux(l, el);
  const Flux fr = physical_flux(r, er);
  const double h = -0.5 * s;
  return {fma(h, r.r - l.r, 0.5 * (fl.m + fr.m)), fma(h, fr.m - fl.m, 0.5 * (fl.n + fr.n)),
          fma(h, r.r * r.t - l.r * l.t, 0.5 * (fl.t + fr.t)), fma(h, er - el, 0.5 * (fl.e + fr.e))};
}

//! The flux through the face between cell 1 and cell 2, from their values and half slopes.
template <int kFlux>
HALOFLOW_HD inline Flux face_flux(const Prim& c1, const Prim& s1, const Prim& c2, const Prim& s2,
                                  const Gas& g) {
  const Prim l{c1.r + s1.r, c1.n + s1.n, c1.t + s1.t, c1.p + s1.p};
  const Prim r{c2.r - s2.r, c2.n - s2.n, c2.t - s2.t, c2.p - s2.p};
  if constexpr (kFlux == kRusanov) {
    return rusanov(l, r, g);
  } else {
    return hllc(l, r, g);
  }
}

//! One field of the stage: D from the flux differences, then out = in - D or
//! base + b ((in - D) - base).
HALOFLOW_HD inline double stage_value(double base, double in, double dfx, double dgy,
                                      const EulerStep& step, const EulerStage& s) {
  const double w = in - fma(step.dt_dx, dfx, step.dt_dy * dgy);
  return s.first != 0 ? w : fma(s.b, w - base, base);
}

//! Writes the four fields of cell `i` from the x-face fluxes (F(i-1/2), F(i+1/2)) and the
//! y-face fluxes in the y frame (G(j-1/2), G(j+1/2)); base is read only after the first stage.
HALOFLOW_HD inline void write_stage(std::int64_t i, const Flux& fl, const Flux& fr, const Flux& gb,
                                    const Flux& gt, const EulerStep& step, const EulerStage& s,
                                    const double* base, const double* in, double* out) {
  const std::int64_t fs = s.field_stride;
  const bool first = s.first != 0;
  // Rotated back: in the y frame the normal momentum is rho v, the tangential rho u.
  out[i] = stage_value(first ? 0.0 : base[i], in[i], fr.m - fl.m, gt.m - gb.m, step, s);
  out[i + fs] =
      stage_value(first ? 0.0 : base[i + fs], in[i + fs], fr.n - fl.n, gt.t - gb.t, step, s);
  out[i + 2 * fs] = stage_value(first ? 0.0 : base[i + 2 * fs], in[i + 2 * fs], fr.t - fl.t,
                                gt.n - gb.n, step, s);
  out[i + 3 * fs] = stage_value(first ? 0.0 : base[i + 3 * fs], in[i + 3 * fs], fr.e - fl.e,
                                gt.e - gb.e, step, s);
}

//! Warps of the stage kernel: 32 lanes along x, of which the middle 28 write; lanes 0, 1, 30, 31
//! only load the neighbours the others' slopes and fluxes need.
inline constexpr int kEulerWarpOutputs = 28;
inline constexpr unsigned kEulerStageWarps = 4;  //!< warps per block, stacked in y

#if defined(__CUDACC__)
__device__ inline Prim shuffle_down(const Prim& q) {
  return {__shfl_down_sync(0xffffffffU, q.r, 1), __shfl_down_sync(0xffffffffU, q.n, 1),
          __shfl_down_sync(0xffffffffU, q.t, 1), __shfl_down_sync(0xffffffffU, q.p, 1)};
}
__device__ inline Prim shuffle_up(const Prim& q) {
  return {__shfl_up_sync(0xffffffffU, q.r, 1), __shfl_up_sync(0xffffffffU, q.n, 1),
          __shfl_up_sync(0xffffffffU, q.t, 1), __shfl_up_sync(0xffffffffU, q.p, 1)};
}
__device__ inline Flux shuffle_up(const Flux& f) {
  return {__shfl_up_sync(0xffffffffU, f.m, 1), __shfl_up_sync(0xffffffffU, f.n, 1),
          __shfl_up_sync(0xffffffffU, f.t, 1), __shfl_up_sync(0xffffffffU, f.e, 1)};
}

//! The stage as a walk: each warp owns 28 consecutive columns of the box (plus two on each side)
//! and a run of consecutive rows, each lane one column. Per row it converts one new cell to
//! primitive variables (the row two ahead), forms that column's y slope and the flux through the
//! face above the row (the one below is the last row's, kept in registers), its own x slope from
//! its neighbours' values (warp shuffles) and the flux through its right face; the left face's
//! comes from the lane on the left. So every slope and face flux is computed once, not on both
//! sides, and each cell is converted once. blockDim.x must be 32; rows over grid.y * blockDim.y.
//! kWarps, kMinBlocks: the block's warps and the blocks per SM its registers must allow (the
//! model uses the defaults; tools/euler-kernel-lab.cu sweeps them).
template <int kLimiter, int kFlux, unsigned kWarps = kEulerStageWarps, int kMinBlocks = 1>
__global__ void __launch_bounds__(32 * kWarps, kMinBlocks)
    euler_stage_walk(CellBox box, EulerStage s, const EulerStep* __restrict__ step,
                     const double* base, const double* __restrict__ in, double* out) {
  const EulerStep st = *step;
  if (st.active == 0) return;
  const Gas g = gas_of(s.gamma);
  const int lane = static_cast<int>(threadIdx.x);
  const std::int64_t x_end = box.x0 + box.nx;
  const std::int64_t x =
      box.x0 + static_cast<std::int64_t>(blockIdx.x) * kEulerWarpOutputs + lane - 2;
  // Lanes past the box's second ghost column load that column: their results are never used.
  const std::int64_t x_load = x < x_end + 2 ? x : x_end + 1;
  const bool writes = lane >= 2 && lane < 2 + kEulerWarpOutputs && x < x_end;
  const std::int64_t threads_y = static_cast<std::int64_t>(gridDim.y) * blockDim.y;
  const std::int64_t run = (box.ny + threads_y - 1) / threads_y;
  const std::int64_t first =
      (static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y) * run;
  const std::int64_t last = first + run < box.ny ? first + run : box.ny;
  if (first >= last) return;  // the whole warp: threadIdx.y is the same on its lanes
  const std::int64_t sy = box.stride_y;
  const std::int64_t fs = s.field_stride;
  std::int64_t i = x_load + (box.y0 + first) * sy + box.z0 * box.stride_z;
  const Prim below2 = primitive_at(in, i - 2 * sy, fs, g.gm1);
  const Prim below = primitive_at(in, i - sy, fs, g.gm1);
  Prim centre = primitive_at(in, i, fs, g.gm1);
  Prim above = primitive_at(in, i + sy, fs, g.gm1);
  // y slopes and fluxes in the y frame.
  const Prim slope_below = half_slope<kLimiter>(rotate(below2), rotate(below), rotate(centre));
  Prim slope_centre = half_slope<kLimiter>(rotate(below), rotate(centre), rotate(above));
  Flux g_below = face_flux<kFlux>(rotate(below), slope_below, rotate(centre), slope_centre, g);
#pragma unroll 1
  for (std::int64_t y = first; y < last; ++y, i += sy) {
    const Prim above2 = primitive_at(in, i + 2 * sy, fs, g.gm1);
    const Prim slope_above = half_slope<kLimiter>(rotate(centre), rotate(above), rotate(above2));
    const Flux g_above =
        face_flux<kFlux>(rotate(centre), slope_centre, rotate(above), slope_above, g);
    const Prim left = shuffle_up(centre);
    const Prim right = shuffle_down(centre);
    const Prim slope_x = half_slope<kLimiter>(left, centre, right);
    const Prim slope_right = shuffle_down(slope_x);
    const Flux f_right = face_flux<kFlux>(centre, slope_x, right, slope_right, g);
    const Flux f_left = shuffle_up(f_right);
    if (writes) write_stage(i, f_left, f_right, g_below, g_above, st, s, base, in, out);
    centre = above;
    above = above2;
    slope_centre = slope_above;
    g_below = g_above;
  }
}

//! The same walk with the rows staged through shared memory by asynchronous copies (cp.async):
//! each lane copies the conserved values of the row three ahead of the one it updates, and of
//! `base` one row ahead, into its own slots of a ring (4 rows of `in`, 2 of `base`), so that the
//! loads are in flight while the row before is computed and hold no registers; the update reads
//! `in` and `base` back from the ring. Each lane reads only what it copied itself, so the copies'
//! wait (cp.async.wait_group) is the only synchronisation. Same arithmetic, same bits.
template <int kLimiter, int kFlux, unsigned kWarps = kEulerStageWarps, int kMinBlocks = 1>
__global__ void __launch_bounds__(32 * kWarps, kMinBlocks)
    euler_stage_staged(CellBox box, EulerStage s, const EulerStep* __restrict__ step,
                       const double* base, const double* __restrict__ in, double* out) {
  __shared__ double rows[kWarps][4][4][32];       // [warp][row % 4][field][lane]
  __shared__ double base_rows[kWarps][2][4][32];  // [warp][row % 2][field][lane]
  const EulerStep st = *step;
  if (st.active == 0) return;
  const Gas g = gas_of(s.gamma);
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned warp = threadIdx.y;
  const std::int64_t x_end = box.x0 + box.nx;
  const std::int64_t x =
      box.x0 + static_cast<std::int64_t>(blockIdx.x) * kEulerWarpOutputs + lane - 2;
  const std::int64_t x_load = x < x_end + 2 ? x : x_end + 1;
  const bool writes = lane >= 2 && lane < 2 + kEulerWarpOutputs && x < x_end;
  const std::int64_t threads_y = static_cast<std::int64_t>(gridDim.y) * blockDim.y;
  const std::int64_t run = (box.ny + threads_y - 1) / threads_y;
  const std::int64_t first =
      (static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y) * run;
  const std::int64_t last = first + run < box.ny ? first + run : box.ny;
  if (first >= last) return;  // the whole warp
  const std::int64_t sy = box.stride_y;
  const std::int64_t fs = s.field_stride;
  const bool with_base = s.first == 0;
  // Row r (box coordinates) of `in` into its ring slot; of `base` into its slot.
  const auto stage_in = [&](std::int64_t r) {
    const std::int64_t at = x_load + (box.y0 + r) * sy + box.z0 * box.stride_z;
    const int slot = static_cast<int>((r - first) & 3);
    for (int f = 0; f < 4; ++f) {
      __pipeline_memcpy_async(&rows[warp][slot][f][lane], in + at + f * fs, sizeof(double));
    }
  };
  const auto stage_base = [&](std::int64_t r) {
    const std::int64_t at = x_load + (box.y0 + r) * sy + box.z0 * box.stride_z;
    const int slot = static_cast<int>((r - first) & 1);
    for (int f = 0; f < 4; ++f) {
      __pipeline_memcpy_async(&base_rows[warp][slot][f][lane], base + at + f * fs, sizeof(double));
    }
  };
  const auto staged = [&](std::int64_t r) {
    const int slot = static_cast<int>((r - first) & 3);
    return primitive(rows[warp][slot][0][lane], rows[warp][slot][1][lane],
                     rows[warp][slot][2][lane], rows[warp][slot][3][lane], g.gm1);
  };
  std::int64_t i = x_load + (box.y0 + first) * sy + box.z0 * box.stride_z;
  stage_in(first);
  stage_in(first + 1);
  stage_in(first + 2);
  if (with_base) stage_base(first);
  __pipeline_commit();
  const Prim below2 = primitive_at(in, i - 2 * sy, fs, g.gm1);
  const Prim below = primitive_at(in, i - sy, fs, g.gm1);
  __pipeline_wait_prior(0);
  Prim centre = staged(first);
  Prim above = staged(first + 1);
  const Prim slope_below = half_slope<kLimiter>(rotate(below2), rotate(below), rotate(centre));
  Prim slope_centre = half_slope<kLimiter>(rotate(below), rotate(centre), rotate(above));
  Flux g_below = face_flux<kFlux>(rotate(below), slope_below, rotate(centre), slope_centre, g);
#pragma unroll 1
  for (std::int64_t y = first; y < last; ++y, i += sy) {
    // In flight while this row is computed: `in` three rows ahead, `base` one row ahead.
    if (y + 1 < last) {
      stage_in(y + 3);
      if (with_base) stage_base(y + 1);
    }
    __pipeline_commit();
    // x first: its flux differences (4 values) are all it leaves for the y part.
    const Prim left = shuffle_up(centre);
    const Prim right = shuffle_down(centre);
    const Prim slope_x = half_slope<kLimiter>(left, centre, right);
    const Prim slope_right = shuffle_down(slope_x);
    const Flux f_right = face_flux<kFlux>(centre, slope_x, right, slope_right, g);
    const Flux f_left = shuffle_up(f_right);
    const double dfx[4] = {f_right.m - f_left.m, f_right.n - f_left.n, f_right.t - f_left.t,
                           f_right.e - f_left.e};
    __pipeline_wait_prior(1);  // everything but the copies just issued: row y + 2 is in
    const Prim above2 = staged(y + 2);
    const Prim slope_above = half_slope<kLimiter>(rotate(centre), rotate(above), rotate(above2));
    const Flux g_above =
        face_flux<kFlux>(rotate(centre), slope_centre, rotate(above), slope_above, g);
    if (writes) {
      const int slot = static_cast<int>((y - first) & 3);
      const int base_slot = static_cast<int>((y - first) & 1);
      const double* q = &rows[warp][slot][0][0];
      const double* b = &base_rows[warp][base_slot][0][0];
      // Rotated back: in the y frame the normal momentum is rho v, the tangential rho u.
      const double dgy[4] = {g_above.m - g_below.m, g_above.t - g_below.t, g_above.n - g_below.n,
                             g_above.e - g_below.e};
      for (int f = 0; f < 4; ++f) {
        out[i + f * fs] = stage_value(with_base ? b[f * 32 + lane] : 0.0, q[f * 32 + lane], dfx[f],
                                      dgy[f], st, s);
      }
    }
    centre = above;
    above = above2;
    slope_centre = slope_above;
    g_below = g_above;
  }
}
#endif

//! The CPU twin: each cell in row order, its four faces each from the same call the GPU makes
//! once (the slopes of the three cells around each face, then face_flux).
template <int kLimiter, int kFlux>
void euler_stage_on_host(const LaunchShape& /*shape*/, CellBox box, EulerStage s,
                         const EulerStep* step, const double* base, const double* in, double* out) {
  const EulerStep st = *step;
  if (st.active == 0) return;
  const Gas g = gas_of(s.gamma);
  const std::int64_t fs = s.field_stride;
  const std::int64_t sy = box.stride_y;
  const auto at = [&](std::int64_t i) { return primitive_at(in, i, fs, g.gm1); };
  for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
    const std::int64_t row = y * sy + box.z0 * box.stride_z;
    for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
      const std::int64_t i = row + x;
      const Prim c = at(i);
      const Prim xm2 = at(i - 2), xm1 = at(i - 1), xp1 = at(i + 1), xp2 = at(i + 2);
      const Prim sxm1 = half_slope<kLimiter>(xm2, xm1, c);
      const Prim sx = half_slope<kLimiter>(xm1, c, xp1);
      const Prim sxp1 = half_slope<kLimiter>(c, xp1, xp2);
      const Flux fl = face_flux<kFlux>(xm1, sxm1, c, sx, g);
      const Flux fr = face_flux<kFlux>(c, sx, xp1, sxp1, g);
      const Prim ym2 = rotate(at(i - 2 * sy)), ym1 = rotate(at(i - sy));
      const Prim yp1 = rotate(at(i + sy)), yp2 = rotate(at(i + 2 * sy));
      const Prim cy = rotate(c);
      const Prim sym1 = half_slope<kLimiter>(ym2, ym1, cy);
      const Prim sy0 = half_slope<kLimiter>(ym1, cy, yp1);
      const Prim syp1 = half_slope<kLimiter>(cy, yp1, yp2);
      const Flux gb = face_flux<kFlux>(ym1, sym1, cy, sy0, g);
      const Flux gt = face_flux<kFlux>(cy, sy0, yp1, syp1, g);
      write_stage(i, fl, fr, gb, gt, st, s, base, in, out);
    }
  }
}

struct MonitorCell {
  //! The cell's wave-speed sum, or -1 for a bad cell (non-positive density or pressure, NaN,
  //! infinity).
  static HALOFLOW_HD double apply(std::int64_t i, const EulerMonitorParams& m, const double* q) {
    const std::int64_t fs = m.field_stride;
    const Prim p = primitive_at(q, i, fs, m.gamma - 1.0);
    if (!(p.r > 0.0) || !(p.p > 0.0)) return -1.0;
    const double c = sqrt(m.gamma * p.p / p.r);
    // Both terms rounded alike and added (commutative): the same bits for a state and its
    // transpose (x and y, and dx and dy, swapped), so sod-y steps exactly as sod-x transposed.
    const double s = (fabs(p.n) + c) * m.inv_dx + (fabs(p.t) + c) * m.inv_dy;
    return s <= DBL_MAX ? s : -1.0;
  }
};

HALOFLOW_HD inline unsigned long long bits_of(double value) {
  unsigned long long bits = 0;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

HALOFLOW_HD inline double double_of(unsigned long long bits) {
  double value = 0;
  memcpy(&value, &bits, sizeof value);
  return value;
}

#if defined(__CUDACC__)
//! Rows strided over grid.y * blockDim.y; one atomicMax / atomicMin per block.
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
#endif

inline void euler_monitor_on_host(const LaunchShape& /*shape*/, CellBox box, EulerMonitorParams m,
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

}  // namespace haloflow::kernels
