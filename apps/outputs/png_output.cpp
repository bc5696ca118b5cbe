#include "png_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "haloflow/error.hpp"
#include "output_files.hpp"

namespace haloflow::outputs {
namespace {

constexpr int kMargin = 10;
constexpr int kBarGap = 15;
constexpr int kBarWidth = 20;
constexpr int kGlyphScale = 2;             // each font pixel is 2 x 2 picture pixels
constexpr int kAdvance = 6 * kGlyphScale;  // 5 columns and a space
constexpr int kGlyphHeight = 7 * kGlyphScale;

// 5x7 glyphs, a row per byte, the leftmost column in bit 4.
struct Glyph {
  char c;
  std::array<std::uint8_t, 7> rows;
};
constexpr std::array<Glyph, 14> kFont{{
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
    {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
    {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
}};

void put(Picture& p, int x, int y, const std::uint8_t rgb[3]) {
  if (x < 0 || y < 0 || x >= p.width || y >= p.height) return;
  const auto at = 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(p.width) +
                       static_cast<std::size_t>(x));
  p.rgb[at] = rgb[0];
  p.rgb[at + 1] = rgb[1];
  p.rgb[at + 2] = rgb[2];
}

void draw_text(Picture& p, int x, int y, const std::string& text) {
  const std::uint8_t black[3] = {0, 0, 0};
  for (const char c : text) {
    const auto glyph =
        std::find_if(kFont.begin(), kFont.end(), [c](const Glyph& g) { return g.c == c; });
    if (glyph != kFont.end()) {
      for (int row = 0; row < 7; ++row) {
        for (int column = 0; column < 5; ++column) {
          if ((glyph->rows[static_cast<std::size_t>(row)] >> (4 - column) & 1) == 0) continue;
          for (int dy = 0; dy < kGlyphScale; ++dy) {
            for (int dx = 0; dx < kGlyphScale; ++dx) {
              put(p, x + column * kGlyphScale + dx, y + row * kGlyphScale + dy, black);
            }
          }
        }
      }
    }
    x += kAdvance;
  }
}

std::string label(double value) {
  return fmt::format("{:.4g}", value);
}

void append32(std::vector<std::uint8_t>& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out.push_back(static_cast<std::uint8_t>(value >> shift));
  }
}

void chunk(std::vector<std::uint8_t>& out, const char* type,
           const std::vector<std::uint8_t>& data) {
  append32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  append32(out, crc32(out.data() + start, out.size() - start));
}

}  // namespace

std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::uint32_t adler32(const std::uint8_t* data, std::size_t size) {
  std::uint32_t a = 1;
  std::uint32_t b = 0;
  for (std::size_t i = 0; i < size; ++i) {
    a = (a + data[i]) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16) | a;
}

void colour_of(double t, std::uint8_t rgb[3]) {
  // Control points of a viridis-like map.
  static constexpr std::array<std::array<double, 3>, 5> points{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(t, 0.0, 1.0);
  const double at = t * static_cast<double>(points.size() - 1);
  const auto low = std::min(static_cast<std::size_t>(at), points.size() - 2);
  const double f = at - static_cast<double>(low);
  for (std::size_t c = 0; c < 3; ++c) {
    rgb[c] = static_cast<std::uint8_t>(
        std::lround(points[low][c] + f * (points[low + 1][c] - points[low][c])));
  }
}

FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx, std::int64_t ny) {
  if (nx < 1 || ny < 1 || values.size() != static_cast<std::size_t>(nx * ny)) {
    throw Error(fmt::format("PNG: {} values for a {} x {} field", values.size(), nx, ny));
  }
  FieldPicture out;
  bool any = false;
  for (const double v : values) {
    if (std::isnan(v)) continue;
    out.minimum = any ? std::min(out.minimum, v) : v;
    out.maximum = any ? std::max(out.maximum, v) : v;
    any = true;
  }
  const std::int64_t largest = std::max(nx, ny);
  if (largest > 1024) {
    const std::int64_t step = (largest + 1023) / 1024;
    out.field_width = static_cast<int>((nx + step - 1) / step);
    out.field_height = static_cast<int>((ny + step - 1) / step);
  } else {
    const std::int64_t scale = std::max<std::int64_t>(1, 256 / largest);
    out.field_width = static_cast<int>(nx * scale);
    out.field_height = static_cast<int>(ny * scale);
  }
  const std::string top = label(out.maximum);
  const std::string bottom = label(out.minimum);
  const int text_width = kAdvance * static_cast<int>(std::max(top.size(), bottom.size()));
  const int bar_x = kMargin + out.field_width + kBarGap;
  Picture& p = out.picture;
  p.width = bar_x + kBarWidth + 6 + text_width + kMargin;
  p.height = 2 * kMargin + std::max(out.field_height, 2 * kGlyphHeight + 4);
  p.rgb.assign(static_cast<std::size_t>(p.width) * static_cast<std::size_t>(p.height) * 3, 255);
  out.field_x = kMargin;
  out.field_y = kMargin;
  const double range = out.maximum - out.minimum;
  const std::uint8_t grey[3] = {128, 128, 128};
  for (int py = 0; py < out.field_height; ++py) {
    // Row 0 at the top: the largest y.
    const std::int64_t j = ny - 1 - std::min<std::int64_t>(ny - 1, py * ny / out.field_height);
    for (int px = 0; px < out.field_width; ++px) {
      const std::int64_t i = std::min<std::int64_t>(nx - 1, px * nx / out.field_width);
      const double v = values[static_cast<std::size_t>(j * nx + i)];
      std::uint8_t rgb[3];
      colour_of(range > 0 ? (v - out.minimum) / range : 0.5, rgb);
      put(p, out.field_x + px, out.field_y + py, std::isnan(v) ? grey : rgb);
    }
  }
  for (int py = 0; py < out.field_height; ++py) {
    std::uint8_t rgb[3];
    colour_of(out.field_height > 1 ? 1.0 - static_cast<double>(py) / (out.field_height - 1) : 1.0,
              rgb);
    for (int px = 0; px < kBarWidth; ++px) put(p, bar_x + px, kMargin + py, rgb);
  }
  const int text_x = bar_x + kBarWidth + 6;
  draw_text(p, text_x, kMargin, top);
  draw_text(p, text_x, kMargin + std::max(out.field_height, 2 * kGlyphHeight + 4) - kGlyphHeight,
            bottom);
  return out;
}

std::vector<std::uint8_t> encode_png(const Picture& picture) {
  const auto row_bytes = static_cast<std::size_t>(picture.width) * 3;
  std::vector<std::uint8_t> raw;
  raw.reserve((row_bytes + 1) * static_cast<std::size_t>(picture.height));
  for (int y = 0; y < picture.height; ++y) {
    raw.push_back(0);  // filter: none
    const auto* row = picture.rgb.data() + static_cast<std::size_t>(y) * row_bytes;
    raw.insert(raw.end(), row, row + row_bytes);
  }
  // zlib stream: header, stored deflate blocks (at most 65535 bytes each), Adler-32.
  std::vector<std::uint8_t> z{0x78, 0x01};
  std::size_t at = 0;
  do {
    const std::size_t length = std::min<std::size_t>(raw.size() - at, 65535);
    const bool last = at + length == raw.size();
    z.push_back(last ? 1 : 0);
    z.push_back(static_cast<std::uint8_t>(length & 0xFF));
    z.push_back(static_cast<std::uint8_t>(length >> 8));
    z.push_back(static_cast<std::uint8_t>(~length & 0xFF));
    z.push_back(static_cast<std::uint8_t>((~length >> 8) & 0xFF));
    z.insert(z.end(), raw.begin() + static_cast<std::ptrdiff_t>(at),
             raw.begin() + static_cast<std::ptrdiff_t>(at + length));
    at += length;
  } while (at < raw.size());
  append32(z, adler32(raw.data(), raw.size()));

  std::vector<std::uint8_t> png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> header;
  append32(header, static_cast<std::uint32_t>(picture.width));
  append32(header, static_cast<std::uint32_t>(picture.height));
  header.insert(header.end(), {8, 2, 0, 0, 0});  // 8 bits, RGB, deflate, filter 0, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", {});
  return png;
}

void write_png(const std::string& path, const Picture& picture) {
  const auto bytes = encode_png(picture);
  write_output_file(path,
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    {.replace = true,  // inside the run directory
                     .run_directory = std::filesystem::path(path).parent_path()});
}

}  // namespace haloflow::outputs
