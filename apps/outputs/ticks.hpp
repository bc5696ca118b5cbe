#pragma once
// Where a picture marks its scales: round values (1, 2 or 5 times a power of ten apart) on the
// colour bar and on the axes, the axes in the model's own coordinates, and the labels they carry.

#include <cstdint>
#include <string>
#include <vector>

namespace haloflow::outputs {

//! Round values (1, 2 or 5 times a power of ten apart) inside [lo, hi], at most `most` of them
//! and at least two when the range allows (otherwise its ends); {lo} when lo == hi.
[[nodiscard]] std::vector<double> round_ticks(double lo, double hi, int most);

//! `value` written as the ticks `step` apart need it: fixed decimals for moderate magnitudes,
//! otherwise scientific with as many digits as tell the ticks apart.
[[nodiscard]] std::string tick_label(double value, double step);

//! An axis of the field in the model's coordinates: sample k sits at first + k * spacing
//! (a cell's centre, or a point), and its block of pixels is centred there.
struct AxisScale {
  std::string name = "x";
  double first = 0;
  double spacing = 1;
};

struct AxisTick {
  double value = 0;  //!< in the model's coordinates
  int pixel = 0;     //!< from the axis's low end (left, or bottom), 0 to pixels - 1
};

//! The round values along `samples` samples drawn across `pixels` pixels, at most `most`, with
//! the pixel each falls on. The axis spans half a sample beyond the first and the last.
[[nodiscard]] std::vector<AxisTick> axis_ticks(const AxisScale& scale, std::int64_t samples,
                                               int pixels, int most);

}  // namespace haloflow::outputs
