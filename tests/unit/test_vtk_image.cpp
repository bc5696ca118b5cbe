// VTK image data as written: each piece's own extent, its binary blocks (raw and zlib) holding
// the values in the precision asked for, the time, the collection; and the pieces of a point
// field sharing their faces, planned rank by rank without MPI (point_pieces.hpp).

#include <doctest/doctest.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "point_pieces.hpp"
#include "vtk_image.hpp"

using namespace haloflow;
using models::Centring;
using outputs::Extent;

namespace {

std::uint64_t u64_at(const std::string& bytes, std::size_t at) {
  std::uint64_t value = 0;
  std::memcpy(&value, bytes.data() + at, 8);
  return value;
}

// The appended data after the '_', and where one array's block starts in it.
std::string appended(const std::string& file) {
  const auto start = file.find('_', file.find("<AppendedData"));
  const auto end = file.rfind("\n  </AppendedData>");
  return file.substr(start + 1, end - start - 1);
}

std::string attribute(const std::string& file, const std::string& element,
                      const std::string& name) {
  const auto at = file.find("<" + element);
  const auto key = file.find(name + "=\"", at);
  const auto begin = key + name.size() + 2;
  return file.substr(begin, file.find('"', begin) - begin);
}

}  // namespace

TEST_CASE("extents count points or cells; a 2D field's single z layer counts one cell") {
  CHECK(outputs::extent_samples({0, 4, 0, 2, 0, 0}, Centring::points) == 15);
  CHECK(outputs::extent_samples({0, 4, 0, 2, 0, 0}, Centring::cells) == 8);
  CHECK(outputs::extent_samples({2, 4, 0, 2, 1, 3}, Centring::cells) == 8);
  CHECK(outputs::extent_text({0, 4, 1, 2, 0, 0}) == "0 4 1 2 0 0");
}

TEST_CASE("a piece declares its own extent, its time, and raw float32 blocks of its values") {
  const outputs::ImageGrid grid{.whole = {0, 8, 0, 4, 0, 0},
                                .origin = {0.5, 0, 0},
                                .spacing = {0.25, 0.125, 1},
                                .centring = Centring::cells,
                                .time = 1.5};
  const std::vector<double> rho = {1, 2, 3, 4, 5, 6};
  std::vector<double> velocity;
  for (int i = 0; i < 6; ++i) velocity.insert(velocity.end(), {0.1 * i, -0.1 * i, 0.0});
  const Extent piece{2, 5, 2, 4, 0, 0};  // 3 x 2 cells
  const std::string file =
      outputs::vti_file(grid, piece,
                        {{.name = "density", .components = 1, .values = rho},
                         {.name = "velocity", .components = 3, .values = velocity}},
                        {.compression = outputs::VtkCompression::none});
  CHECK(attribute(file, "ImageData", "WholeExtent") == "2 5 2 4 0 0");
  CHECK(attribute(file, "Piece", "Extent") == "2 5 2 4 0 0");
  CHECK(attribute(file, "ImageData", "Origin") == "0.5 0 0");
  CHECK(attribute(file, "VTKFile", "header_type") == "UInt64");
  CHECK(file.find("<CellData Scalars=\"density\" Vectors=\"velocity\">") != std::string::npos);
  CHECK(file.find("Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">1.5<") !=
        std::string::npos);
  CHECK(file.find("compressor") == std::string::npos);
  const std::string data = appended(file);
  // density: 8-byte count, 6 floats; velocity at the offset the XML gives: 18 floats.
  REQUIRE(u64_at(data, 0) == 6 * sizeof(float));
  float first[6];
  std::memcpy(first, data.data() + 8, sizeof first);
  CHECK(first[5] == 6.0f);
  const auto named = file.find("offset=\"", file.find("Name=\"velocity\"")) + 8;
  const auto offset = std::stoul(file.substr(named, file.find('"', named) - named));
  CHECK(offset == 8 + 6 * sizeof(float));
  CHECK(u64_at(data, offset) == 18 * sizeof(float));
  CHECK(data.size() == offset + 8 + 18 * sizeof(float));
  float v[18];
  std::memcpy(v, data.data() + offset + 8, sizeof v);
  CHECK(v[15] == static_cast<float>(0.5));
  CHECK(v[16] == static_cast<float>(-0.5));
}

TEST_CASE("float64 keeps every bit; zlib blocks inflate to the same bytes") {
  const outputs::ImageGrid grid{.whole = {0, 63, 0, 0, 0, 0}, .centring = Centring::points};
  std::vector<double> values(64);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.1 * i) / 3;
  const Extent piece{0, 63, 0, 0, 0, 0};
  const std::string file = outputs::vti_file(
      grid, piece, {{.name = "u", .values = values}},
      {.precision = outputs::VtkPrecision::float64, .compression = outputs::VtkCompression::zlib});
  CHECK(attribute(file, "VTKFile", "compressor") == "vtkZLibDataCompressor");
  CHECK(file.find("type=\"Float64\" Name=\"u\"") != std::string::npos);
  const std::string data = appended(file);
  REQUIRE(u64_at(data, 0) == 1);                   // one block
  CHECK(u64_at(data, 16) == 64 * sizeof(double));  // the last (partial) block's size
  const std::uint64_t compressed = u64_at(data, 24);
  REQUIRE(data.size() == 32 + compressed);
  std::vector<double> inflated(64);
  uLongf length = inflated.size() * sizeof(double);
  REQUIRE(uncompress(reinterpret_cast<Bytef*>(inflated.data()), &length,
                     reinterpret_cast<const Bytef*>(data.data() + 32), compressed) == Z_OK);
  CHECK(length == 64 * sizeof(double));
  CHECK(inflated == values);
}

