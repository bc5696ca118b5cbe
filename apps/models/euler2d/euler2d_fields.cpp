// euler2d's host-side views of its state: initial fields, conserved totals, the primitive
// variables for the outputs, the density error against the exact solution.

#include "euler2d_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "euler2d_frames.hpp"
#include "euler2d_problem.hpp"
#include "exact_sum.hpp"
#include "haloflow/error.hpp"
#include "riemann_exact.hpp"

namespace haloflow::models::euler {

std::vector<double> initial_state(const EulerConfig& config, const CartesianDecomposition& grid,
                                  const FieldLayout& layout) {
  const std::int64_t fs = layout.field_elements();
  const std::array<double, 2> size = domain(config);
  const std::array<double, 2> h = euler_cell_size(config);
  std::vector<double> state(static_cast<std::size_t>(4 * fs), 1.0);  // ghosts: a valid gas
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
    const Primitive w = initial_at(config, (static_cast<double>(i) + 0.5) * h[0],
                                   (static_cast<double>(j) + 0.5) * h[1], size);
    const double values[4] = {w.rho, w.rho * w.u, w.rho * w.v,
                              w.p / (config.gamma - 1.0) + 0.5 * w.rho * (w.u * w.u + w.v * w.v)};
    for (std::int64_t f = 0; f < 4; ++f) state[static_cast<std::size_t>(at + f * fs)] = values[f];
  });
  return state;
}

std::array<double, 8> conserved_totals(const std::vector<double>& state,
                                       const CartesianDecomposition& grid,
                                       const FieldLayout& layout, double area,
                                       const BoundedCollectives& collectives) {
  const std::int64_t fs = layout.field_elements();
  std::array<ExactSum, 8> sums{};
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t, std::int64_t) {
    for (std::size_t f = 0; f < 4; ++f) {
      const double value = state[static_cast<std::size_t>(at + static_cast<std::int64_t>(f) * fs)];
      sums[f].add(value);
      sums[f + 4].add(std::abs(value));
    }
  });
  // Exact sums, reduced digit by digit (integers: any order gives the same digits), so the
  // totals are the same bits on any number of ranks.
  constexpr std::size_t kDigits = ExactSum::kDigits;
  std::vector<std::int64_t> mine(8 * kDigits);
  std::array<double, 8> special{};
  for (std::size_t k = 0; k < 8; ++k) {
    const ExactSum::Digits& digits = sums[k].digits();
    std::copy(digits.begin(), digits.end(),
              mine.begin() + static_cast<std::ptrdiff_t>(k * kDigits));
    special[k] = sums[k].special();
  }
  std::vector<std::int64_t> all(mine.size());
  std::array<double, 8> all_special{};
  collectives.allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_INT64_T,
                        MPI_SUM, "euler2d conserved totals");
  collectives.allreduce(special.data(), all_special.data(), 8, MPI_DOUBLE, MPI_SUM,
                        "euler2d conserved totals (non-finite terms)");
  std::array<double, 8> total{};
  for (std::size_t k = 0; k < 8; ++k) {
    ExactSum::Digits digits{};
    std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(k * kDigits), kDigits, digits.begin());
    total[k] = ExactSum::from(digits, all_special[k]).value() * area;
  }
  return total;
}

std::vector<FieldArray> primitive_arrays(const std::vector<double>& state,
                                         const CartesianDecomposition& grid,
                                         const FieldLayout& layout, double gamma) {
  const std::int64_t fs = layout.field_elements();
  FieldArray density{.name = "density", .units = "dimensionless"};
  FieldArray velocity{.name = "velocity", .components = 3, .units = "dimensionless"};
  FieldArray pressure{.name = "pressure", .units = "dimensionless"};
  FieldArray mach{.name = "mach", .units = "dimensionless"};
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t, std::int64_t) {
    const auto q = [&](std::int64_t f) { return state[static_cast<std::size_t>(f * fs + at)]; };
    const double rho = q(0);
    const double vx = q(1) / rho;
    const double vy = q(2) / rho;
    const double p = (gamma - 1.0) * (q(3) - 0.5 * rho * (vx * vx + vy * vy));
    density.values.push_back(rho);
    velocity.values.insert(velocity.values.end(), {vx, vy, 0.0});
    pressure.values.push_back(p);
    mach.values.push_back(std::sqrt((vx * vx + vy * vy) / (gamma * p / rho)));
  });
  return {std::move(density), std::move(velocity), std::move(pressure), std::move(mach)};
}

