#pragma once
// A PNG picture of a 2D field (or a slice of a 3D one): colour-mapped, with a colour bar and its
// minimum and maximum written beside it in a small built-in 5x7 font. The encoder is built in:
// stored (uncompressed) deflate blocks, CRC-32 and Adler-32, no library.

#include <cstdint>
#include <string>
#include <vector>

namespace haloflow::outputs {

//! An RGB picture, 8 bits per channel, row 0 at the top.
struct Picture {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // width * height * 3
};

//! Where the picture drew the field, and what the colour bar spans.
struct FieldPicture {
  Picture picture;
  int field_x = 0;  // the field's top-left pixel
  int field_y = 0;
  int field_width = 0;  // pixels the field covers
  int field_height = 0;
  double minimum = 0;
  double maximum = 0;
};

//! CRC-32 (ISO 3309, as PNG and zlib use it) of `size` bytes, continuing `crc`.
std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t crc = 0);
//! Adler-32 (RFC 1950) of `size` bytes.
std::uint32_t adler32(const std::uint8_t* data, std::size_t size);

//! The colour of `t` in [0, 1] (clamped): dark blue through green to yellow.
void colour_of(double t, std::uint8_t rgb[3]);

//! `values` (nx * ny, x fastest, y upwards) as a picture: the field (scaled up to at least about
//! 256 pixels, down to at most 1024), the colour bar, the labels. NaNs are drawn grey.
FieldPicture draw_field(const std::vector<double>& values, std::int64_t nx, std::int64_t ny);

//! The PNG file's bytes (8-bit RGB, no interlace, filter 0 on every row).
std::vector<std::uint8_t> encode_png(const Picture& picture);

//! Writes encode_png(picture) to `path`. \throws Error naming the file.
void write_png(const std::string& path, const Picture& picture);

}  // namespace haloflow::outputs
