#pragma once
// A sum of doubles that does not depend on the order of its terms: each finite term is added
// exactly into a long accumulator (integer digits of 32 bits spanning the whole double range,
// carries deferred), so the same terms added in any order, or split over any number of ranks and
// merged, hold the same digits, and value() rounds those to the same double. What euler2d's
// conservation totals are summed with, so that the printed totals do not change with the rank
// count.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace haloflow::models {

class ExactSum {
 public:
  //! Digit k is worth 2^(32 k - 1074): the smallest subnormal is 2^-1074, the largest double's
  //! top bit 2^1023, so the terms need digits 0 to 65; the rest hold carries of large sums.
  static constexpr int kDigits = 68;
  using Digits = std::array<std::int64_t, kDigits>;

  //! Adds `x` exactly; a NaN or an infinity makes the sum that (kept apart, added in double).
  void add(double x) {
    if (!std::isfinite(x)) {
      special_ += x;
      return;
    }
    const auto bits = std::bit_cast<std::uint64_t>(x);
    const bool negative = (bits >> 63) != 0;
    const auto biased = static_cast<int>((bits >> 52) & 0x7ffU);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    int shift = 0;  // the mantissa's lowest bit is worth 2^(shift - 1074)
    if (biased != 0) {
      mantissa |= std::uint64_t{1} << 52;
      shift = biased - 1;
    }
    const int digit = shift / 32;
    const int within = shift % 32;
    // mantissa << within, at most 85 bits: its bits 0-63 in `low`, 64-84 in `high`.
    const std::uint64_t low = mantissa << within;
    const std::uint64_t high = within == 0 ? 0 : mantissa >> (64 - within);
    const std::array<std::uint64_t, 3> pieces = {low & 0xffffffffU, low >> 32, high};
    for (std::size_t p = 0; p < 3; ++p) {
      const auto piece = static_cast<std::int64_t>(pieces[p]);
      digits_[static_cast<std::size_t>(digit) + p] += negative ? -piece : piece;
    }
    // Each add moves a digit by less than 2^32: carry before 2^30 adds could overflow 2^63.
    if (++pending_ == (std::int64_t{1} << 30)) normalise();
  }

  //! Carries: digits 0 to kDigits - 2 in [0, 2^32), the last one signed. The value is unchanged.
  void normalise() {
    for (std::size_t k = 0; k + 1 < digits_.size(); ++k) {
      const std::int64_t carry = digits_[k] >> 32;  // floor division by 2^32
      digits_[k] -= carry * (std::int64_t{1} << 32);
      digits_[k + 1] += carry;
    }
    pending_ = 0;
  }

  //! The digits, normalised (for a reduction over ranks: a sum of normalised digits of fewer
  //! than 2^31 ranks cannot overflow), and the non-finite part.
  [[nodiscard]] const Digits& digits() {
    normalise();
    return digits_;
  }
  [[nodiscard]] double special() const { return special_; }

  //! The sum of several accumulators' digits and non-finite parts (what an MPI_SUM of digits()
  //! and special() over the ranks gives).
  static ExactSum from(const Digits& digits, double special) {
    ExactSum sum;
    sum.digits_ = digits;
    sum.special_ = special;
    sum.normalise();
    return sum;
  }

  //! The exact sum rounded to a double: the digits from the top down, each addition rounded to
  //! nearest, so within about an ulp of the exact value, and the same double for the same digits.
  [[nodiscard]] double value() const {
    if (special_ != 0 || std::isnan(special_)) return special_;
    ExactSum copy = *this;
    copy.normalise();
    const bool negative = copy.digits_.back() < 0;
    if (negative) {
      for (std::int64_t& d : copy.digits_) d = -d;
      copy.normalise();
    }
    double total = 0;
    for (int k = kDigits - 1; k >= 0; --k) {
      const std::int64_t d = copy.digits_[static_cast<std::size_t>(k)];
      if (d != 0) total += std::ldexp(static_cast<double>(d), 32 * k - 1074);
    }
    return negative ? -total : total;
  }

 private:
  Digits digits_{};
  std::int64_t pending_ = 0;  // adds since the last normalise
  double special_ = 0;        // the NaNs and infinities added
};

}  // namespace haloflow::models
