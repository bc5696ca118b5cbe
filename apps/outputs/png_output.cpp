#include "png_output.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "haloflow/error.hpp"
#include "output_files.hpp"

namespace haloflow::outputs {
namespace {

// The layout in pixels; a line of text is kLine tall whether a font was found or not, so that
// the field and the bar sit at the same place either way.
constexpr int kMargin = 10;
constexpr int kLine = 18;
constexpr int kGap = 4;
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

// Text through the font when there is one; without, nothing is drawn and nothing is wide.
struct Lettering {
  const Font* font = nullptr;
  [[nodiscard]] int width(std::string_view text) const { return font ? font->width(text) : 0; }
  void draw(Picture& p, int x, int y, std::string_view text) const {
    if (font) font->draw(p, x, y, text, kBlack);
  }
};

// Labels of ticks, written with as many digits as their spacing needs.
std::vector<std::string> labels_of(const std::vector<double>& values) {
  const double step = values.size() > 1 ? values[1] - values[0] : 1.0;
  std::vector<std::string> labels;
  for (const double value : values) labels.push_back(tick_label(value, step));
  return labels;
}

std::vector<double> values_of(const std::vector<AxisTick>& ticks) {
  std::vector<double> values;
  for (const AxisTick& tick : ticks) values.push_back(tick.value);
  return values;
}

int widest(const std::vector<std::string>& lines, const Lettering& letters) {
  int width = 0;
  for (const std::string& line : lines) width = std::max(width, letters.width(line));
  return width;
}

void draw_axes(FieldPicture& out, const PictureText& text, const Lettering& letters,
               const std::vector<std::string>& x_labels, const std::vector<std::string>& y_labels) {
  Picture& p = out.picture;
  const int left = out.field_x - 1;                   // the y axis's column
  const int bottom = out.field_y + out.field_height;  // the x axis's row
  for (int y = out.field_y; y <= bottom; ++y) p.set(left, y, kBlack);
  for (int x = left; x < out.field_x + out.field_width; ++x) p.set(x, bottom, kBlack);
  for (std::size_t k = 0; k < out.x_ticks.size(); ++k) {
    const int x = out.field_x + out.x_ticks[k].pixel;
    for (int dy = 1; dy <= kTickLength; ++dy) p.set(x, bottom + dy, kBlack);
    letters.draw(p, x - letters.width(x_labels[k]) / 2, bottom + kTickLength + 2, x_labels[k]);
  }
  letters.draw(p, out.field_x + (out.field_width - letters.width(text.x.name)) / 2,
               bottom + kTickLength + 2 + kLine, text.x.name);
  const int labels_right = left - kTickLength - kGap;
  int labels_left = labels_right;
  for (std::size_t k = 0; k < out.y_ticks.size(); ++k) {
    const int y = bottom - 1 - out.y_ticks[k].pixel;
    for (int dx = 1; dx <= kTickLength; ++dx) p.set(left - dx, y, kBlack);
    const int width = letters.width(y_labels[k]);
    labels_left = std::min(labels_left, labels_right - width);
    letters.draw(p, labels_right - width, y - kLine / 2, y_labels[k]);
  }
  letters.draw(p, labels_left - kGap - letters.width(text.y.name),
               out.field_y + out.field_height / 2 - kLine / 2, text.y.name);
}

void draw_colour_bar(FieldPicture& out, const PictureText& text, const Lettering& letters) {
  Picture& p = out.picture;
  const double span = out.maximum - out.minimum;
  // The maximum's colour at the top row, the minimum's at the bottom row.
  for (int py = 0; py < out.bar_height; ++py) {
    const double t = out.bar_height > 1 ? 1.0 - static_cast<double>(py) / (out.bar_height - 1) : 1;
    for (int px = 0; px < kBarWidth; ++px) p.set(out.bar_x + px, out.bar_y + py, colour_of(t));
  }
  const std::vector<std::string> labels = labels_of(out.ticks);
  for (std::size_t k = 0; k < out.ticks.size(); ++k) {
    const double t = span > 0 ? (out.maximum - out.ticks[k]) / span : 0.5;
    const int y = out.bar_y + static_cast<int>(std::lround(t * (out.bar_height - 1)));
    for (int dx = 0; dx < kTickLength; ++dx) {
      p.set(out.bar_x + kBarWidth + dx, y, kBlack);
      p.set(out.bar_x + kBarWidth + dx, y + 1, kBlack);
    }
    letters.draw(p, out.bar_x + kBarWidth + kTickLength + kGap, y - kLine / 2, labels[k]);
  }
  letters.draw(p, out.bar_x, out.bar_y + out.bar_height + 8, text.units);
}

}  // namespace

FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx, std::int64_t ny,
                        const PictureText& text) {
  return draw_field(values, nx, ny, text, picture_font());
}

FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx, std::int64_t ny,
                        const PictureText& text, const Font* font) {
  if (nx < 1 || ny < 1 || values.size() != static_cast<std::size_t>(nx * ny)) {
    throw Error(fmt::format("PNG: {} values for a {} x {} field", values.size(), nx, ny));
  }
  const Lettering letters{font};
  FieldPicture out;
  const Extremes range = extremes(values);
  out.minimum = range.minimum;
  out.maximum = range.maximum;
  const auto [width, height] = field_pixels(nx, ny);
  out.field_width = width;
  out.field_height = height;
  // Axes: about one label every 70 pixels across, one every two lines up.
  out.x_ticks = axis_ticks(text.x, nx, width, std::clamp(width / 70, 2, 8));
  out.y_ticks = axis_ticks(text.y, ny, height, std::clamp(height / (2 * kLine), 2, 8));
  const std::vector<std::string> x_labels = labels_of(values_of(out.x_ticks));
  const std::vector<std::string> y_labels = labels_of(values_of(out.y_ticks));
  const int y_name = letters.width(text.y.name);
  const int left_of_axis =
      (y_name > 0 ? y_name + kGap : 0) + widest(y_labels, letters) + kGap + kTickLength;
  // Room for half the first x label left of the field.
  const int first_x_label = x_labels.empty() ? 0 : letters.width(x_labels.front()) / 2;
  out.field_x = kMargin + std::max(left_of_axis, first_x_label) + 1;
  out.field_y = kMargin + static_cast<int>(text.title.size()) * kLine + kLine / 2;  // top y label
  // The bar at least tall enough for two labels; its ticks as many as fit, one label apart.
  // Beside the field, clear of the last x label (which the units under the bar would meet).
  const int last_x_label = x_labels.empty() ? 0 : letters.width(x_labels.back()) / 2 + 2 * kGap;
  out.bar_x = out.field_x + out.field_width + std::max(kBarGap, last_x_label);
  out.bar_y = out.field_y;
  out.bar_width = kBarWidth;
  out.bar_height = std::max(out.field_height, 4 * kLine);
  out.ticks = round_ticks(out.minimum, out.maximum, std::min(8, out.bar_height / (kLine + 4)));
  const int bar_right =
      out.bar_x + kBarWidth + kTickLength + kGap + widest(labels_of(out.ticks), letters);
  const int units_right = out.bar_x + letters.width(text.units);
  const int axes_bottom = out.field_y + out.field_height + 1 + kTickLength + 2 + 2 * kLine;
  const int bar_bottom = out.bar_y + out.bar_height + 8 + kLine;
  Picture& p = out.picture;
  p = Picture::filled(
      std::max({bar_right, units_right, kMargin + widest(text.title, letters)}) + kMargin,
      std::max(axes_bottom, bar_bottom) + kMargin, kWhite);

  for (std::size_t line = 0; line < text.title.size(); ++line) {
    letters.draw(p, kMargin, kMargin + static_cast<int>(line) * kLine, text.title[line]);
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
  draw_axes(out, text, letters, x_labels, y_labels);
  draw_colour_bar(out, text, letters);
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