void density_errors(const EulerConfig& config, const std::vector<double>& state, double time,
                    const CartesianDecomposition& grid, const FieldLayout& layout,
                    const BoundedCollectives& collectives, EulerResult& result) {
  const std::array<double, 2> size = domain(config);
  const std::array<double, 2> h = euler_cell_size(config);
  const double dx = h[0];
  const double dy = h[1];
  const double cell_count = static_cast<double>(config.nx) * static_cast<double>(config.ny);
  const ExactRiemann riemann(kSodLeft, kSodRight, config.gamma);
  const RiemannWaves waves = riemann.waves();
  const bool sod = config.problem == EulerCase::sod_x || config.problem == EulerCase::sod_y;
  double errors[6] = {0, 0, 0, 0, 0, 0};  // sum |e|, sum e^2, |e| by wave (3), max |e|
  for_owned_cells(grid, layout, [&](std::int64_t at, std::int64_t i, std::int64_t j) {
    const double x0 = static_cast<double>(i) * dx;
    const double y0 = static_cast<double>(j) * dy;
    const double exact = exact_density(config, riemann, size, time, x0, x0 + dx, y0, y0 + dy);
    const double e = std::abs(state[static_cast<std::size_t>(at)] - exact);
    errors[0] += e;
    errors[1] += e * e;
    if (sod && time > 0) {
      const bool along_x = config.problem == EulerCase::sod_x;
      const double centre = along_x ? x0 + 0.5 * dx - 0.5 * size[0] : y0 + 0.5 * dy - 0.5 * size[1];
      errors[2 + nearest_wave(waves, centre, time)] += e;
    }
    errors[5] = std::max(errors[5], e);
  });
  double sums[5] = {0, 0, 0, 0, 0};
  double largest = 0;
  collectives.allreduce(errors, sums, 5, MPI_DOUBLE, MPI_SUM, "euler2d error sums");
  collectives.allreduce(&errors[5], &largest, 1, MPI_DOUBLE, MPI_MAX, "euler2d largest error");
  result.error_l1 = sums[0] / cell_count;
  result.error_l2 = std::sqrt(sums[1] / cell_count);
  result.error_linf = largest;
  for (std::size_t w = 0; w < 3; ++w) result.error_l1_waves[w] = sums[2 + w] / cell_count;
}

void report_bad_state(const EulerConfig& config, const CartesianDecomposition& grid,
                      const FieldLayout& layout, int rank, std::uint64_t first_bad,
                      long long bad_step, const BoundedCollectives& collectives,
                      const std::function<std::vector<double>()>& state) {
  const std::int64_t fs = layout.field_elements();
  const int candidate = first_bad != ~0ULL ? rank : INT_MAX;
  int first = 0;
  collectives.allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN,
                        "euler2d bad state (the first rank with one)");
  double info[4] = {0, 0, 0, 0};  // global i, j, density, pressure
  if (rank == first) {
    const auto at = static_cast<std::int64_t>(first_bad);
    const Index3 extent = layout.extent();
    const std::int64_t li = at % extent[0];
    const std::int64_t lj = at / extent[0] % extent[1];
    const std::vector<double> q = state();
    const auto value = [&](std::int64_t f) { return q[static_cast<std::size_t>(at + f * fs)]; };
    const double rho = value(0);
    // The ghost depth depends on exchange_every: the layout's.
    info[0] = static_cast<double>(grid.global_offset()[0] + li - layout.ghost_width);
    info[1] = static_cast<double>(grid.global_offset()[1] + lj - layout.ghost_width);
    info[2] = rho;
    info[3] =
        (config.gamma - 1.0) * (value(3) - 0.5 * (value(1) * value(1) + value(2) * value(2)) / rho);
  }
  collectives.broadcast(info, 4, MPI_DOUBLE, first, "euler2d bad state (its cell)");
  throw Error(fmt::format(
      "euler2d: step {}, rank {}, cell ({}, {}): density {}, pressure {} (a negative density "
      "or pressure, or a NaN, stops the run; try a smaller --cfl)",
      bad_step, first, static_cast<long long>(info[0]), static_cast<long long>(info[1]), info[2],
      info[3]));
}

}  // namespace haloflow::models::euler
