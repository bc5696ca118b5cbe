#pragma once
// A PNG picture of a 2D field (or a slice of a 3D one): colour-mapped, titled (the field, the
// step, the time, the slice), with a colour bar marked at round values and labelled with its
// units. Encoded by libpng (zlib-compressed).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "picture.hpp"

namespace haloflow::outputs {

//! What a picture says beside its field.
struct PictureText {
  std::vector<std::string> title;  //!< lines above the field
  std::string units;               //!< under the colour bar
};

//! Where the picture drew the field and the colour bar, and what the bar spans.
struct FieldPicture {
  Picture picture;
  int field_x = 0;  //!< the field's top-left pixel
  int field_y = 0;
  int field_width = 0;  //!< pixels the field covers
  int field_height = 0;
  int bar_x = 0;  //!< the colour bar's top-left pixel (the maximum's colour at the top)
  int bar_y = 0;
  int bar_width = 0;
  int bar_height = 0;
  double minimum = 0;  //!< the field's extremes (NaNs left out), the bar's ends
  double maximum = 0;
  std::vector<double> ticks;  //!< the values marked on the bar, ascending
};

//! The colour of `t` in [0, 1] (clamped): dark blue through green to yellow (viridis-like).
[[nodiscard]] Rgb colour_of(double t);

//! Round values (1, 2 or 5 times a power of ten apart) inside [lo, hi], at most `most` of them
//! and at least two when the range allows; {lo} when lo == hi.
[[nodiscard]] std::vector<double> colour_bar_ticks(double lo, double hi, int most);

//! `value` written as the ticks `step` apart need it: fixed decimals for moderate magnitudes,
//! otherwise scientific with as many digits as tell the ticks apart.
[[nodiscard]] std::string tick_label(double value, double step);

//! `values` (nx * ny, x fastest, y upwards) as a picture: the title, the field (scaled up to at
//! least about 256 pixels, down to at most 1024), the colour bar with its ticks and units. NaNs
//! are drawn grey. \throws Error when `values` is not nx * ny.
[[nodiscard]] FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx,
                                      std::int64_t ny, const PictureText& text);

//! The PNG file's bytes (8-bit RGB), by libpng. \throws Error with libpng's message.
[[nodiscard]] std::vector<std::uint8_t> encode_png(const Picture& picture);

//! Writes encode_png(picture) to `path`, inside `run_directory` (no link below it followed).
//! \returns the bytes written. \throws Error naming the file.
std::uint64_t write_png(const std::filesystem::path& path, const Picture& picture,
                        const std::filesystem::path& run_directory);

}  // namespace haloflow::outputs
