#include "euler2d_problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "euler_kernels.hpp"
#include "haloflow/error.hpp"

namespace haloflow::models {
namespace euler {
namespace {

// The isentropic vortex (Shu): mean flow (1, 1), strength 5, on the periodic square [0, 10)^2.
constexpr double kVortexLength = 10.0;
constexpr double kVortexStrength = 5.0;
constexpr double kVortexMean = 1.0;

//! Wraps `d` into [-length/2, length/2).
double periodic_distance(double d, double length) {
  return d - length * std::floor(d / length + 0.5);
}

Primitive vortex_at(double x, double y, double t, double gamma) {
  const double cx = periodic_distance(x - (0.5 * kVortexLength + kVortexMean * t), kVortexLength);
  const double cy = periodic_distance(y - (0.5 * kVortexLength + kVortexMean * t), kVortexLength);
  const double r2 = cx * cx + cy * cy;
  const double pi = std::numbers::pi;
  const double bump = kVortexStrength / (2.0 * pi) * std::exp(0.5 * (1.0 - r2));
  const double temperature = 1.0 - (gamma - 1.0) * kVortexStrength * kVortexStrength /
                                       (8.0 * gamma * pi * pi) * std::exp(1.0 - r2);
  const double rho = std::pow(temperature, 1.0 / (gamma - 1.0));
  return {rho, kVortexMean - bump * cy, kVortexMean + bump * cx, std::pow(rho, gamma)};
}

// Values that are not short binary fractions, so that a stage which failed to keep them would
// round them visibly.
constexpr Primitive kUniform{0.96, -0.51, -0.84, 1.2};

}  // namespace

void validate(const EulerConfig& c) {
  if (c.nx < 4 || c.ny < 4) {
    throw Error(fmt::format(
        "euler2d cells {} x {}: not allowed; expected at least 4 cells on each axis", c.nx, c.ny));
  }
  if (!(c.cfl > 0) || c.cfl > 4) {
    throw Error(
        fmt::format("euler2d cfl: {} is not allowed; expected a number in (0, 4] (above about 1 "
                    "the scheme is unstable: allowed so that the bad-state stop can be seen)",
                    c.cfl));
  }
  if (c.stages != 2 && c.stages != 3) {
    throw Error(fmt::format(
        "euler2d stages: {} is not allowed; expected 2 (SSP-RK2) or 3 (SSP-RK3)", c.stages));
  }
  if (c.limiter != kernels::kMinmod && c.limiter != kernels::kVanLeer &&
      c.limiter != kernels::kNoLimiter) {
    throw Error(
        fmt::format("euler2d limiter: {} is not allowed; expected 0 (minmod), 1 (van Leer) or 2 "
                    "(none)",
                    c.limiter));
  }
  if (c.flux != kernels::kHllc && c.flux != kernels::kRusanov) {
    throw Error(
        fmt::format("euler2d flux: {} is not allowed; expected 0 (HLLC) or 1 (Rusanov)", c.flux));
  }
  if (!(c.gamma > 1) || c.t_end < 0 || c.run.steps < 1 || c.run.warmup < 0) {
    throw Error(fmt::format(
        "euler2d gamma {}, t_end {}, steps {}, warmup {}: not allowed; expected gamma > 1, "
        "t_end >= 0, at least 1 step, no negative warm-up",
        c.gamma, c.t_end, c.run.steps, c.run.warmup));
  }
}

std::array<double, 2> domain(const EulerConfig& c) {
  const auto nx = static_cast<double>(c.nx);
  const auto ny = static_cast<double>(c.ny);
  switch (c.problem) {
    case EulerCase::vortex:
      return {kVortexLength, kVortexLength};
    case EulerCase::sod_x:
      return {1.0, ny / nx};
    case EulerCase::sod_y:
      return {nx / ny, 1.0};
    case EulerCase::kelvin_helmholtz:
    case EulerCase::uniform:
      break;
  }
  return {1.0, 1.0};
}

Primitive initial_at(const EulerConfig& c, double x, double y, const std::array<double, 2>& size) {
  switch (c.problem) {
    case EulerCase::vortex:
      return vortex_at(x, y, 0.0, c.gamma);
    case EulerCase::sod_x:
    case EulerCase::sod_y: {
      const double along = c.problem == EulerCase::sod_x ? x / size[0] : y / size[1];
      const GasState& s = along < 0.5 ? kSodLeft : kSodRight;
      return {s.rho, 0.0, 0.0, s.p};
    }
    case EulerCase::uniform:
      return kUniform;
    case EulerCase::kelvin_helmholtz:
      break;
  }
  // A shear layer pair: a dense band moving right, the rest left, a single-mode kick in v.
  const bool band = std::abs(y - 0.5) < 0.25;
  const double pi = std::numbers::pi;
  const double kick =
      0.01 * std::sin(4.0 * pi * x) *
      (std::exp(-std::pow((y - 0.25) / 0.05, 2)) + std::exp(-std::pow((y - 0.75) / 0.05, 2)));
  return {band ? 2.0 : 1.0, band ? 0.5 : -0.5, kick, 2.5};
}

double exact_density(const EulerConfig& config, const ExactRiemann& riemann,
                     const std::array<double, 2>& size, double time, double x0, double x1,
                     double y0, double y1) {
  switch (config.problem) {
    case EulerCase::vortex:
      return vortex_at(0.5 * (x0 + x1), 0.5 * (y0 + y1), time, config.gamma).rho;
    case EulerCase::uniform:
      return kUniform.rho;
    case EulerCase::sod_x:
    case EulerCase::sod_y:
      break;
    case EulerCase::kelvin_helmholtz:
      return 0;
  }
  const bool along_x = config.problem == EulerCase::sod_x;
  const double length = along_x ? size[0] : size[1];
  const double a = (along_x ? x0 : y0) - 0.5 * length;  // the diaphragm at x = 0
  const double b = (along_x ? x1 : y1) - 0.5 * length;
  if (time > 0) return riemann.mean_density(a / time, b / time);
  const double left = std::clamp(-a, 0.0, b - a);  // the part of the cell left of the diaphragm
  return (left * kSodLeft.rho + (b - a - left) * kSodRight.rho) / (b - a);
}

std::size_t nearest_wave(const RiemannWaves& w, double x, double time) {
  const auto distance = [&](double from, double to) {
    const double a = from * time;
    const double b = to * time;
    return x < a ? a - x : (x > b ? x - b : 0.0);
  };
  const std::array<double, 3> d = {distance(w.left_head, w.left_tail),
                                   distance(w.contact, w.contact),
                                   distance(w.right_tail, w.right_head)};
  return static_cast<std::size_t>(std::min_element(d.begin(), d.end()) - d.begin());
}

}  // namespace euler

EulerCase euler_case_from_string(const std::string& text) {
  if (text == "vortex") return EulerCase::vortex;
  if (text == "sod-x") return EulerCase::sod_x;
  if (text == "sod-y") return EulerCase::sod_y;
  if (text == "kh") return EulerCase::kelvin_helmholtz;
  if (text == "uniform") return EulerCase::uniform;
  throw Error(fmt::format(
      "euler2d case: '{}' is not allowed; expected vortex, sod-x, sod-y, kh or uniform", text));
}

std::array<double, 2> euler_cell_size(const EulerConfig& config) {
  const std::array<double, 2> size = euler::domain(config);
  return {size[0] / static_cast<double>(config.nx), size[1] / static_cast<double>(config.ny)};
}

std::string to_string(EulerCase problem) {
  switch (problem) {
    case EulerCase::vortex:
      return "vortex";
    case EulerCase::sod_x:
      return "sod-x";
    case EulerCase::sod_y:
      return "sod-y";
    case EulerCase::uniform:
      return "uniform";
    case EulerCase::kelvin_helmholtz:
      break;
  }
  return "kh";
}

std::string to_string(ExchangeEvery every) {
  switch (every) {
    case ExchangeEvery::step:
      return "step";
    case ExchangeEvery::automatic:
      return "auto";
    case ExchangeEvery::stage:
      break;
  }
  return "stage";
}

}  // namespace haloflow::models
