#include "sine_mode.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace haloflow::models {

SineMode::SineMode(const Index3& cells, int k) {
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const std::int64_t n = cells[axis];
    auto& values = axes_[axis];
    values.resize(static_cast<std::size_t>(n));
    double axis_largest = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double value =
          std::sin(2.0 * std::numbers::pi * k * static_cast<double>(i) / static_cast<double>(n));
      values[static_cast<std::size_t>(i)] = value;
      axis_largest = std::max(axis_largest, std::abs(value));
    }
    largest_ *= axis_largest;
  }
}

double exact_amplitude(int k, double nu, double t) {
  const double wave = 2.0 * std::numbers::pi * k;
  return std::exp(-3.0 * wave * wave * nu * t);
}

double scheme_amplitude(const std::array<double, 3>& coefficients, const Index3& cells, int k,
                        int steps) {
  double g = 1.0;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const double s = std::sin(std::numbers::pi * k / static_cast<double>(cells[axis]));
    g -= 4.0 * coefficients[axis] * s * s;
  }
  return std::pow(g, steps);
}

}  // namespace haloflow::models
