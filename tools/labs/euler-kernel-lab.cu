// What binds euler2d's stage, and how close to the floors do the forms of
// apps/models/euler2d/euler_kernels.cuh get? A stand-alone measurement, built with the project
// (tools/labs/CMakeLists.txt: target euler-kernel-lab, compiled as the model compiles
// euler_kernels.cu, -fmad=false) and run by tools/kernel-labs on the GPU machine:
//   build/labs/euler-kernel-lab [profile]
// (euler-kernel-lab-fmad, -fmad=true -DLAB_FMAD, shows what the guard costs; its bits then differ
// from the CPU).
// Fields as euler2d lays them out (two ghost layers, four fields): the vortex at 4096^2 (the
// benchmark) and a random state at 1024^2 with velocities up to Mach 2.5, so that every branch of
// the limiters and of HLLC is taken. Checks: every instantiation (limiter x flux) and every stage
// form (first, b = 1/4, b = 2/3) of both kernels, the register walk (euler_stage_walk) and the walk
// staged through shared memory (euler_stage_staged, the model's), bit for bit against the CPU twin
// on the random state, the walk also on the vortex; every timed shape and register budget bit for
// bit against that. Timing: medians of 15 launches; the old kernel
// (apps/models/euler2d/euler_kernels.cu at e7bbe00, one thread per cell, four faces each) beside
// them; the monitor with 4 to 32 rows per thread; a whole RK3 step's device work (3 stages and the
// monitor) for the old kernel and both forms. `profile`: the old stage, both new ones and the
// monitor once each, for Nsight Compute.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include "lab_timing.cuh"

#include "euler_kernels.cuh"

namespace hk = haloflow::kernels;
using hk::CellBox;
using hk::EulerStage;
using hk::EulerStep;

// The model's stage before this lab (apps/models/euler2d/euler_kernels.cu at e7bbe00), for timing:
// one thread per cell, every cell converting its nine neighbours and computing its four face
// fluxes.
namespace old_euler {

struct Prim {
  double r, n, t, p;
};
struct Flux {
  double m, n, t, e;
};
struct Stage {
  double a, b, dt_dx, dt_dy, gamma;
  std::int64_t field_stride;
  int limiter, flux;
};

__device__ inline Prim primitive_x(const double* q, std::int64_t i, std::int64_t fs, double gm1) {
  const double r = q[i];
  const double mu = q[i + fs];
  const double mv = q[i + fs + fs];
  const double e = q[i + fs + fs + fs];
  const double u = mu / r;
  const double v = mv / r;
  return {r, u, v, gm1 * (e - 0.5 * (mu * u + mv * v))};
}
__device__ inline Prim rotate(const Prim& q) {
  return {q.r, q.t, q.n, q.p};
}
__device__ inline double limited(double left, double right, int limiter) {
  if (!(left * right > 0)) return 0.0;
  if (limiter == hk::kMinmod) return fabs(left) < fabs(right) ? left : right;
  return 2.0 * left * right / (left + right);
}
__device__ inline Prim half_slope(const Prim& l, const Prim& c, const Prim& r, int limiter) {
  return {
      0.5 * limited(c.r - l.r, r.r - c.r, limiter), 0.5 * limited(c.n - l.n, r.n - c.n, limiter),
      0.5 * limited(c.t - l.t, r.t - c.t, limiter), 0.5 * limited(c.p - l.p, r.p - c.p, limiter)};
}
__device__ inline Flux physical_flux(const Prim& q, double energy) {
  const double m = q.r * q.n;
  return {m, m * q.n + q.p, m * q.t, q.n * (energy + q.p)};
}
__device__ inline double total_energy(const Prim& q, double gm1) {
  return q.p / gm1 + 0.5 * q.r * (q.n * q.n + q.t * q.t);
}
__device__ inline Flux hllc(const Prim& l, const Prim& r, double gamma) {
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
  const double scale = m / (s - star);
  const double us_e = scale * (e / q.r + (star - q.n) * (star + q.p / m));
  return {f.m + s * (scale - q.r), f.n + s * (scale * star - q.r * q.n),
          f.t + s * (scale * q.t - q.r * q.t), f.e + s * (us_e - e)};
}
__device__ inline Flux face_flux(const Prim& q0, const Prim& q1, const Prim& q2, const Prim& q3,
                                 const Stage& s) {
  const Prim d1 = half_slope(q0, q1, q2, s.limiter);
  const Prim d2 = half_slope(q1, q2, q3, s.limiter);
  const Prim l{q1.r + d1.r, q1.n + d1.n, q1.t + d1.t, q1.p + d1.p};
  const Prim r{q2.r - d2.r, q2.n - d2.n, q2.t - d2.t, q2.p - d2.p};
  return hllc(l, r, s.gamma);
}
__device__ inline void apply(std::int64_t i, std::int64_t sy, const Stage& s, const double* base,
                             const double* __restrict__ in, double* out) {
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
  const double d[4] = {s.dt_dx * (fr.m - fl.m) + s.dt_dy * (gt.m - gb.m),
                       s.dt_dx * (fr.n - fl.n) + s.dt_dy * (gt.t - gb.t),
                       s.dt_dx * (fr.t - fl.t) + s.dt_dy * (gt.n - gb.n),
                       s.dt_dx * (fr.e - fl.e) + s.dt_dy * (gt.e - gb.e)};
  std::int64_t at = i;
  for (int f = 0; f < 4; ++f, at += fs) out[at] = s.a * base[at] + s.b * (in[at] - d[f]);
}
__global__ void stage_rows(CellBox box, Stage s, const double* base, const double* __restrict__ in,
                           double* out) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= box.x0 + box.nx) return;
  const int rows = static_cast<int>(gridDim.y * blockDim.y);
  const std::int64_t row_step = rows * box.stride_y;
  int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  std::int64_t i = x + (box.y0 + y) * box.stride_y + box.z0 * box.stride_z;
  for (; y < box.ny; y += rows, i += row_step) apply(i, box.stride_y, s, base, in, out);
}

}  // namespace old_euler

