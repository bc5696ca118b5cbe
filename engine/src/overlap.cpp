#include "haloflow/overlap.hpp"

#include <algorithm>

namespace haloflow {

double median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  const auto middle = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), middle, samples.end());
  if (samples.size() % 2 == 1) return *middle;
  const double upper = *middle;
  const double lower = *std::max_element(samples.begin(), middle);
  return (lower + upper) / 2;
}

double percentile(std::vector<double> samples, double fraction) {
  if (samples.empty()) return 0;
  const auto rank = static_cast<std::size_t>(
      std::clamp(fraction, 0.0, 1.0) * static_cast<double>(samples.size() - 1) + 0.5);
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(rank),
                   samples.end());
  return samples[rank];
}

double hidden_fraction(double frame, double interior, double communication) {
  const double shorter = std::min(interior, communication);
  if (shorter <= 0) return 0;
  return std::clamp((interior + communication - frame) / shorter, 0.0, 1.0);
}

}  // namespace haloflow
