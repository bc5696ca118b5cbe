#pragma once
// An RGB picture in memory, 8 bits per channel, row 0 at the top: what png_output.hpp draws a
// field into and encodes.

#include <cstdint>
#include <vector>

namespace haloflow::outputs {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

struct Picture {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  //!< width * height * 3

  //! A picture filled with `background`.
  static Picture filled(int width, int height, Rgb background) {
    Picture p{.width = width, .height = height, .rgb = {}};
    p.rgb.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    for (std::size_t i = 0; i < p.rgb.size(); i += 3) {
      p.rgb[i] = background.r;
      p.rgb[i + 1] = background.g;
      p.rgb[i + 2] = background.b;
    }
    return p;
  }

  //! Sets pixel (x, y); outside the picture: nothing.
  void set(int x, int y, Rgb colour) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const auto at = 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                         static_cast<std::size_t>(x));
    rgb[at] = colour.r;
    rgb[at + 1] = colour.g;
    rgb[at + 2] = colour.b;
  }

  [[nodiscard]] Rgb at(int x, int y) const {
    const auto i = 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                        static_cast<std::size_t>(x));
    return {rgb[i], rgb[i + 1], rgb[i + 2]};
  }
};

}  // namespace haloflow::outputs
