#pragma once
// A sweep's plot: one figure against the varied setting, as SVG. An axis is logarithmic when its
// values are all above 0 and span a factor of 10 or more (sizes that double, times that grow with
// them), linear otherwise; settings that are not numbers (a limiter's name) sit evenly spaced,
// each labelled.

#include <string>
#include <vector>

namespace haloflow::cases {

struct SweepPlot {
  std::string title;
  std::string x_name;                 //!< the varied setting ("jacobi2d.nx")
  std::string y_name;                 //!< the figure ("time_per_step")
  std::vector<double> x;              //!< numeric settings; empty when `x_labels` are used
  std::vector<std::string> x_labels;  //!< the settings' text, one per point
  std::vector<double> y;              //!< NaN: the point lacks the figure (not drawn)
};

//! Whether values span a log axis: all finite and above 0, the largest >= 10 x the smallest.
[[nodiscard]] bool wants_log_axis(const std::vector<double>& values);

//! Tick positions for [low, high]: 1, 2, 5 x 10^k steps on a linear axis (about 5), powers of
//! 10 (with 2 and 5 between when there are few) on a log one.
[[nodiscard]] std::vector<double> axis_ticks(double low, double high, bool log);

//! The SVG document: the points joined by a line, axes with ticks and labels, a title.
[[nodiscard]] std::string svg_plot(const SweepPlot& plot);

}  // namespace haloflow::cases
