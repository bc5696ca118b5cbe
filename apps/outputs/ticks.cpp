#include "ticks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace haloflow::outputs {

std::vector<double> round_ticks(double lo, double hi, int most) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) return {lo};
  most = std::max(most, 2);
  // The smallest round step that puts at most `most` ticks inside the range.
  const double rough = (hi - lo) / most;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = 10 * power;
  for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
    const double candidate = factor * power;
    if (std::floor(hi / candidate) - std::ceil(lo / candidate) + 1 <= most) {
      step = candidate;
      break;
    }
  }
  std::vector<double> ticks;
  const double slack = step * 1e-9;  // lo and hi that are round values themselves are ticks
  for (double k = std::ceil((lo - slack) / step); k * step <= hi + slack; k += 1) {
    const double value = k * step;
    ticks.push_back(std::abs(value) < step * 1e-9 ? 0.0 : value);  // no "-0" or "1e-17"
  }
  if (ticks.size() < 2) ticks = {lo, hi};  // a range too narrow for round values: its ends
  return ticks;
}

std::string tick_label(double value, double step) {
  const double magnitude = std::max(std::abs(value), std::abs(step));
  if (value == 0) return "0";
  if (magnitude >= 1e-3 && magnitude < 1e5) {
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    return fmt::format("{:.{}f}", value, decimals);
  }
  const int digits = std::max(0, static_cast<int>(std::floor(std::log10(std::abs(value))) -
                                                  std::floor(std::log10(step) + 1e-9)));
  return fmt::format("{:.{}e}", value, std::min(digits, 6));
}

std::vector<AxisTick> axis_ticks(const AxisScale& scale, std::int64_t samples, int pixels,
                                 int most) {
  if (samples < 1 || pixels < 1 || !(scale.spacing > 0)) return {};
  const auto n = static_cast<double>(samples);
  const double lo = scale.first - 0.5 * scale.spacing;
  const double hi = scale.first + (n - 0.5) * scale.spacing;
  std::vector<AxisTick> ticks;
  for (const double value : round_ticks(lo, hi, most)) {
    // Sample coordinate (0.5: the first block's centre) to pixels across.
    const double at = ((value - scale.first) / scale.spacing + 0.5) * pixels / n;
    const int pixel = std::clamp(static_cast<int>(std::floor(at)), 0, pixels - 1);
    ticks.push_back({.value = value, .pixel = pixel});
  }
  return ticks;
}

}  // namespace haloflow::outputs
