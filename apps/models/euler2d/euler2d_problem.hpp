#pragma once
// The problems euler2d solves, apart from how it steps them: each case's domain, initial state and
// exact density (where one is known), and the configuration's checks. Used by the run
// (euler2d.cpp) and its report.

#include <array>
#include <cstddef>

#include "euler2d.hpp"
#include "riemann_exact.hpp"

namespace haloflow::models::euler {

//! A gas state in primitive variables: density, velocity, pressure.
struct Primitive {
  double rho = 1, u = 0, v = 0, p = 1;
};

//! Sod's tube: the states left and right of the diaphragm.
inline constexpr GasState kSodLeft{1.0, 0.0, 1.0};
inline constexpr GasState kSodRight{0.125, 0.0, 0.1};

//! \throws Error naming the first field of `c` out of range and what is allowed.
void validate(const EulerConfig& c);

//! Domain lengths: the vortex's square, the unit square for Kelvin-Helmholtz, and for Sod a tube
//! of length 1 with square cells (the transverse length follows the cell count).
[[nodiscard]] std::array<double, 2> domain(const EulerConfig& c);

//! The initial state of `c`'s problem at (x, y) on a domain of `size`.
[[nodiscard]] Primitive initial_at(const EulerConfig& c, double x, double y,
                                   const std::array<double, 2>& size);

//! The exact density of `problem` at time `time` over the cell [x0, x1] x [y0, y1]: Sod's as the
//! Riemann solution's mean over the cell, the vortex's at the cell's centre, the uniform state.
[[nodiscard]] double exact_density(const EulerConfig& config, const ExactRiemann& riemann,
                                   const std::array<double, 2>& size, double time, double x0,
                                   double x1, double y0, double y1);

//! Which of Sod's waves the tube coordinate `x` (from the diaphragm) is nearest at time `time`:
//! 0 the left wave (the rarefaction), 1 the contact, 2 the right wave (the shock).
[[nodiscard]] std::size_t nearest_wave(const RiemannWaves& w, double x, double time);

}  // namespace haloflow::models::euler
