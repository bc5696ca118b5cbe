#include "png_output.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "bitmap_font.hpp"
#include "haloflow/error.hpp"
#include "output_files.hpp"

namespace haloflow::outputs {
namespace {

constexpr int kMargin = 10;
constexpr int kScale = 2;  // each font pixel is 2 x 2 picture pixels
constexpr int kLineHeight = kGlyphHeight * kScale + 6;
constexpr int kBarGap = 15;
constexpr int kBarWidth = 20;
constexpr int kTickLength = 5;
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrey{128, 128, 128};

struct Extremes {
  double minimum = 0;
  double maximum = 0;
};

Extremes extremes(const std::vector<double>& values) {
  Extremes out;
  bool any = false;
  for (const double v : values) {
    if (std::isnan(v)) continue;
    out.minimum = any ? std::min(out.minimum, v) : v;
    out.maximum = any ? std::max(out.maximum, v) : v;
    any = true;
  }
  return out;
}

// The field's size in pixels: a pixel per cell scaled up to at least about 256 pixels, or every
// k-th cell when the field is wider than 1024.
std::array<int, 2> field_pixels(std::int64_t nx, std::int64_t ny) {
  const std::int64_t largest = std::max(nx, ny);
  if (largest > 1024) {
    const std::int64_t step = (largest + 1023) / 1024;
    return {static_cast<int>((nx + step - 1) / step), static_cast<int>((ny + step - 1) / step)};
  }
  const std::int64_t scale = std::max<std::int64_t>(1, 256 / largest);
  return {static_cast<int>(nx * scale), static_cast<int>(ny * scale)};
}

}  // namespace

Rgb colour_of(double t) {
  // Control points of a viridis-like map.
  static constexpr std::array<std::array<double, 3>, 5> points{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
  const double at = t * static_cast<double>(points.size() - 1);
  const auto low = std::min(static_cast<std::size_t>(at), points.size() - 2);
  const double f = at - static_cast<double>(low);
  std::array<std::uint8_t, 3> c{};
  for (std::size_t k = 0; k < 3; ++k) {
    c[k] = static_cast<std::uint8_t>(
        std::lround(points[low][k] + f * (points[low + 1][k] - points[low][k])));
  }
  return {c[0], c[1], c[2]};
}

std::vector<double> colour_bar_ticks(double lo, double hi, int most) {
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

FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx, std::int64_t ny,
                        const PictureText& text) {
  if (nx < 1 || ny < 1 || values.size() != static_cast<std::size_t>(nx * ny)) {
    throw Error(fmt::format("PNG: {} values for a {} x {} field", values.size(), nx, ny));
  }
  FieldPicture out;
  const Extremes range = extremes(values);
  out.minimum = range.minimum;
  out.maximum = range.maximum;
  const auto [width, height] = field_pixels(nx, ny);
  out.field_width = width;
  out.field_height = height;
  out.field_x = kMargin;
  out.field_y = kMargin + static_cast<int>(text.title.size()) * kLineHeight + 4;
  // The bar at least tall enough for two labels; its ticks as many as fit, one label apart.
  out.bar_x = out.field_x + out.field_width + kBarGap;
  out.bar_y = out.field_y;
  out.bar_width = kBarWidth;
  out.bar_height = std::max(out.field_height, 4 * kLineHeight);
  out.ticks =
      colour_bar_ticks(out.minimum, out.maximum, std::min(8, out.bar_height / (kLineHeight + 4)));
  const double step = out.ticks.size() > 1 ? out.ticks[1] - out.ticks[0] : 1.0;
  std::vector<std::string> labels;
  int labels_width = 0;
  for (const double tick : out.ticks) {
    labels.push_back(tick_label(tick, step));
    labels_width = std::max(labels_width, text_width(labels.back(), kScale));
  }
  int title_width = 0;
  for (const std::string& line : text.title) {
    title_width = std::max(title_width, text_width(line, kScale));
  }
  const int bar_right = out.bar_x + kBarWidth + kTickLength + 4 + labels_width;
  const int units_right = out.bar_x + text_width(text.units, kScale);
  Picture& p = out.picture;
  p = Picture::filled(std::max({bar_right, units_right, kMargin + title_width}) + kMargin,
                      out.bar_y + out.bar_height + 8 + kLineHeight + kMargin, kWhite);

  for (std::size_t line = 0; line < text.title.size(); ++line) {
    draw_text(p, kMargin, kMargin + static_cast<int>(line) * kLineHeight, text.title[line], kScale,
              kBlack);
  }
  const double span = out.maximum - out.minimum;
  for (int py = 0; py < out.field_height; ++py) {
    // Row 0 at the top: the largest y.
    const std::int64_t j = ny - 1 - std::min<std::int64_t>(ny - 1, py * ny / out.field_height);
    for (int px = 0; px < out.field_width; ++px) {
      const std::int64_t i = std::min<std::int64_t>(nx - 1, px * nx / out.field_width);
      const double v = values[static_cast<std::size_t>(j * nx + i)];
      const Rgb colour =
          std::isnan(v) ? kGrey : colour_of(span > 0 ? (v - out.minimum) / span : 0.5);
      p.set(out.field_x + px, out.field_y + py, colour);
    }
  }
  // The bar: the maximum's colour at the top row, the minimum's at the bottom row.
  const auto row_of = [&](double value) {
    const double t = span > 0 ? (out.maximum - value) / span : 0.5;
    return out.bar_y + static_cast<int>(std::lround(t * (out.bar_height - 1)));
  };
  for (int py = 0; py < out.bar_height; ++py) {
    const double t = out.bar_height > 1 ? 1.0 - static_cast<double>(py) / (out.bar_height - 1) : 1;
    for (int px = 0; px < kBarWidth; ++px) p.set(out.bar_x + px, out.bar_y + py, colour_of(t));
  }
  for (std::size_t k = 0; k < out.ticks.size(); ++k) {
    const int y = row_of(out.ticks[k]);
    for (int dx = 0; dx < kTickLength; ++dx) {
      p.set(out.bar_x + kBarWidth + dx, y, kBlack);
      p.set(out.bar_x + kBarWidth + dx, y + 1, kBlack);
    }
    draw_text(p, out.bar_x + kBarWidth + kTickLength + 4, y - kGlyphHeight * kScale / 2, labels[k],
              kScale, kBlack);
  }
  draw_text(p, out.bar_x, out.bar_y + out.bar_height + 8, text.units, kScale, kBlack);
  return out;
}

std::vector<std::uint8_t> encode_png(const Picture& picture) {
  // libpng's simplified API: no setjmp, errors come back as a message.
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(picture.width);
  image.height = static_cast<png_uint_32>(picture.height);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  if (png_image_write_to_memory(&image, nullptr, &size, 0, picture.rgb.data(), 0, nullptr) == 0) {
    throw Error(fmt::format("PNG: libpng: {}", image.message));
  }
  std::vector<std::uint8_t> bytes(size);
  if (png_image_write_to_memory(&image, bytes.data(), &size, 0, picture.rgb.data(), 0, nullptr) ==
      0) {
    throw Error(fmt::format("PNG: libpng: {}", image.message));
  }
  bytes.resize(size);
  return bytes;
}

std::uint64_t write_png(const std::filesystem::path& path, const Picture& picture,
                        const std::filesystem::path& run_directory) {
  const auto bytes = encode_png(picture);
  write_output_file(path,
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    {.replace = true, .run_directory = run_directory});
  return bytes.size();
}

}  // namespace haloflow::outputs
