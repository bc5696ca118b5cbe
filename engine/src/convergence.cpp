// Convergence studies: observed orders from a series of (h, errors), and the study as tables and
// as a log-log SVG plot drawn by hand (plain SVG, like the trace timeline).

#include "haloflow/convergence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

#include "haloflow/error.hpp"
#include "haloflow/xml_text.hpp"

namespace haloflow::convergence {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool usable(double error) {
  return std::isfinite(error) && error > 0;
}

// An order as the tables show it (2 decimals; the CSV 4, for scripts); empty where undefined.
std::string order_text(double order, int decimals = 2) {
  return std::isfinite(order) ? fmt::format("{:.{}f}", order, decimals) : std::string();
}

// A CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// A Markdown table cell: the pipe escaped, line breaks as spaces.
std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (const char c : text) {
    if (c == '|') {
      cell += "\\|";
    } else if (c == '\n' || c == '\r') {
      cell += ' ';
    } else {
      cell += c;
    }
  }
  return cell;
}

std::string design_line(const Study& study) {
  if (study.design_order <= 0) return "design order: none stated";
  return fmt::format("design order: {:g}{}", study.design_order,
                     study.design_note.empty() ? "" : " (" + study.design_note + ")");
}

// SVG layout.
constexpr double kWidth = 640;
constexpr double kHeight = 460;
constexpr double kLeft = 78;
constexpr double kRight = 150;  // the legend
constexpr double kTop = 44;
constexpr double kBottom = 54;
constexpr std::array<const char*, 6> kColours{"#4c78a8", "#f58518", "#54a24b",
                                              "#e45756", "#b279a2", "#72b7b2"};
constexpr std::array<const char*, 6> kMarkers{"circle", "square", "diamond",
                                              "circle", "square", "diamond"};

std::string marker(const char* shape, double x, double y, const char* colour) {
  if (std::string_view(shape) == "square") {
    return fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"7\" height=\"7\" fill=\"{}\"/>\n",
                       x - 3.5, y - 3.5, colour);
  }
  if (std::string_view(shape) == "diamond") {
    return fmt::format(
        "<polygon points=\"{:.2f},{:.2f} {:.2f},{:.2f} {:.2f},{:.2f} {:.2f},{:.2f}\" "
        "fill=\"{}\"/>\n",
        x, y - 5, x + 5, y, x, y + 5, x - 5, y, colour);
  }
  return fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3.5\" fill=\"{}\"/>\n", x, y, colour);
}

// A log axis: log10 of its ends, each end 1, 2 or 5 times a power of ten.
struct Axis {
  double low = 0;
  double high = 1;
};

// The largest 1, 2 or 5 times a power of ten at most v, and the smallest at least v.
double round_down(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {5.0, 2.0, 1.0}) {
    if (m * decade <= v * (1 + 1e-12)) return m * decade;
  }
  return decade / 2;
}

double round_up(double v) {
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * decade >= v * (1 - 1e-12)) return m * decade;
  }
  return 10 * decade;
}

Axis axis_around(double low, double high) {
  double a = round_down(low);
  double b = round_up(high);
  if (b / a < 1.5) {  // one value, or nearly: a factor of 2 or more either side
    a = round_down(low / 2);
    b = round_up(high * 2);
  }
  return {std::log10(a), std::log10(b)};
}

// The ticks of an axis: every power of ten on it, and 2 and 5 times them on an axis of at most
// 2.5 decades.
std::vector<double> ticks(const Axis& axis) {
  const bool fine = axis.high - axis.low <= 2.5;
  std::vector<double> values;
  for (int d = static_cast<int>(std::floor(axis.low)); d <= static_cast<int>(std::ceil(axis.high));
       ++d) {
    for (const double m : {1.0, 2.0, 5.0}) {
      if (m != 1 && !fine) continue;
      const double v = m * std::pow(10.0, d);
      const double at = std::log10(v);
      if (at >= axis.low - 1e-9 && at <= axis.high + 1e-9) values.push_back(v);
    }
  }
  return values;
}

}  // namespace

double observed_order(double h0, double e0, double h1, double e1) {
  if (!usable(e0) || !usable(e1) || !(std::isfinite(h0) && h0 > 0) ||
      !(std::isfinite(h1) && h1 > 0) || h0 == h1) {
    return kNaN;
  }
  return std::log(e0 / e1) / std::log(h0 / h1);
}

void check(const Study& study) {
  if (study.points.size() < 2) {
    throw Error(
        fmt::format("a convergence study needs at least 2 points; it has {}", study.points.size()));
  }
  if (study.norms.empty()) throw Error("a convergence study needs at least one norm");
  for (std::size_t i = 0; i < study.points.size(); ++i) {
    const Point& p = study.points[i];
    if (!(std::isfinite(p.h) && p.h > 0)) {
      throw Error(fmt::format("point {}: {} = {} is not allowed; expected a positive number", i,
                              study.h_name, p.h));
    }
    if (p.errors.size() != study.norms.size()) {
      throw Error(fmt::format("point {}: {} errors for {} norms; expected one per norm", i,
                              p.errors.size(), study.norms.size()));
    }
    for (std::size_t n = 0; n < p.errors.size(); ++n) {
      if (!std::isfinite(p.errors[n]) || p.errors[n] < 0) {
        throw Error(
            fmt::format("point {}: the {} error {} is not allowed; expected a finite "
                        "number >= 0",
                        i, study.norms[n], p.errors[n]));
      }
    }
  }
}