namespace {

__global__ void fma_rate(double* out, int rounds) {
  double v[8];
  for (int k = 0; k < 8; ++k) v[k] = threadIdx.x * 1e-9 + k;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = fma(v[k], 0.999999, 1e-7);
  }
  double sum = 0;
  for (int k = 0; k < 8; ++k) sum += v[k];
  if (sum == 12345.0) out[0] = sum;
}

__global__ void copy(const double2* __restrict__ a, double2* __restrict__ b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    b[i] = a[i];
  }
}

__global__ void reset_monitor(hk::EulerMonitor* m) {
  m->speed_bits = 0;
  m->first_bad = ~0ULL;
}

// A state of n x n owned cells with two ghost layers, four fields.
struct Field {
  std::int64_t n = 0;
  std::int64_t extent = 0;
  std::int64_t fs = 0;
  std::vector<double> q;
  CellBox box() const {
    return {.x0 = 2,
            .y0 = 2,
            .z0 = 0,
            .nx = n,
            .ny = n,
            .nz = 1,
            .stride_y = extent,
            .stride_z = extent * extent};
  }
};

Field make_field(std::int64_t n) {
  Field f;
  f.n = n;
  f.extent = n + 4;
  f.fs = f.extent * f.extent;
  f.q.assign(static_cast<std::size_t>(4 * f.fs), 0.0);
  return f;
}