TEST_CASE("zlib by default; a field of many blocks, compressed side by side, inflates in order") {
  // 3 Mi doubles in float64: 24 blocks of 1 MiB, the last one full, on several threads.
  const std::int64_t n = 3 << 20;
  const outputs::ImageGrid grid{.whole = {0, n - 1, 0, 0, 0, 0}, .centring = Centring::points};
  std::vector<double> values(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(1e-4 * i) + 1e-3 * (i % 7);
  const outputs::VtkFormat format{.precision = outputs::VtkPrecision::float64};
  CHECK(format.compression == outputs::VtkCompression::zlib);
  const std::string file =
      outputs::vti_file(grid, {0, n - 1, 0, 0, 0, 0}, {{.name = "u", .values = values}}, format);
  CHECK(attribute(file, "VTKFile", "compressor") == "vtkZLibDataCompressor");
  const std::string data = appended(file);
  const std::uint64_t blocks = u64_at(data, 0);
  REQUIRE(blocks == 24);
  CHECK(u64_at(data, 8) == std::uint64_t{1} << 20);
  CHECK(u64_at(data, 16) == 0);  // the last block is a full one
  std::size_t at = 24 + 8 * blocks;
  std::vector<double> inflated(values.size());
  auto* out = reinterpret_cast<Bytef*>(inflated.data());
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t size = u64_at(data, 24 + 8 * b);
    uLongf length = uLongf{1} << 20;
    REQUIRE(uncompress(out + b * (std::size_t{1} << 20), &length,
                       reinterpret_cast<const Bytef*>(data.data() + at), size) == Z_OK);
    REQUIRE(length == uLongf{1} << 20);
    at += size;
  }
  CHECK(at == data.size());
  CHECK(inflated == values);
  // The same bytes as a second time: the threads' order does not show.
  CHECK(outputs::vti_file(grid, {0, n - 1, 0, 0, 0, 0}, {{.name = "u", .values = values}},
                          format) == file);
}