std::vector<std::vector<double>> observed_orders(const Study& study) {
  check(study);
  std::vector<std::vector<double>> orders;
  for (std::size_t i = 0; i + 1 < study.points.size(); ++i) {
    const Point& a = study.points[i];
    const Point& b = study.points[i + 1];
    std::vector<double> row;
    for (std::size_t n = 0; n < study.norms.size(); ++n) {
      row.push_back(observed_order(a.h, a.errors[n], b.h, b.errors[n]));
    }
    orders.push_back(std::move(row));
  }
  return orders;
}

std::string table_text(const Study& study) {
  const auto orders = observed_orders(study);
  std::size_t label_width = 5;
  for (const Point& p : study.points) label_width = std::max(label_width, p.label.size());
  std::string text =
      fmt::format("{:>5}  {:<{}}  {:>10}", "point", "label", label_width, study.h_name);
  for (const std::string& norm : study.norms) {
    text += fmt::format("  {:>10}  {:>6}", norm, "order");
  }
  text += "\n";
  for (std::size_t i = 0; i < study.points.size(); ++i) {
    const Point& p = study.points[i];
    text += fmt::format("{:>5}  {:<{}}  {:>10.4g}", i, p.label, label_width, p.h);
    for (std::size_t n = 0; n < study.norms.size(); ++n) {
      text += fmt::format("  {:>10.3e}  {:>6}", p.errors[n],
                          i == 0 ? std::string() : order_text(orders[i - 1][n]));
    }
    text += "\n";
  }
  // No blanks at the ends of lines (the first row has no orders).
  std::string trimmed;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start)) {
    std::string line = text.substr(start, end - start);
    line.erase(line.find_last_not_of(' ') + 1);
    trimmed += line + "\n";
  }
  return trimmed + design_line(study) + "\n";
}

std::string table_csv(const Study& study) {
  const auto orders = observed_orders(study);
  std::string text = fmt::format("point,label,{}", csv_field(study.h_name));
  for (const std::string& norm : study.norms) {
    text += fmt::format(",{},{}", csv_field(norm), csv_field("order_" + norm));
  }
  text += "\r\n";
  for (std::size_t i = 0; i < study.points.size(); ++i) {
    const Point& p = study.points[i];
    text += fmt::format("{},{},{:.17g}", i, csv_field(p.label), p.h);
    for (std::size_t n = 0; n < study.norms.size(); ++n) {
      text += fmt::format(",{:.17g},{}", p.errors[n],
                          i == 0 ? std::string() : order_text(orders[i - 1][n], 4));
    }
    text += "\r\n";
  }
  return text;
}

std::string table_markdown(const Study& study) {
  const auto orders = observed_orders(study);
  std::string text;
  if (!study.title.empty()) text += fmt::format("# {}\n\n", markdown_cell(study.title));
  text += fmt::format("| point | label | {} |", markdown_cell(study.h_name));
  std::string rule = "| ---: | --- | ---: |";
  for (const std::string& norm : study.norms) {
    text += fmt::format(" {} | order |", markdown_cell(norm));
    rule += " ---: | ---: |";
  }
  text += "\n" + rule + "\n";
  for (std::size_t i = 0; i < study.points.size(); ++i) {
    const Point& p = study.points[i];
    text += fmt::format("| {} | {} | {:.4g} |", i, markdown_cell(p.label), p.h);
    for (std::size_t n = 0; n < study.norms.size(); ++n) {
      const std::string order = i == 0 ? std::string() : order_text(orders[i - 1][n]);
      text += fmt::format(" {:.3e} | {} |", p.errors[n], order.empty() ? "" : order);
    }
    text += "\n";
  }
  return fmt::format("{}\n{}\n", text, markdown_cell(design_line(study)));
}