// The isentropic vortex as euler2d sets it (strength 5, mean flow (1, 1), [0, 10)^2), ghosts
// periodic.
Field vortex(std::int64_t n, double gamma) {
  Field f = make_field(n);
  const double h = 10.0 / static_cast<double>(n);
  const double pi = std::numbers::pi;
  for (std::int64_t j = -2; j < n + 2; ++j) {
    for (std::int64_t i = -2; i < n + 2; ++i) {
      const std::int64_t pi_ = (i + n) % n, pj = (j + n) % n;
      const double x = (static_cast<double>(pi_) + 0.5) * h - 5.0;
      const double y = (static_cast<double>(pj) + 0.5) * h - 5.0;
      const double r2 = x * x + y * y;
      const double bump = 5.0 / (2.0 * pi) * std::exp(0.5 * (1.0 - r2));
      const double temperature =
          1.0 - (gamma - 1.0) * 25.0 / (8.0 * gamma * pi * pi) * std::exp(1.0 - r2);
      const double rho = std::pow(temperature, 1.0 / (gamma - 1.0));
      const double u = 1.0 - bump * y, v = 1.0 + bump * x, p = std::pow(rho, gamma);
      const std::size_t at = static_cast<std::size_t>((j + 2) * f.extent + (i + 2));
      const std::size_t fs = static_cast<std::size_t>(f.fs);
      f.q[at] = rho;
      f.q[at + fs] = rho * u;
      f.q[at + 2 * fs] = rho * v;
      f.q[at + 3 * fs] = p / (gamma - 1.0) + 0.5 * rho * (u * u + v * v);
    }
  }
  return f;
}

// Every cell random: rho, p in [0.5, 1.5], u, v in [-2.5, 2.5].
Field random_state(std::int64_t n, double gamma, std::uint64_t seed) {
  Field f = make_field(n);
  std::uint64_t s = seed;
  const auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1.0p-53;
  };
  const std::size_t fs = static_cast<std::size_t>(f.fs);
  for (std::size_t at = 0; at < fs; ++at) {
    const double rho = 0.5 + next(), p = 0.5 + next();
    const double u = 5.0 * next() - 2.5, v = 5.0 * next() - 2.5;
    f.q[at] = rho;
    f.q[at + fs] = rho * u;
    f.q[at + 2 * fs] = rho * v;
    f.q[at + 3 * fs] = p / (gamma - 1.0) + 0.5 * rho * (u * u + v * v);
  }
  return f;
}

using HostStage = void (*)(const haloflow::LaunchShape&, CellBox, EulerStage, const EulerStep*,
                           const double*, const double*, double*);

// The CPU twin over the rows in 16 threads.
void host_stage(HostStage twin, const Field& f, const EulerStage& s, const EulerStep& step,
                const std::vector<double>& base, std::vector<double>& out) {
  std::vector<std::thread> threads;
  const int workers = 16;
  const CellBox all = f.box();
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      CellBox part = all;
      part.y0 = all.y0 + all.ny * w / workers;
      part.ny = all.y0 + all.ny * (w + 1) / workers - part.y0;
      twin({}, part, s, &step, base.data(), f.q.data(), out.data());
    });
  }
  for (auto& t : threads) t.join();
}

// Rows of the owned box where the four fields differ from `want`.
std::int64_t differing_rows(const Field& f, const std::vector<double>& got,
                            const std::vector<double>& want) {
  std::int64_t rows = 0;
  for (int field = 0; field < 4; ++field) {
    for (std::int64_t y = 2; y < f.n + 2; ++y) {
      const std::size_t at = static_cast<std::size_t>(field * f.fs + y * f.extent + 2);
      if (std::memcmp(&got[at], &want[at], static_cast<std::size_t>(f.n) * sizeof(double)) != 0)
        ++rows;
    }
  }
  return rows;
}

// kStaged: euler_stage_staged (rows through shared memory by cp.async), else euler_stage_walk.
template <int kLimiter, int kFlux, bool kStaged, unsigned kWarps, int kMinBlocks>
void launch_walk(const CellBox& box, const EulerStage& s, const EulerStep* step, const double* base,
                 const double* in, double* out, int rows_per_thread) {
  const std::int64_t band = std::int64_t{kWarps} * rows_per_thread;
  const dim3 grid(
      static_cast<unsigned>((box.nx + hk::kEulerWarpOutputs - 1) / hk::kEulerWarpOutputs),
      static_cast<unsigned>((box.ny + band - 1) / band));
  if constexpr (kStaged) {
    hk::euler_stage_staged<kLimiter, kFlux, kWarps, kMinBlocks>
        <<<grid, dim3(32, kWarps)>>>(box, s, step, base, in, out);
  } else {
    hk::euler_stage_walk<kLimiter, kFlux, kWarps, kMinBlocks>
        <<<grid, dim3(32, kWarps)>>>(box, s, step, base, in, out);
  }
}