TEST_CASE("a piece whose array does not fit its extent is refused, naming the array") {
  const std::vector<double> three = {1, 2, 3};
  CHECK_THROWS_WITH_AS((void)outputs::vti_file({.centring = Centring::points}, {0, 3, 0, 0, 0, 0},
                                               {{.name = "u", .values = three}}, {}),
                       doctest::Contains("array u holds 3 values; the piece 0 3 0 0 0 0 needs 4"),
                       Error);
}

TEST_CASE("the .pvti names each piece and its extent; the .pvd lists the outputs' times") {
  const outputs::ImageGrid grid{.whole = {0, 8, 0, 8, 0, 8}, .centring = Centring::points};
  const std::vector<double> none;
  const std::string pvti =
      outputs::pvti_file(grid,
                         {{.extent = {0, 4, 0, 8, 0, 8}, .file = "a_r0000.vti"},
                          {.extent = {4, 8, 0, 8, 0, 8}, .file = "a_r0001.vti"}},
                         {{.name = "u", .values = none}}, {});
  CHECK(attribute(pvti, "PImageData", "WholeExtent") == "0 8 0 8 0 8");
  CHECK(pvti.find("<PPointData Scalars=\"u\">") != std::string::npos);
  CHECK(pvti.find("<Piece Extent=\"4 8 0 8 0 8\" Source=\"a_r0001.vti\"/>") != std::string::npos);
  const std::string pvd = outputs::pvd_file(
      {{.time = 0, .file = "vtk/a_000000.pvti"}, {.time = 0.25, .file = "vtk/a_000010.pvti"}});
  CHECK(pvd.find("type=\"Collection\"") != std::string::npos);
  CHECK(pvd.find("<DataSet timestep=\"0.25\" group=\"\" part=\"0\" file=\"vtk/a_000010.pvti\"/>") !=
        std::string::npos);
}

TEST_CASE("whole and piece extents: cells one point more, points closed on a periodic axis") {
  const outputs::SampleGrid cells{
      .global_samples = {64, 32, 1}, .dimensions = 2, .centring = Centring::cells};
  CHECK(outputs::whole_extent(cells) == Extent{0, 64, 0, 32, 0, 0});
  CHECK(outputs::piece_extent(cells, {.offset = {32, 0, 0}, .samples = {32, 16, 1}}) ==
        Extent{32, 64, 0, 16, 0, 0});
  const outputs::SampleGrid points{.global_samples = {10, 6, 1},
                                   .periodic = {false, true, false},
                                   .dimensions = 2,
                                   .centring = Centring::points};
  CHECK(outputs::whole_extent(points) == Extent{0, 9, 0, 6, 0, 0});
  // The lower-left piece takes its neighbours' first layers; the top right ends the x axis and
  // closes the periodic y.
  CHECK(outputs::piece_extent(points, {.offset = {0, 0, 0}, .samples = {5, 3, 1}}) ==
        Extent{0, 5, 0, 3, 0, 0});
  CHECK(outputs::piece_extent(points, {.offset = {5, 3, 0}, .samples = {5, 3, 1}}) ==
        Extent{5, 9, 3, 6, 0, 0});
}