std::string svg_plot(const Study& study) {
  check(study);
  // The axes' ranges: around every h and every error above 0.
  double h_low = std::numeric_limits<double>::infinity();
  double h_high = 0;
  double e_low = std::numeric_limits<double>::infinity();
  double e_high = 0;
  for (const Point& p : study.points) {
    h_low = std::min(h_low, p.h);
    h_high = std::max(h_high, p.h);
    for (const double e : p.errors) {
      if (!usable(e)) continue;
      e_low = std::min(e_low, e);
      e_high = std::max(e_high, e);
    }
  }
  if (e_high == 0) {  // every error 0: one decade around 1, the series drawn without points
    e_low = 0.1;
    e_high = 1;
  }
  // The design order: a dashed line of that slope across the series' range of h, half the
  // smallest error of the coarsest point below it (beside the series, not over them).
  std::optional<std::array<double, 2>> design;  // its errors at h_high and at h_low
  if (study.design_order > 0) {
    const Point& coarsest =
        *std::max_element(study.points.begin(), study.points.end(),
                          [](const Point& a, const Point& b) { return a.h < b.h; });
    double lowest = std::numeric_limits<double>::infinity();
    for (const double e : coarsest.errors) {
      if (usable(e)) lowest = std::min(lowest, e);
    }
    if (std::isfinite(lowest)) {
      const double start = lowest / 2;
      design = {start, start * std::pow(h_low / h_high, study.design_order)};
      e_low = std::min(e_low, (*design)[1]);
      e_high = std::max(e_high, start);
    }
  }
  const Axis x_axis = axis_around(h_low, h_high);
  const Axis y_axis = axis_around(e_low, e_high);
  const double plot_width = kWidth - kLeft - kRight;
  const double plot_height = kHeight - kTop - kBottom;
  const auto x_of = [&](double h) {
    return kLeft + (std::log10(h) - x_axis.low) / (x_axis.high - x_axis.low) * plot_width;
  };
  const auto y_of = [&](double e) {
    return kTop + (y_axis.high - std::log10(e)) / (y_axis.high - y_axis.low) * plot_height;
  };

  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{3}</text>\n",
      kWidth, kHeight, kLeft, xml_escaped(study.title));
  // Grid lines and labels at the axes' ticks.
  for (const double v : ticks(x_axis)) {
    const double x = x_of(v);
    svg += fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"#dddddd\"/>\n", x, kTop,
        kTop + plot_height);
    svg += fmt::format(
        "<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\" fill=\"#333333\">{:g}</text>\n", x,
        kTop + plot_height + 16, v);
  }
  for (const double v : ticks(y_axis)) {
    const double y = y_of(v);
    svg += fmt::format(
        "<line x1=\"{1}\" y1=\"{0:.2f}\" x2=\"{2}\" y2=\"{0:.2f}\" stroke=\"#dddddd\"/>\n", y,
        kLeft, kLeft + plot_width);
    svg += fmt::format(
        "<text x=\"{}\" y=\"{:.2f}\" text-anchor=\"end\" fill=\"#333333\">{:g}</text>\n", kLeft - 6,
        y + 4, v);
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333333\"/>\n",
      kLeft, kTop, plot_width, plot_height);
  svg += fmt::format(
      "<clipPath id=\"plot-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
      "</clipPath>\n",
      kLeft, kTop, plot_width, plot_height);
  svg += fmt::format("<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     kLeft + plot_width / 2, kHeight - 14, xml_escaped(study.h_name));
  svg += fmt::format(
      "<text x=\"18\" y=\"{0:.2f}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 18 {0:.2f})\">error</text>\n",
      kTop + plot_height / 2);

  // The series: a line through the points with an error above 0, a marker at each.
  const double legend_x = kLeft + plot_width + 16;
  double legend_y = kTop + 10;
  for (std::size_t n = 0; n < study.norms.size(); ++n) {
    const char* colour = kColours[n % kColours.size()];
    const char* shape = kMarkers[n % kMarkers.size()];
    std::string points;
    std::string markers;
    for (const Point& p : study.points) {
      if (!usable(p.errors[n])) continue;
      const double x = x_of(p.h);
      const double y = y_of(p.errors[n]);
      points += fmt::format("{}{:.2f},{:.2f}", points.empty() ? "" : " ", x, y);
      markers += marker(shape, x, y, colour);
    }
    if (!points.empty()) {
      svg += fmt::format(
          "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"/>\n", points,
          colour);
    }
    svg += markers;
    svg += fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{2:.2f}\" y2=\"{1:.2f}\" stroke=\"{3}\" "
        "stroke-width=\"1.8\"/>\n",
        legend_x, legend_y, legend_x + 24, colour);
    svg += marker(shape, legend_x + 12, legend_y, colour);
    svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\">{}</text>\n", legend_x + 30, legend_y + 4,
                       xml_escaped(study.norms[n]));
    legend_y += 20;
  }
  if (design) {
    svg += fmt::format(
        "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#333333\" "
        "stroke-width=\"1.2\" stroke-dasharray=\"6 4\" clip-path=\"url(#plot-area)\"/>\n",
        x_of(h_high), y_of((*design)[0]), x_of(h_low), y_of((*design)[1]));
    svg += fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1:.2f}\" x2=\"{2:.2f}\" y2=\"{1:.2f}\" stroke=\"#333333\" "
        "stroke-width=\"1.2\" stroke-dasharray=\"6 4\"/>\n",
        legend_x, legend_y, legend_x + 24);
    svg += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\">order {:g}</text>\n", legend_x + 30,
                       legend_y + 4, study.design_order);
  }
  return svg + "</svg>\n";
}

}  // namespace haloflow::convergence
