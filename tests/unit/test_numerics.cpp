// The models' numerics, checked on the host executor (the end-to-end side:
// tests/cli/numerics.cmake).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "exact_sum.hpp"

using namespace haloflow::models;

namespace {

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("ExactSum: the same terms in any order, split and merged, give the same double") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<double> terms;
  for (int i = 0; i < 20000; ++i) {
    terms.push_back(std::ldexp(unit(random), static_cast<int>(random() % 80) - 40));
  }
  ExactSum forward;
  for (const double t : terms) forward.add(t);
  std::shuffle(terms.begin(), terms.end(), random);
  ExactSum left;
  ExactSum right;
  for (std::size_t i = 0; i < terms.size(); ++i) (i % 3 == 0 ? left : right).add(terms[i]);
  ExactSum::Digits merged = left.digits();
  for (std::size_t k = 0; k < merged.size(); ++k) merged[k] += right.digits()[k];
  CHECK(same_bits(ExactSum::from(merged, 0).value(), forward.value()));
  // Exact where a double sum is not.
  ExactSum cancel;
  for (const double t : {1e16, 1.0, -1e16, 1e-300, -1e-300, 3.0}) cancel.add(t);
  CHECK(cancel.value() == 4.0);
  ExactSum large;
  for (const double t : {1e308, 1e308, -1e308}) large.add(t);
  CHECK(large.value() == 1e308);
  ExactSum tiny;
  tiny.add(4.9406564584124654e-324);
  tiny.add(4.9406564584124654e-324);
  CHECK(tiny.value() == 2 * 4.9406564584124654e-324);
  ExactSum negative;
  for (const double t : {-0.1, -0.2, 0.05}) negative.add(t);
  CHECK(std::abs(negative.value() - (-0.25)) <= 1e-16);
}
