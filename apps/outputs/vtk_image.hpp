#pragma once
// VTK's XML image data as VTK's own readers (ParaView's) read it: a piece (.vti) that declares
// its own extent, its values in binary after the XML (appended raw, or zlib-compressed in
// blocks), float32 or float64, and its time as the field "TimeValue"; the parallel file (.pvti)
// that names the pieces; the collection (.pvd) that lists every output with its time.
// Formatting only: no MPI, no files (vtk_output.hpp writes them).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "run_options.hpp"

namespace haloflow::outputs {

enum class VtkPrecision { float32, float64 };
enum class VtkCompression { none, zlib };

//! How the values are stored: float32 by default (a quarter of float64 ASCII's size and better;
//! float64 keeps every bit of a double field), zlib-compressed by default as VTK's own writer
//! compresses (3 to 20 times smaller again for smooth fields; `none` writes them raw, faster).
struct VtkFormat {
  VtkPrecision precision = VtkPrecision::float32;
  VtkCompression compression = VtkCompression::zlib;
};

//! Point indices per axis, first and last (inclusive): x0 x1 y0 y1 z0 z1, as VTK's Extent.
using Extent = std::array<std::int64_t, 6>;

//! What every file of one output says alike: the whole grid in points, where point (0, 0, 0)
//! sits, the spacing, whether the values sit at the points or in the cells, the time.
struct ImageGrid {
  Extent whole{};
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
  models::Centring centring = models::Centring::cells;
  double time = 0;
};

//! One array's values in a piece, `components` per sample, x fastest.
struct ArrayValues {
  std::string name;
  int components = 1;
  std::span<const double> values;
};

//! The values an extent holds: its points (point data) or its cells (cell data; an axis of one
//! point layer, such as a 2D field's z, counts one cell layer).
[[nodiscard]] std::int64_t extent_samples(const Extent& extent, models::Centring centring);

//! "x0 x1 y0 y1 z0 z1".
[[nodiscard]] std::string extent_text(const Extent& extent);

//! A .vti in its three parts, the XML, the appended data, the closing tags (written one after
//! another, so that the values are not copied once more into one string).
struct VtiParts {
  std::string xml;
  std::string data;
  std::string tail;
  [[nodiscard]] std::size_t size() const { return xml.size() + data.size() + tail.size(); }
};

//! A .vti of the piece `piece` of `grid`: WholeExtent and the Piece's Extent are the piece's own,
//! so the file opened alone shows only its samples. \throws Error when an array's size does not
//! fit the piece.
[[nodiscard]] VtiParts vti_parts(const ImageGrid& grid, const Extent& piece,
                                 const std::vector<ArrayValues>& arrays, const VtkFormat& format);

//! vti_parts as one string.
[[nodiscard]] std::string vti_file(const ImageGrid& grid, const Extent& piece,
                                   const std::vector<ArrayValues>& arrays, const VtkFormat& format);

//! A piece as the .pvti names it: its extent and its file (relative to the .pvti).
struct PieceSource {
  Extent extent{};
  std::string file;
};

//! The .pvti of `grid` and its pieces, declaring the arrays (names and components) their .vti
//! files hold.
[[nodiscard]] std::string pvti_file(const ImageGrid& grid, const std::vector<PieceSource>& pieces,
                                    const std::vector<ArrayValues>& arrays,
                                    const VtkFormat& format);

//! One output of a series: its time and its file (relative to the .pvd).
struct CollectionEntry {
  double time = 0;
  std::string file;
};

//! The .pvd listing `entries` in order: ParaView's time steps.
[[nodiscard]] std::string pvd_file(const std::vector<CollectionEntry>& entries);

}  // namespace haloflow::outputs