// The two forms as tools/kernel-labs' candidates for the model: the walk (32 x 4, at most 96
// registers so that 5 blocks fit) and the staged walk (the same; and 4 blocks, no spills).
template <int kLimiter, int kFlux>
void walk(const CellBox& box, const EulerStage& s, const EulerStep* step, const double* base,
          const double* in, double* out) {
  launch_walk<kLimiter, kFlux, false, 4, 5>(box, s, step, base, in, out, 16);
}
template <int kLimiter, int kFlux>
void staged(const CellBox& box, const EulerStage& s, const EulerStep* step, const double* base,
            const double* in, double* out) {
  launch_walk<kLimiter, kFlux, true, 4, 5>(box, s, step, base, in, out, 16);
}

}  // namespace

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::strcmp(argv[1], "profile") == 0;
#if defined(LAB_FMAD)
  std::printf(
      "compiled with -fmad=true: NOT the model's setting; the bits are expected to differ "
      "from the CPU twins\n");
#endif
  const double gamma = 1.4;
  const Field big = vortex(4096, gamma);
  const std::size_t big_bytes = big.q.size() * sizeof(double);
  double *u = nullptr, *s1 = nullptr, *s2 = nullptr, *scratch = nullptr;
  EulerStep* step = nullptr;
  hk::EulerMonitor* monitor = nullptr;
  CHECK(cudaMalloc(&u, big_bytes));
  CHECK(cudaMalloc(&s1, big_bytes));
  CHECK(cudaMalloc(&s2, big_bytes));
  CHECK(cudaMalloc(&scratch, sizeof(double)));
  CHECK(cudaMalloc(&step, sizeof(EulerStep)));
  CHECK(cudaMalloc(&monitor, sizeof(hk::EulerMonitor)));
  CHECK(cudaMemcpy(u, big.q.data(), big_bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(s1, big.q.data(), big_bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(s2, big.q.data(), big_bytes, cudaMemcpyHostToDevice));
  const EulerStep the_step{.dt_dx = 0.05, .dt_dy = 0.05, .active = 1};
  CHECK(cudaMemcpy(step, &the_step, sizeof the_step, cudaMemcpyHostToDevice));
  const CellBox box = big.box();
  const EulerStage first{.b = 1.0, .first = 1, .gamma = gamma, .field_stride = big.fs};
  const EulerStage second{.b = 0.25, .first = 0, .gamma = gamma, .field_stride = big.fs};
  const EulerStage third{.b = 2.0 / 3.0, .first = 0, .gamma = gamma, .field_stride = big.fs};
  const old_euler::Stage old_third{1.0 / 3.0, 2.0 / 3.0, 0.05,         0.05,
                                   gamma,     big.fs,    hk::kVanLeer, hk::kHllc};
  const hk::EulerMonitorParams monitor_params{
      .inv_dx = 409.6, .inv_dy = 409.6, .gamma = gamma, .field_stride = big.fs};
  const dim3 old_grid(4096 / 32, 4096 / 8), old_block(32, 8);  // box_launch(box): 1 row each
  const dim3 monitor_grid(4096 / 32, 4096 / 32), monitor_block(32, 8);
  if (profile) {
    old_euler::stage_rows<<<old_grid, old_block>>>(box, old_third, u, s2, s1);
    walk<hk::kVanLeer, hk::kHllc>(box, third, step, u, s2, s1);
    staged<hk::kVanLeer, hk::kHllc>(box, third, step, u, s2, s1);
    hk::euler_monitor_rows<<<monitor_grid, monitor_block>>>(box, monitor_params, u, monitor);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const auto time = [&](const std::function<void()>& launch) {
    return median_us(launch, start, stop, 15, 2);
  };
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double copy_us = time([&] {
    copy<<<sms * 8, 256>>>(reinterpret_cast<const double2*>(u), reinterpret_cast<double2*>(s1),
                           static_cast<std::int64_t>(big.q.size() / 2));
  });
  const double memcpy_us =
      time([&] { CHECK(cudaMemcpyAsync(s1, u, big_bytes, cudaMemcpyDeviceToDevice)); });
  const double moved = 2.0 * static_cast<double>(big_bytes);
  const double bandwidth = moved / (memcpy_us * 1e-6);
  const int rounds = 4096;
  const unsigned fma_blocks = static_cast<unsigned>(sms) * 16;
  const double fma_us = time([&] { fma_rate<<<fma_blocks, 256>>>(scratch, rounds); });
  const double fp64_rate = 8.0 * rounds * fma_blocks * 256 / (fma_us * 1e-6);
  std::printf(
      "copy kernel %.1f us = %.3f TB/s, cudaMemcpy D2D %.1f us = %.3f TB/s (read + written); FP64 "
      "fused multiply-add: %.3f T instructions/s\n",
      copy_us, 1e-12 * moved / (copy_us * 1e-6), memcpy_us, 1e-12 * bandwidth, 1e-12 * fp64_rate);
  const double cells = 4096.0 * 4096.0;
  // A stage after the first reads in and base and writes out (12 doubles per cell); the first
  // does not read base (8); the monitor reads the state (4).
  const double stage_bytes = 12.0 * 8.0 * cells, first_bytes = 8.0 * 8.0 * cells;
  const double step_bytes = (8.0 + 12.0 + 12.0 + 4.0) * 8.0 * cells;
  std::printf(
      "byte floors at the cudaMemcpy bandwidth: stage %.1f us, first stage %.1f us, RK3 "
      "step (3 stages + monitor) %.1f us\n",
      stage_bytes / bandwidth * 1e6, first_bytes / bandwidth * 1e6, step_bytes / bandwidth * 1e6);

  // Bitwise: every instantiation and stage form on the random state.
  {
    const Field small = random_state(1024, gamma, 12345);
    const Field other = random_state(1024, gamma, 777);  // the base (U) of the later stages
    const std::size_t bytes = small.q.size() * sizeof(double);
    double *in = nullptr, *base = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&base, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(in, small.q.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(base, other.q.data(), bytes, cudaMemcpyHostToDevice));
    std::vector<double> got(small.q.size()), want(small.q.size());
    const auto one = [&](auto limiter, auto flux, const char* name) {
      constexpr int kLimiter = decltype(limiter)::value;
      constexpr int kFlux = decltype(flux)::value;
      for (double b : {1.0, 0.25, 2.0 / 3.0}) {
        const EulerStage s{
            .b = b, .first = b == 1.0 ? 1 : 0, .gamma = gamma, .field_stride = small.fs};
        std::fill(want.begin(), want.end(), 0.0);
        host_stage(&hk::euler_stage_on_host<kLimiter, kFlux>, small, s, the_step, other.q, want);
        for (const bool use_staged : {false, true}) {
          CHECK(cudaMemset(out, 0, bytes));
          if (use_staged) {
            staged<kLimiter, kFlux>(small.box(), s, step, base, in, out);
          } else {
            walk<kLimiter, kFlux>(small.box(), s, step, base, in, out);
          }
          CHECK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
          const std::int64_t rows = differing_rows(small, got, want);
          std::printf("random 1024^2, %-18s b = %.4f, %s: %s\n", name, b,
                      use_staged ? "staged" : "walk  ",
                      rows == 0 ? "same as the CPU twin"
                                : (std::to_string(rows) + " rows DIFFERENT").c_str());
        }
      }
    };
    one(std::integral_constant<int, hk::kVanLeer>{}, std::integral_constant<int, hk::kHllc>{},
        "van Leer, HLLC");
    one(std::integral_constant<int, hk::kVanLeer>{}, std::integral_constant<int, hk::kRusanov>{},
        "van Leer, Rusanov");
    one(std::integral_constant<int, hk::kMinmod>{}, std::integral_constant<int, hk::kHllc>{},
        "minmod, HLLC");
    one(std::integral_constant<int, hk::kMinmod>{}, std::integral_constant<int, hk::kRusanov>{},
        "minmod, Rusanov");
    CHECK(cudaFree(in));
    CHECK(cudaFree(base));
    CHECK(cudaFree(out));
  }

  // The vortex: the default against the CPU twin (third stage form), then every shape against it.
  std::vector<double> reference(big.q.size()), got(big.q.size());
  {
    walk<hk::kVanLeer, hk::kHllc>(box, third, step, u, u, s1);
    CHECK(cudaMemcpy(reference.data(), s1, big_bytes, cudaMemcpyDeviceToHost));
    std::vector<double> want(big.q.size(), 0.0);
    host_stage(&hk::euler_stage_on_host<hk::kVanLeer, hk::kHllc>, big, third, the_step, big.q,
               want);
    const std::int64_t rows = differing_rows(big, reference, want);
    std::printf(
        "vortex 4096^2, van Leer, HLLC, b = 2/3: %s\n",
        rows == 0 ? "same as the CPU twin" : (std::to_string(rows) + " rows DIFFERENT").c_str());
  }
  const auto report = [&](const std::string& name, double us, double bytes) {
    CHECK(cudaMemcpy(got.data(), s1, big_bytes, cudaMemcpyDeviceToHost));
    const std::int64_t rows = differing_rows(big, got, reference);
    std::printf("%-40s %8.1f us  %5.1f %% of the byte floor  %s\n", name.c_str(), us,
                100.0 * bytes / bandwidth / (us * 1e-6),
                rows == 0 ? "same" : (std::to_string(rows) + " rows DIFFERENT").c_str());
  };
  const double old_us =
      time([&] { old_euler::stage_rows<<<old_grid, old_block>>>(box, old_third, u, u, s1); });
  std::printf("%-40s %8.1f us  %5.1f %% of the byte floor  (old arithmetic)\n",
              "old: one thread per cell, 32x8", old_us,
              100.0 * stage_bytes / bandwidth / (old_us * 1e-6));
  double best_us[2] = {1e30, 1e30};  // walk, staged
  const auto sweep = [&](auto staged_form, auto warps, auto min_blocks) {
    constexpr bool kStaged = decltype(staged_form)::value;
    constexpr unsigned kWarps = decltype(warps)::value;
    constexpr int kMin = decltype(min_blocks)::value;
    for (int rows : {8, 16, 32}) {
      CHECK(cudaMemset(s1, 0, big_bytes));
      const double us = time([&] {
        launch_walk<hk::kVanLeer, hk::kHllc, kStaged, kWarps, kMin>(box, third, step, u, u, s1,
                                                                    rows);
      });
      best_us[kStaged ? 1 : 0] = std::min(best_us[kStaged ? 1 : 0], us);
      report(std::string(kStaged ? "staged" : "walk") + " 32x" + std::to_string(kWarps) +
                 " min blocks " + std::to_string(kMin) + ", " + std::to_string(rows) + " rows",
             us, stage_bytes);
    }
  };
  using walk_form = std::false_type;
  using staged_form = std::true_type;
  sweep(walk_form{}, std::integral_constant<unsigned, 4>{}, std::integral_constant<int, 4>{});
  sweep(walk_form{}, std::integral_constant<unsigned, 4>{}, std::integral_constant<int, 5>{});
  sweep(walk_form{}, std::integral_constant<unsigned, 4>{}, std::integral_constant<int, 6>{});
  sweep(walk_form{}, std::integral_constant<unsigned, 2>{}, std::integral_constant<int, 10>{});
  sweep(staged_form{}, std::integral_constant<unsigned, 4>{}, std::integral_constant<int, 4>{});
  sweep(staged_form{}, std::integral_constant<unsigned, 4>{}, std::integral_constant<int, 5>{});
  sweep(staged_form{}, std::integral_constant<unsigned, 4>{}, std::integral_constant<int, 6>{});
  sweep(staged_form{}, std::integral_constant<unsigned, 2>{}, std::integral_constant<int, 8>{});
  sweep(staged_form{}, std::integral_constant<unsigned, 2>{}, std::integral_constant<int, 10>{});
  {
    CHECK(cudaMemset(s1, 0, big_bytes));
    const double us = time([&] { staged<hk::kVanLeer, hk::kHllc>(box, first, step, u, u, s1); });
    std::printf("%-40s %8.1f us  %5.1f %% of its byte floor\n",
                "staged 32x4 min 5, first stage form", us,
                100.0 * first_bytes / bandwidth / (us * 1e-6));
  }
  std::printf("best: walk %.1f us, staged %.1f us per stage (b = 2/3 form)\n", best_us[0],
              best_us[1]);

  // The monitor with 4 to 32 rows per thread (fewer blocks, fewer atomics), and a whole step's
  // device work (no exchange, walls or clock), old and new.
  for (const unsigned rows : {4u, 8u, 16u, 32u}) {
    const dim3 grid(4096 / 32, 4096 / (8 * rows));
    const double us = time([&] {
      reset_monitor<<<1, 1>>>(monitor);
      hk::euler_monitor_rows<<<grid, monitor_block>>>(box, monitor_params, u, monitor);
    });
    std::printf(
        "monitor (reset + reduce, 32x8, %2u rows per thread): %.1f us (%.1f %% of its byte "
        "floor)\n",
        rows, us, 100.0 * 4.0 * 8.0 * cells / bandwidth / (us * 1e-6));
  }
  const old_euler::Stage old_first{0.0, 1.0, 0.05, 0.05, gamma, big.fs, hk::kVanLeer, hk::kHllc};
  const old_euler::Stage old_second{0.75, 0.25, 0.05, 0.05, gamma, big.fs, hk::kVanLeer, hk::kHllc};
  const double old_step_us = time([&] {
    old_euler::stage_rows<<<old_grid, old_block>>>(box, old_first, u, u, s1);
    old_euler::stage_rows<<<old_grid, old_block>>>(box, old_second, u, s1, s2);
    old_euler::stage_rows<<<old_grid, old_block>>>(box, old_third, u, s2, s1);
    reset_monitor<<<1, 1>>>(monitor);
    hk::euler_monitor_rows<<<monitor_grid, monitor_block>>>(box, monitor_params, s1, monitor);
  });
  const dim3 new_monitor_grid(4096 / 32, 4096 / (8 * 16));
  const auto new_step = [&](auto form) {
    constexpr bool kStaged = decltype(form)::value;
    const auto stage = [&](const EulerStage& st, const double* in, double* out) {
      if constexpr (kStaged) {
        staged<hk::kVanLeer, hk::kHllc>(box, st, step, u, in, out);
      } else {
        walk<hk::kVanLeer, hk::kHllc>(box, st, step, u, in, out);
      }
    };
    return time([&] {
      stage(first, u, s1);
      stage(second, s1, s2);
      stage(third, s2, s1);
      reset_monitor<<<1, 1>>>(monitor);
      hk::euler_monitor_rows<<<new_monitor_grid, monitor_block>>>(box, monitor_params, s1, monitor);
    });
  };
  const double walk_step_us = new_step(walk_form{});
  const double staged_step_us = new_step(staged_form{});
  std::printf(
      "RK3 step's device work: old %.1f us; walk (32x4, min 5, 16 rows) %.1f us = %.2fx; "
      "staged (the same) %.1f us = %.2fx; byte floor %.1f us\n",
      old_step_us, walk_step_us, old_step_us / walk_step_us, staged_step_us,
      old_step_us / staged_step_us, step_bytes / bandwidth * 1e6);
  std::printf(
      "FP64 floor: ncu's FP64 instruction count of one stage / %.3f T/s (tools/kernel-labs)\n",
      1e-12 * fp64_rate);
  return 0;
}
