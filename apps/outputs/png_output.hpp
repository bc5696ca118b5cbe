#pragma once
// A PNG picture of a 2D field (or a slice of a 3D one): colour-mapped with viridis, titled (the
// field, the step, the time, the slice), with x and y axes ticked at round values of the model's
// coordinates, and a colour bar marked at round values and labelled with its units. Text in the
// font of font.hpp. Encoded by libpng (zlib-compressed).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "font.hpp"
#include "picture.hpp"
#include "ticks.hpp"
#include "viridis.hpp"

namespace haloflow::outputs {

//! What a picture says beside its field.
struct PictureText {
  std::vector<std::string> title;  //!< lines above the field
  std::string units;               //!< under the colour bar
  AxisScale x{.name = "x"};        //!< the field's axes: where its samples sit
  AxisScale y{.name = "y"};
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
  //! The axes' marks; pixel: the column from field_x (x), the row up from the field's bottom (y).
  std::vector<AxisTick> x_ticks;
  std::vector<AxisTick> y_ticks;
};

//! `values` (nx * ny, x fastest, y upwards) as a picture: the title, the field (scaled up to at
//! least about 256 pixels, down to at most 1024) on its axes, the colour bar with its ticks and
//! units. NaNs are drawn grey. Text in `font`; none without one (the layout stays the same).
//! \throws Error when `values` is not nx * ny.
[[nodiscard]] FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx,
                                      std::int64_t ny, const PictureText& text, const Font* font);

//! The same in picture_font().
[[nodiscard]] FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx,
                                      std::int64_t ny, const PictureText& text);

//! The PNG file's bytes (8-bit RGB), by libpng. \throws Error with libpng's message.
[[nodiscard]] std::vector<std::uint8_t> encode_png(const Picture& picture);

//! Writes encode_png(picture) to `path`, inside `run_directory` (no link below it followed).
//! \returns the bytes written. \throws Error naming the file.
std::uint64_t write_png(const std::filesystem::path& path, const Picture& picture,
                        const std::filesystem::path& run_directory);

}  // namespace haloflow::outputs