namespace {

// Every rank's piece of the field f(wrapped sample) assembled as field_piece does, the shared
// points taken from the other boxes through points_shared_with: each must hold f of its points.
void check_pieces(const outputs::SampleGrid& grid, const std::vector<outputs::SampleBox>& boxes) {
  const auto f = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
    const auto& n = grid.global_samples;
    return static_cast<double>(((z % n[2]) * n[1] + (y % n[1])) * n[0] + (x % n[0]));
  };
  std::int64_t shared_total = 0;
  for (const outputs::SampleBox& to : boxes) {
    const Extent e = outputs::piece_extent(grid, to);
    const std::int64_t nx = e[1] - e[0] + 1;
    const std::int64_t ny = e[3] - e[2] + 1;
    std::vector<double> piece(
        static_cast<std::size_t>(outputs::extent_samples(e, Centring::points)), -1.0);
    for (std::int64_t z = 0; z < to.samples[2]; ++z) {
      for (std::int64_t y = 0; y < to.samples[1]; ++y) {
        for (std::int64_t x = 0; x < to.samples[0]; ++x) {
          piece[static_cast<std::size_t>((z * ny + y) * nx + x)] =
              f(to.offset[0] + x, to.offset[1] + y, to.offset[2] + z);
        }
      }
    }
    for (const outputs::SampleBox& from : boxes) {
      for (const outputs::SharedPoint& p : outputs::points_shared_with(grid, from, to)) {
        const std::int64_t sx = p.source_index % from.samples[0];
        const std::int64_t sy = p.source_index / from.samples[0] % from.samples[1];
        const std::int64_t sz = p.source_index / (from.samples[0] * from.samples[1]);
        REQUIRE(piece[static_cast<std::size_t>(p.piece_index)] == -1.0);  // each point once
        piece[static_cast<std::size_t>(p.piece_index)] =
            f(from.offset[0] + sx, from.offset[1] + sy, from.offset[2] + sz);
        ++shared_total;
      }
    }
    for (std::int64_t z = e[4]; z <= e[5]; ++z) {
      for (std::int64_t y = e[2]; y <= e[3]; ++y) {
        for (std::int64_t x = e[0]; x <= e[1]; ++x) {
          const auto at =
              static_cast<std::size_t>(((z - e[4]) * ny + (y - e[2])) * nx + (x - e[0]));
          INFO("piece at ", to.offset[0], " ", to.offset[1], " ", to.offset[2], ", point ", x, " ",
               y, " ", z);
          CHECK(piece[at] == f(x, y, z));
        }
      }
    }
  }
  CHECK(shared_total > 0);
}

}  // namespace

TEST_CASE("the pieces of a periodic 3D point field share their faces and close the box") {
  const outputs::SampleGrid grid{.global_samples = {7, 6, 5},
                                 .periodic = {true, true, true},
                                 .dimensions = 3,
                                 .centring = Centring::points};
  std::vector<outputs::SampleBox> boxes;
  for (const auto& [x0, nx] : std::vector<std::pair<int, int>>{{0, 4}, {4, 3}}) {
    for (const auto& [y0, ny] : std::vector<std::pair<int, int>>{{0, 2}, {2, 2}, {4, 2}}) {
      for (const auto& [z0, nz] : std::vector<std::pair<int, int>>{{0, 3}, {3, 2}}) {
        boxes.push_back({.offset = {x0, y0, z0}, .samples = {nx, ny, nz}});
      }
    }
  }
  check_pieces(grid, boxes);
  // One rank alone: the closing layers are its own points again.
  check_pieces(grid, {{.offset = {0, 0, 0}, .samples = {7, 6, 5}}});
}

TEST_CASE("the pieces of a 2D point field, periodic in y only, as jacobi2d splits it") {
  const outputs::SampleGrid grid{.global_samples = {9, 8, 1},
                                 .periodic = {false, true, false},
                                 .dimensions = 2,
                                 .centring = Centring::points};
  check_pieces(grid, {{.offset = {0, 0, 0}, .samples = {5, 4, 1}},
                      {.offset = {5, 0, 0}, .samples = {4, 4, 1}},
                      {.offset = {0, 4, 0}, .samples = {5, 4, 1}},
                      {.offset = {5, 4, 0}, .samples = {4, 4, 1}}});
}

TEST_CASE("cell data shares nothing") {
  const outputs::SampleGrid grid{
      .global_samples = {8, 8, 1}, .dimensions = 2, .centring = Centring::cells};
  CHECK(outputs::points_shared_with(grid, {.offset = {4, 0, 0}, .samples = {4, 8, 1}},
                                    {.offset = {0, 0, 0}, .samples = {4, 8, 1}})
            .empty());
}
