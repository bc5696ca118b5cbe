#include "riemann_exact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "haloflow/error.hpp"

namespace haloflow::models {

ExactRiemann::ExactRiemann(GasState left, GasState right, double gamma)
    : l_(left),
      r_(right),
      gamma_(gamma),
      cl_(std::sqrt(gamma * left.p / left.rho)),
      cr_(std::sqrt(gamma * right.p / right.rho)) {
  const double g = gamma_;
  if (2.0 / (g - 1.0) * (cl_ + cr_) <= r_.u - l_.u) {
    throw Error("exact Riemann solver: the data generate a vacuum; not supported");
  }
  // Start from the primitive-variable (PVRS) estimate, kept positive.
  double p = 0.5 * (l_.p + r_.p) - 0.125 * (r_.u - l_.u) * (l_.rho + r_.rho) * (cl_ + cr_);
  p = std::max(p, 1e-8 * std::min(l_.p, r_.p));
  for (int iteration = 0;; ++iteration) {
    double dl = 0;
    double dr = 0;
    const double fl = pressure_function(p, l_, cl_, &dl);
    const double fr = pressure_function(p, r_, cr_, &dr);
    double next = p - (fl + fr + r_.u - l_.u) / (dl + dr);
    next = std::max(next, 1e-12 * std::min(l_.p, r_.p));
    const double change = 2.0 * std::abs(next - p) / (next + p);
    p = next;
    if (change <= 1e-14) break;
    if (iteration > 100) {
      throw Error(
          fmt::format("exact Riemann solver: no convergence after 100 iterations (p {})", p));
    }
  }
  p_star_ = p;
  double dummy = 0;
  u_star_ = 0.5 * (l_.u + r_.u) +
            0.5 * (pressure_function(p, r_, cr_, &dummy) - pressure_function(p, l_, cl_, &dummy));
}

double ExactRiemann::pressure_function(double p, const GasState& k, double c,
                                       double* derivative) const {
  const double g = gamma_;
  if (p > k.p) {  // shock
    const double a = 2.0 / ((g + 1.0) * k.rho);
    const double b = (g - 1.0) / (g + 1.0) * k.p;
    const double root = std::sqrt(a / (p + b));
    *derivative = root * (1.0 - 0.5 * (p - k.p) / (b + p));
    return (p - k.p) * root;
  }
  // rarefaction
  const double ratio = p / k.p;
  *derivative = 1.0 / (k.rho * c) * std::pow(ratio, -(g + 1.0) / (2.0 * g));
  return 2.0 * c / (g - 1.0) * (std::pow(ratio, (g - 1.0) / (2.0 * g)) - 1.0);
}

RiemannWaves ExactRiemann::waves() const {
  const double g = gamma_;
  const double g1 = (g - 1.0) / (2.0 * g);
  const double g2 = (g + 1.0) / (2.0 * g);
  RiemannWaves w;
  w.contact = u_star_;
  if (p_star_ > l_.p) {
    w.left_head = w.left_tail = l_.u - cl_ * std::sqrt(g2 * p_star_ / l_.p + g1);
  } else {
    w.left_head = l_.u - cl_;
    w.left_tail = u_star_ - cl_ * std::pow(p_star_ / l_.p, g1);
  }
  if (p_star_ > r_.p) {
    w.right_tail = w.right_head = r_.u + cr_ * std::sqrt(g2 * p_star_ / r_.p + g1);
  } else {
    w.right_head = r_.u + cr_;
    w.right_tail = u_star_ + cr_ * std::pow(p_star_ / r_.p, g1);
  }
  return w;
}

double ExactRiemann::mean_density(double s0, double s1) const {
  // Gauss-Legendre, 8 points on [-1, 1].
  static constexpr std::array<double, 4> kNodes = {0.1834346424956498, 0.5255324099163290,
                                                   0.7966664774136267, 0.9602898564975363};
  static constexpr std::array<double, 4> kWeights = {0.3626837833783620, 0.3137066458778873,
                                                     0.2223810344533745, 0.1012285362903763};
  const RiemannWaves w = waves();
  std::array<double, 7> cuts = {s0,           w.left_head,  w.left_tail, w.contact,
                                w.right_tail, w.right_head, s1};
  std::sort(cuts.begin() + 1, cuts.end() - 1);
  double integral = 0;
  double from = s0;
  for (std::size_t k = 1; k < cuts.size(); ++k) {
    const double to = std::min(std::max(cuts[k], s0), s1);
    if (to <= from) continue;
    const double half = 0.5 * (to - from);
    const double middle = 0.5 * (to + from);
    for (std::size_t q = 0; q < kNodes.size(); ++q) {
      integral += half * kWeights[q] *
                  (sample(middle - half * kNodes[q]).rho + sample(middle + half * kNodes[q]).rho);
    }
    from = to;
  }
  return integral / (s1 - s0);
}

GasState ExactRiemann::sample(double s) const {
  const double g = gamma_;
  const double g1 = (g - 1.0) / (2.0 * g);
  const double g2 = (g + 1.0) / (2.0 * g);
  const double g6 = (g - 1.0) / (g + 1.0);
  const double ps = p_star_;
  const double us = u_star_;
  if (s <= us) {  // left of the contact
    const GasState& k = l_;
    const double c = cl_;
    if (ps > k.p) {
      const double shock = k.u - c * std::sqrt(g2 * ps / k.p + g1);
      if (s <= shock) return k;
      return {k.rho * (ps / k.p + g6) / (g6 * ps / k.p + 1.0), us, ps};
    }
    const double head = k.u - c;
    if (s <= head) return k;
    const double tail = us - c * std::pow(ps / k.p, g1);
    if (s > tail) return {k.rho * std::pow(ps / k.p, 1.0 / g), us, ps};
    const double cf = 2.0 / (g + 1.0) * (c + 0.5 * (g - 1.0) * (k.u - s));
    return {k.rho * std::pow(cf / c, 2.0 / (g - 1.0)),
            2.0 / (g + 1.0) * (c + 0.5 * (g - 1.0) * k.u + s),
            k.p * std::pow(cf / c, 2.0 * g / (g - 1.0))};
  }
  const GasState& k = r_;
  const double c = cr_;
  if (ps > k.p) {
    const double shock = k.u + c * std::sqrt(g2 * ps / k.p + g1);
    if (s >= shock) return k;
    return {k.rho * (ps / k.p + g6) / (g6 * ps / k.p + 1.0), us, ps};
  }
  const double head = k.u + c;
  if (s >= head) return k;
  const double tail = us + c * std::pow(ps / k.p, g1);
  if (s <= tail) return {k.rho * std::pow(ps / k.p, 1.0 / g), us, ps};
  const double cf = 2.0 / (g + 1.0) * (c - 0.5 * (g - 1.0) * (k.u - s));
  return {k.rho * std::pow(cf / c, 2.0 / (g - 1.0)),
          2.0 / (g + 1.0) * (-c + 0.5 * (g - 1.0) * k.u + s),
          k.p * std::pow(cf / c, 2.0 * g / (g - 1.0))};
}

}  // namespace haloflow::models
