// The SVG of one figure against a sweep's varied setting.

#include "sweep_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "haloflow/xml_text.hpp"
#include "ticks.hpp"

namespace haloflow::cases {
namespace {

constexpr double kWidth = 640;
constexpr double kHeight = 420;
constexpr double kLeft = 90;
constexpr double kRight = 24;
constexpr double kTop = 44;
constexpr double kBottom = 62;

// One axis: where a value lands on it, between two pixel positions.
struct Axis {
  double low = 0;
  double high = 1;
  bool log = false;
  double from = 0;  // pixel of `low`
  double to = 1;    // pixel of `high`

  [[nodiscard]] double at(double value) const {
    const double a = log ? std::log10(low) : low;
    const double b = log ? std::log10(high) : high;
    const double v = log ? std::log10(value) : value;
    return b == a ? (from + to) / 2 : from + (v - a) / (b - a) * (to - from);
  }
};

// An axis around `values` (finite ones), padded a little so that no point sits on the frame.
Axis axis_for(const std::vector<double>& values, double from, double to) {
  std::vector<double> finite;
  for (const double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  Axis axis{.low = 0, .high = 1, .log = wants_log_axis(finite), .from = from, .to = to};
  if (finite.empty()) return axis;
  const auto [low, high] = std::minmax_element(finite.begin(), finite.end());
  if (axis.log) {
    axis.low = *low / 1.15;
    axis.high = *high * 1.15;
  } else if (*high == *low) {
    const double pad = *low == 0 ? 1 : std::abs(*low) * 0.1;
    axis.low = *low - pad;
    axis.high = *high + pad;
  } else {
    const double pad = (*high - *low) * 0.06;
    axis.low = *low - pad;
    axis.high = *high + pad;
  }
  return axis;
}

std::string tick_text(double value) {
  return fmt::format("{:.4g}", value);
}

}  // namespace

bool wants_log_axis(const std::vector<double>& values) {
  if (values.empty()) return false;
  for (const double v : values) {
    if (!std::isfinite(v) || v <= 0) return false;
  }
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return *high >= 10 * *low;
}

std::vector<double> axis_ticks(double low, double high, bool log) {
  std::vector<double> ticks;
  if (!(high > low) || !std::isfinite(low) || !std::isfinite(high)) return ticks;
  if (log) {
    const int first = static_cast<int>(std::floor(std::log10(low)));
    const int last = static_cast<int>(std::ceil(std::log10(high)));
    const bool few = last - first <= 3;  // up to three decades: 2 and 5 between too
    for (int k = first; k <= last; ++k) {
      for (const double m : few ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double t = m * std::pow(10.0, k);
        if (t >= low * (1 - 1e-12) && t <= high * (1 + 1e-12)) ticks.push_back(t);
      }
    }
    return ticks;
  }
  return outputs::round_ticks(low, high, 6);  // the pictures' round values: 1, 2 or 5 x 10^k
}

std::string svg_plot(const SweepPlot& plot) {
  const std::size_t count = plot.y.size();
  const bool labelled = plot.x.empty();
  std::vector<double> xs = plot.x;
  if (labelled) {
    for (std::size_t i = 0; i < count; ++i) xs.push_back(static_cast<double>(i));
  }
  Axis x = axis_for(xs, kLeft, kWidth - kRight);
  if (labelled) {
    x.log = false;
    x.low = -0.5;
    x.high = static_cast<double>(count) - 0.5;
  }
  const Axis y = axis_for(plot.y, kHeight - kBottom, kTop);
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{3}</text>\n",
      kWidth, kHeight, kLeft, xml_escaped(plot.title));
  // The ticks and their grid lines.
  const auto x_tick = [&](double position, const std::string& text) {
    svg += fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"#e0e0e0\"/>\n"
        "<text x=\"{0:.2f}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#333333\">{4}</text>\n",
        position, kTop, kHeight - kBottom, kHeight - kBottom + 18, xml_escaped(text));
  };
  if (labelled) {
    for (std::size_t i = 0; i < count; ++i) {
      x_tick(x.at(static_cast<double>(i)), i < plot.x_labels.size() ? plot.x_labels[i] : "");
    }
  } else {
    for (const double t : axis_ticks(x.low, x.high, x.log)) x_tick(x.at(t), tick_text(t));
  }
  for (const double t : axis_ticks(y.low, y.high, y.log)) {
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.2f}\" x2=\"{2}\" y2=\"{1:.2f}\" stroke=\"#e0e0e0\"/>\n"
        "<text x=\"{3}\" y=\"{4:.2f}\" text-anchor=\"end\" fill=\"#333333\">{5}</text>\n",
        kLeft, y.at(t), kWidth - kRight, kLeft - 6, y.at(t) + 4, tick_text(t));
  }
  // The frame and the axis names (with the scale when it is logarithmic).
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      kLeft, kTop, kWidth - kLeft - kRight, kHeight - kTop - kBottom);
  svg += fmt::format("<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n",
                     (kLeft + kWidth - kRight) / 2, kHeight - 16, xml_escaped(plot.x_name),
                     x.log ? " (log scale)" : "");
  svg += fmt::format(
      "<text x=\"20\" y=\"{0:.2f}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 20 {0:.2f})\">{1}{2}</text>\n",
      (kTop + kHeight - kBottom) / 2, xml_escaped(plot.y_name), y.log ? " (log scale)" : "");
  // The points, joined in the sweep's order.
  std::string line;
  std::string markers;
  for (std::size_t i = 0; i < count && i < xs.size(); ++i) {
    if (!std::isfinite(plot.y[i]) || !std::isfinite(xs[i]) || (y.log && plot.y[i] <= 0)) continue;
    const double px = x.at(xs[i]);
    const double py = y.at(plot.y[i]);
    line += fmt::format("{}{:.2f},{:.2f}", line.empty() ? "" : " ", px, py);
    markers += fmt::format(
        "<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"4\" fill=\"#1f77b4\"><title>{}</title></circle>\n",
        px, py, tick_text(plot.y[i]));
  }
  if (!line.empty()) {
    svg += fmt::format(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n", line);
  }
  return svg + markers + "</svg>\n";
}

}  // namespace haloflow::cases
