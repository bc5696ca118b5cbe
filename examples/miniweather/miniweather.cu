// miniWeather's scheme (2D compressible Euler about a hydrostatic background, fourth-order
// finite-volume interfaces with hyperviscosity, x and z sweeps of three Runge-Kutta stages each)
// as two haloflow frames, one per direction, each built once and replayed every step.
//
// Storage: four perturbation fields (density, rho u, rho w, rho theta), each laid out as haloflow's
// FieldLayout with two ghost layers on both axes: x fastest, owned cells at [2, n+2). The x ghosts
// come from the neighbouring ranks (haloflow's exchange, periodic); the z ghosts are solid walls:
// haloflow's wall node fills those of density, rho w and rho theta, a kernel of ours those of
// rho u (no generic rule covers it); on the rank at x = 0 the injection case overwrites part of its
// west ghosts with an inflow after the exchange.
//
// Every kernel is a per-cell operation (haloflow/per_cell.cuh), so the host executor runs the same
// frames on the CPU as the graph executor runs on the GPU.

#include <mpi.h>
#include <haloflow/haloflow.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "miniweather.hpp"

namespace miniweather {

std::optional<Case> case_from_string(std::string_view text) {
  if (text == "collision") return Case::collision;
  if (text == "thermal") return Case::thermal;
  if (text == "gravity_waves") return Case::gravity_waves;
  if (text == "density_current") return Case::density_current;
  if (text == "injection") return Case::injection;
  return std::nullopt;
}

std::string_view to_string(Case c) {
  switch (c) {
    case Case::collision:
      return "collision";
    case Case::thermal:
      return "thermal";
    case Case::gravity_waves:
      return "gravity_waves";
    case Case::density_current:
      return "density_current";
    case Case::injection:
      return "injection";
  }
  return "?";
}

namespace {

// Physical constants and the scheme's settings, as miniWeather defines them.
constexpr double kPi = 3.14159265358979323846264338327;
constexpr double kGrav = 9.8;                               // m/s^2
constexpr double kCp = 1004.;                               // J/(kg K), constant pressure
constexpr double kCv = 717.;                                // J/(kg K), constant volume
constexpr double kRd = 287.;                                // dry air gas constant
constexpr double kP0 = 1.e5;                                // surface pressure, Pa
constexpr double kC0 = 27.5629410929725921310572974482;     // p = C0 (rho theta)^gamma
constexpr double kGamma = 1.40027894002789400278940027894;  // cp / (cp - rd)
constexpr double kXlen = 2.e4;                              // domain, m
constexpr double kZlen = 1.e4;
constexpr double kHvBeta = 0.05;  // hyperviscosity strength
constexpr double kCfl = 1.5;
constexpr double kMaxSpeed = 450;  // m/s, the assumed fastest wave
constexpr long kHalo = 2;          // ghost layers: the four-cell reconstruction reaches two cells
constexpr int kVars = 4;
constexpr double kGravityWaveRepeats = 3;  // see the gravity_waves source in simulate()
enum Var { kDens = 0, kUmom = 1, kWmom = 2, kRhot = 3 };

// ---------------------------------------------------------------------------------------------
// Kernel parameters: plain structs, passed by value.

// This rank's grid: owned cells, strides of the ghosted fields, spacing.
struct Grid {
  long nx, nz;      // owned cells
  long row;         // elements per row of a field (nx + 4)
  long field;       // elements per field ((nx + 4) (nz + 4))
  long flux_row;    // interfaces per row of a flux field (nx + 1)
  long flux_field;  // elements per flux field ((nx + 1) (nz + 1))
  double dx, dz;
};

// A rectangle of cells or interfaces in unghosted local indices: i in [i0, i0+ni), k likewise.
struct Span {
  long i0, k0, ni, nk;
};

// The hydrostatic background and the fixed forcing, all read-only device (or host) arrays.
struct Background {
  const double* dens_cell;      // cell averages of rho, rows with ghosts: nz + 4
  const double* rhot_cell;      // cell averages of rho theta, nz + 4
  const double* dens_face;      // rho at the z interfaces, nz + 1
  const double* rhot_face;      // rho theta at the z interfaces, nz + 1
  const double* pressure_face;  // pressure at the z interfaces, nz + 1
  // gravity_waves: a momentum source for rho w per owned cell (nx * nz), null otherwise.
  const double* w_source;
};

HALOFLOW_HD inline void at(std::size_t cell, const Span& s, long& i, long& k) {
  i = s.i0 + static_cast<long>(cell) % s.ni;
  k = s.k0 + static_cast<long>(cell) / s.ni;
}

// Fourth-order interface value from four cell averages, and the third difference that the
// hyperviscosity damps.
HALOFLOW_HD inline void reconstruct(double a, double b, double c, double d, double& value,
                                    double& third) {
  value = (7. * (b + c) - (a + d)) / 12.;
  third = (d - a) + 3. * (b - c);
}

// x fluxes at the interfaces of `s`: interface i lies between owned cells i-1 and i, so it
// reads cells i-2 .. i+1 (ghosted columns i .. i+3). `dt` is the stage's step (hyperviscosity).
struct FluxX {
  static HALOFLOW_HD void apply(std::size_t cell, Span s, Grid g, Background b, double dt,
                                const double* q, double* flux) {
    long i, k;
    at(cell, s, i, k);
    const double hv = -kHvBeta * g.dx / (16. * dt);
    double value[kVars], third[kVars];
    for (int v = 0; v < kVars; ++v) {
      const double* c = q + v * g.field + (k + kHalo) * g.row + i;
      reconstruct(c[0], c[1], c[2], c[3], value[v], third[v]);
    }
    const double r = value[kDens] + b.dens_cell[k + kHalo];
    const double u = value[kUmom] / r;
    const double w = value[kWmom] / r;
    const double t = (value[kRhot] + b.rhot_cell[k + kHalo]) / r;
    const double p = kC0 * pow(r * t, kGamma);
    double* f = flux + i + g.flux_row * k;
    f[0] = r * u - hv * third[kDens];
    f[g.flux_field] = r * u * u + p - hv * third[kUmom];
    f[2 * g.flux_field] = r * u * w - hv * third[kWmom];
    f[3 * g.flux_field] = r * u * t - hv * third[kRhot];
  }
};

// z fluxes: interface k lies between cells k-1 and k of column i (ghosted rows k .. k+3). At the
// walls (k = 0 and k = nz) nothing crosses: no vertical velocity and no diffusion of mass.
struct FluxZ {
  static HALOFLOW_HD void apply(std::size_t cell, Span s, Grid g, Background b, double dt,
                                const double* q, double* flux) {
    long i, k;
    at(cell, s, i, k);
    const double hv = -kHvBeta * g.dz / (16. * dt);
    double value[kVars], third[kVars];
    for (int v = 0; v < kVars; ++v) {
      const double* c = q + v * g.field + k * g.row + i + kHalo;
      reconstruct(c[0], c[g.row], c[2 * g.row], c[3 * g.row], value[v], third[v]);
    }
    const double r = value[kDens] + b.dens_face[k];
    const double u = value[kUmom] / r;
    double w = value[kWmom] / r;
    const double t = (value[kRhot] + b.rhot_face[k]) / r;
    const double p = kC0 * pow(r * t, kGamma) - b.pressure_face[k];
    if (k == 0 || k == g.nz) {
      w = 0;
      third[kDens] = 0;
    }
    double* f = flux + i + g.flux_row * k;
    f[0] = r * w - hv * third[kDens];
    f[g.flux_field] = r * w * u - hv * third[kUmom];
    f[2 * g.flux_field] = r * w * w + p - hv * third[kWmom];
    f[3 * g.flux_field] = r * w * t - hv * third[kRhot];
  }
};

// out = init + dt * (flux divergence along `axis` + sources), for the owned cells of `s`. `out`
// may be `forcing` (the second stage): the cell's own forcing is read before anything is written.
struct Update {
  static HALOFLOW_HD void apply(std::size_t cell, Span s, Grid g, Background b, int axis, double dt,
                                const double* init, const double* forcing, const double* flux,
                                double* out) {
    long i, k;
    at(cell, s, i, k);
    const long face = i + g.flux_row * k;
    const long next = axis == 0 ? face + 1 : face + g.flux_row;
    const double h = axis == 0 ? g.dx : g.dz;
    const long c = (k + kHalo) * g.row + i + kHalo;
    double tend[kVars];
    for (int v = 0; v < kVars; ++v)
      tend[v] = -(flux[v * g.flux_field + next] - flux[v * g.flux_field + face]) / h;
    if (axis == 1) tend[kWmom] -= forcing[kDens * g.field + c] * kGrav;  // buoyancy
    if (b.w_source != nullptr) tend[kWmom] += b.w_source[i + g.nx * k];
    for (int v = 0; v < kVars; ++v) out[v * g.field + c] = init[v * g.field + c] + dt * tend[v];
  }
};

// The walls at z = 0 and z = zlen: density and rho theta copy the nearest owned row, rho w is 0
// (haloflow::add_wall_node, zero_gradient and fixed). Horizontal momentum, here for the owned
// columns of `s` (s.nk == 1), is the nearest owned row's scaled by the background density, so
// that the velocity is the nearest row's: a rule of this solver's, which no generic one covers.
struct UWall {
  static HALOFLOW_HD void apply(std::size_t cell, Span s, Grid g, Background b, double* q) {
    const long x = s.i0 + static_cast<long>(cell) + kHalo;
    const long bottom = kHalo;          // first owned row
    const long top = g.nz + kHalo - 1;  // last owned row
    double* f = q + kUmom * g.field + x;
    for (long ghost = 0; ghost < kHalo; ++ghost) {
      const long below = ghost;                 // rows 0, 1
      const long above = g.nz + kHalo + ghost;  // rows nz+2, nz+3
      f[below * g.row] = f[bottom * g.row] / b.dens_cell[bottom] * b.dens_cell[below];
      f[above * g.row] = f[top * g.row] / b.dens_cell[top] * b.dens_cell[above];
    }
  }
};

// The injection case's inflow, on the rank at x = 0, after its west ghosts arrived: within a
// band around z = 3/4 zlen the ghosts carry air at 50 m/s with potential temperature 298 K.
struct Inflow {
  static HALOFLOW_HD void apply(std::size_t cell, Span s, Grid g, Background b, double* q) {
    long i, k;
    at(cell, s, i, k);  // i: ghosted column 0 or 1, k: owned row
    const double z = (k + 0.5) * g.dz;
    if (fabs(z - 3 * kZlen / 4) > kZlen / 16) return;
    const long c = (k + kHalo) * g.row + i;
    const double rho = q[kDens * g.field + c] + b.dens_cell[k + kHalo];
    q[kUmom * g.field + c] = rho * 50.;
    q[kRhot * g.field + c] = rho * 298. - b.rhot_cell[k + kHalo];
  }
};

using FluxKernel =
    haloflow::KernelRef<std::size_t, Span, Grid, Background, double, const double*, double*>;
using UpdateKernel = haloflow::KernelRef<std::size_t, Span, Grid, Background, int, double,
                                         const double*, const double*, const double*, double*>;
using GhostKernel = haloflow::KernelRef<std::size_t, Span, Grid, Background, double*>;

// ---------------------------------------------------------------------------------------------
// Initial data and background, on the host (the same on every executor and rank count).

struct Profile {
  double r, t;  // background density and potential temperature
};

// Hydrostatic balance at constant potential temperature (neutral atmosphere).
Profile neutral(double z) {
  const double theta0 = 300.;
  const double exner = 1. - kGrav * z / (kCp * theta0);
  const double p = kP0 * std::pow(exner, kCp / kRd);
  const double rt = std::pow(p / kC0, 1. / kGamma);
  return {rt / theta0, theta0};
}

// Hydrostatic balance at constant Brunt-Vaisala frequency n.
Profile stratified(double z, double n) {
  const double theta0 = 300.;
  const double t = theta0 * std::exp(n * n / kGrav * z);
  const double exner = 1. - kGrav * kGrav / (kCp * n * n) * (t - theta0) / (t * theta0);
  const double p = kP0 * std::pow(exner, kCp / kRd);
  const double rt = std::pow(p / kC0, 1. / kGamma);
  return {rt / t, t};
}

// A cos^2 bump of amplitude `amp` within the ellipse centred at (x0, z0), 0 outside.
double bump(double x, double z, double amp, double x0, double z0, double xrad, double zrad) {
  const double ax = (x - x0) / xrad;
  const double az = (z - z0) / zrad;
  const double d = std::sqrt(ax * ax + az * az) * kPi / 2.;
  if (d > kPi / 2.) return 0.;
  const double c = std::cos(d);
  return amp * c * c;
}

struct Sample {
  double r, u, w, t;  // perturbation density, wind, potential temperature perturbation
  Profile background;
};

Sample sample(Case c, double x, double z) {
  switch (c) {
    case Case::collision:
      return {0, 0, 0,
              bump(x, z, 20., kXlen / 2, 2000., 2000., 2000.) +
                  bump(x, z, -20., kXlen / 2, 8000., 2000., 2000.),
              neutral(z)};
    case Case::thermal:
      return {0, 0, 0, bump(x, z, 3., kXlen / 2, 2000., 2000., 2000.), neutral(z)};
    case Case::gravity_waves:
      return {0, 15., 0, 0, stratified(z, 0.02)};
    case Case::density_current:
      return {0, 0, 0, bump(x, z, -20., kXlen / 2, 5000., 4000., 2000.), neutral(z)};
    case Case::injection:
      return {0, 0, 0, 0, neutral(z)};
  }
  return {};
}

// Three-point Gauss-Legendre rule on [-1/2, 1/2].
constexpr double kNodes[3] = {-0.387298334620741688517926539980, 0.,
                              0.387298334620741688517926539980};
constexpr double kWeights[3] = {5. / 18., 8. / 18., 5. / 18.};

// ---------------------------------------------------------------------------------------------

struct Totals {
  double mass, te;
};

// Domain mass and total energy of the global perturbation state (rank 0), summed in one fixed
// order, so that every rank count gives the same bits.
Totals totals(const std::vector<double>& state, long nx, long nz, const std::vector<double>& dens,
              const std::vector<double>& rhot, double dx, double dz) {
  const long n = nx * nz;
  double mass = 0, te = 0;
  for (long k = 0; k < nz; ++k) {
    for (long i = 0; i < nx; ++i) {
      const long c = i + nx * k;
      const double r = state[kDens * n + c] + dens[k + kHalo];
      const double u = state[kUmom * n + c] / r;
      const double w = state[kWmom * n + c] / r;
      const double th = (state[kRhot * n + c] + rhot[k + kHalo]) / r;
      const double p = kC0 * std::pow(r * th, kGamma);
      const double temperature = th / std::pow(kP0 / p, kRd / kCp);
      mass += r * dx * dz;
      te += (r * (u * u + w * w) + r * kCv * temperature) * dx * dz;
    }
  }
  return {mass, te};
}

// Rank 0 receives every rank's owned cells (four fields) and places them in global order.
std::vector<double> gather(MPI_Comm comm, const haloflow::CartesianDecomposition& grid,
                           const std::vector<double>& mine, long nx, long nz) {
  const int ranks = grid.rank_count();
  std::vector<int> counts(ranks), offsets(ranks);
  const int count = static_cast<int>(mine.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
  for (int r = 1; r < ranks; ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  const bool root = grid.rank() == 0;
  std::vector<double> pieces(root ? kVars * nx * nz : 0);
  MPI_Gatherv(mine.data(), count, MPI_DOUBLE, pieces.data(), counts.data(), offsets.data(),
              MPI_DOUBLE, 0, comm);
  std::vector<double> global(pieces.size());
  for (int r = 0; r < ranks && root; ++r) {
    const long w = grid.local_cells_of(r)[0];
    const long x0 = grid.global_offset_of(r)[0];
    for (int v = 0; v < kVars; ++v) {
      for (long k = 0; k < nz; ++k) {
        for (long i = 0; i < w; ++i)
          global[v * nx * nz + k * nx + x0 + i] = pieces[offsets[r] + (v * nz + k) * w + i];
      }
    }
  }
  return global;
}

haloflow::LaunchShape shape(const Span& s, unsigned block) {
  return haloflow::LaunchShape::cover(static_cast<std::size_t>(s.ni * s.nk), block);
}

std::size_t cells(const Span& s) {
  return static_cast<std::size_t>(s.ni * s.nk);
}

}  // namespace

Result simulate(MPI_Comm comm, const Setup& setup, haloflow::ExecutorKind executor) {
  // x periodic and split over the ranks, z between walls and never split (miniWeather's layout).
  haloflow::DecompositionSpec spec;
  spec.dimensions = 2;
  spec.global_cells = {setup.nx, setup.nz, 1};
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  spec.process_grid = {ranks, 1, 1};
  spec.boundary = {haloflow::Boundary::periodic, haloflow::Boundary::physical,
                   haloflow::Boundary::periodic};
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const haloflow::CartesianDecomposition grid(spec, ranks, rank);
  // Two ghost layers, exchanged along x only: the z sweep reads across the walls, never across
  // ranks. halo.walls has the two z faces (y is the second axis of haloflow's 2D grid).
  const haloflow::HaloPlan halo = haloflow::make_halo_plan(
      grid, {.shape = haloflow::StencilShape::star, .radius = 2, .axes = {1, 0, 0}}, 2, kVars);
  const haloflow::FieldLayout& layout = halo.layout;
  const long nx = layout.owned[0];
  const long nz = layout.owned[1];
  if (nx < 4 || nz < 4)
    throw haloflow::Error("miniweather: each rank needs at least 4 x 4 cells (it has " +
                          std::to_string(nx) + " x " + std::to_string(nz) + ")");
  const long x0 = grid.global_offset()[0];
  const double dx = kXlen / static_cast<double>(setup.nx);
  const double dz = kZlen / static_cast<double>(setup.nz);
  const Grid g{nx, nz, nx + 2 * kHalo, layout.field_elements(), nx + 1, (nx + 1) * (nz + 1),
               dx, dz};

  // Background per row (with ghost rows) and at the z interfaces, the same on every rank. The
  // row value is the profile at the cell centre, as miniWeather takes it (its quadrature loop
  // samples the centre each time), so that the figures can be compared with its code.
  const long rows = nz + 2 * kHalo;
  std::vector<double> dens_cell(rows), rhot_cell(rows), dens_face(nz + 1), rhot_face(nz + 1),
      pressure_face(nz + 1);
  for (long k = 0; k < rows; ++k) {
    const Profile p = sample(setup.data_spec, 0., (k - kHalo + 0.5) * dz).background;
    dens_cell[k] = p.r;
    rhot_cell[k] = p.r * p.t;
  }
  for (long k = 0; k <= nz; ++k) {
    const Profile p = sample(setup.data_spec, 0., k * dz).background;
    dens_face[k] = p.r;
    rhot_face[k] = p.r * p.t;
    pressure_face[k] = kC0 * std::pow(p.r * p.t, kGamma);
  }
  // gravity_waves' forcing of rho w, fixed in time: a bump times the background density, times
  // kGravityWaveRepeats. miniWeather's C code adds the bump to rho w's tendency inside its loop
  // over the four variables, so rho w has received it three times when its turn comes; we apply
  // that strength at once, so that the figures match its code. (Its YAKL version adds it from
  // four threads at once, unordered.)
  std::vector<double> w_source;
  if (setup.data_spec == Case::gravity_waves) {
    w_source.resize(static_cast<std::size_t>(nx * nz));
    for (long k = 0; k < nz; ++k) {
      for (long i = 0; i < nx; ++i) {
        const double x = (x0 + i + 0.5) * dx;
        const double z = (k + 0.5) * dz;
        w_source[i + nx * k] = kGravityWaveRepeats *
                               bump(x, z, 0.01, kXlen / 8, 1000., 500., 500.) *
                               dens_cell[k + kHalo];
      }
    }
  }

  // Initial perturbation: cell averages by 3 x 3 Gauss-Legendre quadrature.
  const std::size_t field_bytes = static_cast<std::size_t>(g.field) * sizeof(double);
  std::vector<double> host(kVars * static_cast<std::size_t>(g.field), 0.0);
  for (long k = 0; k < nz; ++k) {
    for (long i = 0; i < nx; ++i) {
      const long c = layout.offset(i + kHalo, k + kHalo, 0);
      for (int a = 0; a < 3; ++a) {
        for (int q = 0; q < 3; ++q) {
          const double x = (x0 + i + 0.5 + kNodes[q]) * dx;
          const double z = (k + 0.5 + kNodes[a]) * dz;
          const Sample s = sample(setup.data_spec, x, z);
          const double hr = s.background.r;
          const double ht = s.background.t;
          const double weight = kWeights[q] * kWeights[a];
          host[kDens * g.field + c] += weight * s.r;
          host[kUmom * g.field + c] += weight * (s.r + hr) * s.u;
          host[kWmom * g.field + c] += weight * (s.r + hr) * s.w;
          host[kRhot * g.field + c] += weight * ((s.r + hr) * (s.t + ht) - hr * ht);
        }
      }
    }
  }

  auto owned_cells = [&](const std::vector<double>& fields) {
    std::vector<double> mine;
    mine.reserve(static_cast<std::size_t>(kVars * nx * nz));
    for (int v = 0; v < kVars; ++v) {
      for (long k = 0; k < nz; ++k) {
        for (long i = 0; i < nx; ++i)
          mine.push_back(fields[v * g.field + layout.offset(i + kHalo, k + kHalo, 0)]);
      }
    }
    return mine;
  };

  Result result;
  {
    const std::vector<double> global = gather(comm, grid, owned_cells(host), setup.nx, setup.nz);
    if (rank == 0) {
      const Totals t0 = totals(global, setup.nx, setup.nz, dens_cell, rhot_cell, dx, dz);
      result.mass0 = t0.mass;
      result.te0 = t0.te;
    }
  }

  // Memory that follows the executor: device memory for the GPU, plain memory for the host.
  const haloflow::Backend backend = haloflow::backend_of(executor);
  haloflow::Buffer state(haloflow::Memory::device, kVars * field_bytes, "state", backend);
  haloflow::Buffer scratch(haloflow::Memory::device, kVars * field_bytes, "state_tmp", backend);
  haloflow::Buffer flux(haloflow::Memory::device,
                        kVars * static_cast<std::size_t>(g.flux_field) * sizeof(double), "flux",
                        backend);
  state.upload(host.data(), state.bytes());
  scratch.upload(host.data(), scratch.bytes());
  // The background arrays in one buffer.
  std::vector<double> fixed;
  for (const auto* part :
       {&dens_cell, &rhot_cell, &dens_face, &rhot_face, &pressure_face, &w_source})
    fixed.insert(fixed.end(), part->begin(), part->end());
  haloflow::Buffer background(haloflow::Memory::device, fixed.size() * sizeof(double), "background",
                              backend);
  background.upload(fixed.data(), background.bytes());
  const double* base = background.as<const double>();
  const Background b{base,
                     base + rows,
                     base + 2 * rows,
                     base + 2 * rows + (nz + 1),
                     base + 2 * rows + 2 * (nz + 1),
                     w_source.empty() ? nullptr : base + 2 * rows + 3 * (nz + 1)};

  auto fields_of = [&](const haloflow::Buffer& buffer) {
    std::vector<double*> pointers;
    for (int v = 0; v < kVars; ++v) pointers.push_back(buffer.as<double>() + v * g.field);
    return pointers;
  };
  double* const q = state.as<double>();
  double* const tmp = scratch.as<double>();
  double* const f = flux.as<double>();

  const auto flux_x =
      haloflow::per_cell_kernel<FluxX, Span, Grid, Background, double, const double*, double*>(
          "flux_x");
  const auto flux_z =
      haloflow::per_cell_kernel<FluxZ, Span, Grid, Background, double, const double*, double*>(
          "flux_z");
  const auto update =
      haloflow::per_cell_kernel<Update, Span, Grid, Background, int, double, const double*,
                                const double*, const double*, double*>("update");
  const auto u_wall = haloflow::per_cell_kernel<UWall, Span, Grid, Background, double*>("u_wall");
  const auto inflow = haloflow::per_cell_kernel<Inflow, Span, Grid, Background, double*>("inflow");

  // The three Runge-Kutta stages of one direction, each out = state + (fraction dt) rhs(forcing):
  // the state is the start of every stage.
  struct Stage {
    double* forcing;
    double* out;
    double fraction;
  };
  const Stage stages[3] = {{q, tmp, 1. / 3.}, {tmp, tmp, 1. / 2.}, {tmp, q, 1.}};
  const Span owned{0, 0, nx, nz};

  // What changes from step to step is dt (the last step is shortened): each kernel node that
  // reads it has a patch here, applied to its frame when dt changes.
  std::vector<std::function<void(haloflow::Frame&, double)>> patches_x, patches_z;

  // One exchange per x stage (the stages exchange different buffers and must not share tags).
  std::vector<haloflow::HaloExchange<double>> exchanges;
  exchanges.reserve(3);

  // ---- the x frame: per stage, exchange -> (inflow) -> west/east fluxes; interior fluxes
  // meanwhile; then the update.
  haloflow::FramePlan plan_x("miniweather.x");
  std::string previous;
  for (int s = 0; s < 3; ++s) {
    const Stage& st = stages[s];
    std::string tag = "x";
    tag += std::to_string(s + 1);
    std::vector<std::string> after_previous;
    if (!previous.empty()) after_previous.push_back(previous);
    haloflow::ExchangeOptions options;
    options.exchange_id = s;
    options.transport = haloflow::Transport::mpi;
    options.self_on_device = true;
    options.name = tag + ".halo";
    exchanges.emplace_back(halo, comm,
                           std::vector<std::vector<double*>>{fields_of(s == 0 ? state : scratch)},
                           backend, options);
    const haloflow::ExchangeNodes nodes = exchanges.back().add_to(plan_x, after_previous);
    std::vector<std::string> ghosts_ready{nodes.unpack};
    if (setup.data_spec == Case::injection && x0 == 0) {
      const Span west{0, 0, kHalo, nz};
      plan_x.add_kernel(
          {.name = tag + ".inflow", .lane = haloflow::Lane::communication, .after = {nodes.unpack}},
          inflow, shape(west, 128), cells(west), west, g, b, st.forcing);
      ghosts_ready = {tag + ".inflow"};
    }
    const double dt0 = 1.;  // patched before the first launch
    auto add_flux = [&](const std::string& name, const Span& span, haloflow::Lane lane,
                        std::vector<std::string> after) {
      const auto node =
          plan_x.add_kernel({.name = tag + "." + name, .lane = lane, .after = after}, flux_x,
                            shape(span, lane == haloflow::Lane::bulk ? 256 : 128), cells(span),
                            span, g, b, dt0, st.forcing, f);
      patches_x.push_back([node, span, g, b, st, f](haloflow::Frame& frame, double dt) {
        frame.update(node, cells(span), span, g, b, dt * st.fraction, st.forcing, f);
      });
    };
    add_flux("flux_interior", {2, 0, nx - 3, nz}, haloflow::Lane::bulk, after_previous);
    add_flux("flux_west", {0, 0, 2, nz}, haloflow::Lane::communication, ghosts_ready);
    add_flux("flux_east", {nx - 1, 0, 2, nz}, haloflow::Lane::communication, ghosts_ready);
    const auto node = plan_x.add_kernel(
        {.name = tag + ".update",
         .after = {tag + ".flux_interior", tag + ".flux_west", tag + ".flux_east"}},
        update, shape(owned, 256), cells(owned), owned, g, b, 0, dt0, q, st.forcing, f, st.out);
    patches_x.push_back([node, owned, g, b, st, q, f](haloflow::Frame& frame, double dt) {
      frame.update(node, cells(owned), owned, g, b, 0, dt * st.fraction, q, st.forcing, f, st.out);
    });
    previous = tag + ".update";
  }

  // ---- the z frame: per stage, walls -> bottom/top fluxes; interior fluxes meanwhile; update.
  haloflow::FramePlan plan_z("miniweather.z");
  previous.clear();
  for (int s = 0; s < 3; ++s) {
    const Stage& st = stages[s];
    std::string tag = "z";
    tag += std::to_string(s + 1);
    std::vector<std::string> after_previous;
    if (!previous.empty()) after_previous.push_back(previous);
    // snippet-begin: walls
    // The wall ghosts of density, rho w and rho theta: one node, whichever faces this rank has.
    const std::vector<double*> walled{st.forcing + kDens * g.field, st.forcing + kWmom * g.field,
                                      st.forcing + kRhot * g.field};
    const std::vector<haloflow::FieldWall> rules{{.rule = haloflow::WallRule::zero_gradient},
                                                 {.rule = haloflow::WallRule::fixed, .value = 0.},
                                                 {.rule = haloflow::WallRule::zero_gradient}};
    haloflow::add_wall_node<double>(
        plan_z,
        {.name = tag + ".walls", .lane = haloflow::Lane::communication, .after = after_previous},
        halo, walled, rules, {0, 1, 0});
    // snippet-end: walls
    const Span columns{0, 0, nx, 1};
    plan_z.add_kernel(
        {.name = tag + ".u_wall", .lane = haloflow::Lane::communication, .after = after_previous},
        u_wall, shape(columns, 128), cells(columns), columns, g, b, st.forcing);
    const double dt0 = 1.;
    auto add_flux = [&](const std::string& name, const Span& span, haloflow::Lane lane,
                        std::vector<std::string> after) {
      const auto node =
          plan_z.add_kernel({.name = tag + "." + name, .lane = lane, .after = after}, flux_z,
                            shape(span, lane == haloflow::Lane::bulk ? 256 : 128), cells(span),
                            span, g, b, dt0, st.forcing, f);
      patches_z.push_back([node, span, g, b, st, f](haloflow::Frame& frame, double dt) {
        frame.update(node, cells(span), span, g, b, dt * st.fraction, st.forcing, f);
      });
    };
    add_flux("flux_interior", {0, 2, nx, nz - 3}, haloflow::Lane::bulk, after_previous);
    add_flux("flux_bottom", {0, 0, nx, 2}, haloflow::Lane::communication,
             {tag + ".walls", tag + ".u_wall"});
    add_flux("flux_top", {0, nz - 1, nx, 2}, haloflow::Lane::communication,
             {tag + ".walls", tag + ".u_wall"});
    const auto node = plan_z.add_kernel(
        {.name = tag + ".update",
         .after = {tag + ".flux_interior", tag + ".flux_bottom", tag + ".flux_top"}},
        update, shape(owned, 256), cells(owned), owned, g, b, 1, dt0, q, st.forcing, f, st.out);
    patches_z.push_back([node, owned, g, b, st, q, f](haloflow::Frame& frame, double dt) {
      frame.update(node, cells(owned), owned, g, b, 1, dt * st.fraction, q, st.forcing, f, st.out);
    });
    previous = tag + ".update";
  }

  // snippet-begin: two-frames
  haloflow::Frame frame_x(std::move(plan_x), executor);
  haloflow::Frame frame_z(std::move(plan_z), executor);
  // Both frames go on one stream, so that they run in the order launched (no stream under the
  // host executor, whose backend is cpu).
  const haloflow::LaunchStream stream(backend, "miniweather steps");

  const double dt_full = std::min(dx, dz) / kMaxSpeed * kCfl;
  double dt_set = -1;
  double etime = 0;
  double next_report = setup.out_freq;
  bool x_first = true;
  MPI_Barrier(comm);
  const auto start = std::chrono::steady_clock::now();
  while (etime < setup.sim_time) {
    const double dt = etime + dt_full > setup.sim_time ? setup.sim_time - etime : dt_full;
    if (dt != dt_set) {
      for (auto& patch : patches_x) patch(frame_x, dt);
      for (auto& patch : patches_z) patch(frame_z, dt);
      dt_set = dt;
    }
    if (x_first) {
      frame_x.launch(stream.get());
      frame_z.launch(stream.get());
    } else {
      frame_z.launch(stream.get());
      frame_x.launch(stream.get());
    }
    x_first = !x_first;
    etime += dt;
    ++result.steps;
    if (setup.out_freq > 0 && etime >= next_report && !setup.quiet) {
      next_report += setup.out_freq;
      if (rank == 0) std::printf("elapsed model time: %g / %g s\n", etime, setup.sim_time);
    }
  }
  frame_x.wait();
  frame_z.wait();
  // snippet-end: two-frames
  const auto stop = std::chrono::steady_clock::now();
  result.seconds = std::chrono::duration<double>(stop - start).count();

  state.download(host.data(), state.bytes());
  result.state = gather(comm, grid, owned_cells(host), setup.nx, setup.nz);
  if (rank == 0) {
    const Totals t = totals(result.state, setup.nx, setup.nz, dens_cell, rhot_cell, dx, dz);
    result.mass = t.mass;
    result.te = t.te;
  }
  return result;
}

}  // namespace miniweather
