// The pictures and announcements a run makes: round ticks on the colour bar and on the axes (in
// the model's coordinates) and their labels, viridis, the font, the picture's layout, the PNG
// through libpng (read back by libpng), the list of files written, and clean strings for
// results.json.

#include <doctest/doctest.h>
#include <png.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "haloflow/error.hpp"
#include "png_output.hpp"
#include "run_output.hpp"
#include "written_files.hpp"

using namespace haloflow;

TEST_CASE("ticks are round values inside the range") {
  CHECK(outputs::round_ticks(0, 1, 6) ==
        std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1});
  const auto symmetric = outputs::round_ticks(-0.4853, 0.4853, 6);
  CHECK(symmetric == std::vector<double>{-0.4, -0.2, 0, 0.2, 0.4});
  const auto small = outputs::round_ticks(1.2e-7, 8.9e-7, 8);
  REQUIRE(small.size() >= 2);
  for (const double tick : small) CHECK((tick >= 1.2e-7 && tick <= 8.9e-7));
  // Too narrow for two round values: its ends. A constant field: the one value.
  CHECK(outputs::round_ticks(0.99, 1.01, 2) == std::vector<double>{0.99, 1.01});
  CHECK(outputs::round_ticks(3, 3, 6) == std::vector<double>{3});
}

TEST_CASE("tick labels show as many digits as tell the ticks apart") {
  CHECK(outputs::tick_label(0.4, 0.2) == "0.4");
  CHECK(outputs::tick_label(-0.25, 0.05) == "-0.25");
  CHECK(outputs::tick_label(0, 0.2) == "0");
  CHECK(outputs::tick_label(1500, 500) == "1500");
  CHECK(outputs::tick_label(3e-7, 1e-7) == "3e-07");
  CHECK(outputs::tick_label(2.5e6, 5e5) == "2.5e+06");
}

TEST_CASE("the axes' ticks are round values of the model's coordinates, where they are drawn") {
  // jacobi2d's x: 256 points 1/255 apart from 0, a pixel each; the axis spans half a point beyond.
  const auto points =
      outputs::axis_ticks({.name = "x", .first = 0, .spacing = 1.0 / 255}, 256, 256, 6);
  REQUIRE(points.size() == 6);
  CHECK(points[0].value == 0);
  CHECK(points[0].pixel == 0);
  CHECK(points[1].value == doctest::Approx(0.2));
  CHECK(points[1].pixel == 51);  // 0.2 is point 51, its pixel
  CHECK(points[5].value == doctest::Approx(1));
  CHECK(points[5].pixel == 255);
  // euler2d's cells, 1/64 wide, centres from 1/128, four pixels a cell: 0 and 1 are the edges.
  const auto cells = outputs::axis_ticks({.first = 0.5 / 64, .spacing = 1.0 / 64}, 64, 256, 3);
  REQUIRE(cells.size() == 3);
  CHECK(cells[0].pixel == 0);
  CHECK(cells[1].value == doctest::Approx(0.5));
  CHECK(cells[1].pixel == 128);
  CHECK(cells[2].pixel == 255);
  // A box of 2 pi, and one far from 0 in metres: round values of its own units.
  const auto radians = outputs::axis_ticks({.first = 0, .spacing = 6.283185307 / 100}, 101, 303, 8);
  CHECK(outputs::round_ticks(0, 6.3, 8) == std::vector<double>{0, 1, 2, 3, 4, 5, 6});
  CHECK(radians.size() == 7);
  CHECK(radians[3].pixel == 144);  // 3 is point 47.7: (47.7 + 0.5) * 3 pixels
  const auto metres = outputs::axis_ticks({.first = 1000, .spacing = 10}, 100, 200, 6);
  REQUIRE(metres.size() >= 2);
  CHECK(metres.front().value == 1000);
  CHECK(metres[1].value == 1200);
  CHECK(metres.front().pixel == 1);
  CHECK(outputs::axis_ticks({.spacing = 0}, 10, 10, 4).empty());
}

TEST_CASE("the colour map is matplotlib's viridis, 256 entries") {
  // The published ends and middle: #440154, #21918c (entry 128), #fde725.
  CHECK(outputs::colour_of(0) == outputs::Rgb{0x44, 0x01, 0x54});
  CHECK(outputs::colour_of(0.5) == outputs::Rgb{0x21, 0x91, 0x8c});
  CHECK(outputs::colour_of(1) == outputs::Rgb{0xfd, 0xe7, 0x25});
  CHECK(outputs::colour_of(0.25) == outputs::viridis_entry(64));
  CHECK(outputs::viridis_entry(64) == outputs::Rgb{0x3b, 0x52, 0x8b});
  CHECK(outputs::colour_of(255.5 / 256) == outputs::viridis_entry(255));
  CHECK(outputs::colour_of(-3) == outputs::colour_of(0));
  CHECK_THROWS((void)outputs::viridis_entry(256));
}

TEST_CASE("the font: found through fontconfig, rendered by FreeType") {
  const outputs::Font* font = outputs::picture_font();
  REQUIRE(font != nullptr);  // fonts-dejavu-core is one of haloflow's dependencies
  CHECK(font->file().filename().string().find("DejaVuSans") == 0);
  CHECK(font->width("0.25") > font->width("1"));
  CHECK(font->line_height() <= 18);
  auto p = outputs::Picture::filled(60, 20, {255, 255, 255});
  font->draw(p, 0, 0, "H\xc3\xa9", {0, 0, 0});  // "Hé": UTF-8
  int dark = 0;
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) dark += p.at(x, y).r < 128 ? 1 : 0;
  }
  CHECK(dark > 30);
  CHECK(p.at(font->width("H\xc3\xa9") + 2, 8) == outputs::Rgb{255, 255, 255});
  CHECK_THROWS_AS(outputs::Font("/nonexistent.ttf", 14), Error);
}

namespace {

int dark_pixels(const outputs::Picture& p, int x0, int y0, int x1, int y1) {
  int dark = 0;
  for (int y = std::max(y0, 0); y < std::min(y1, p.height); ++y) {
    for (int x = std::max(x0, 0); x < std::min(x1, p.width); ++x) {
      const outputs::Rgb c = p.at(x, y);
      dark += c.r < 128 && c.g < 128 && c.b < 128 && c.r == c.g && c.g == c.b ? 1 : 0;
    }
  }
  return dark;
}

}  // namespace

TEST_CASE("a field's picture: the title, the field on its axes, the bar beside with its ticks") {
  std::vector<double> values(16 * 8);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 16) / 15;
  const outputs::PictureText text{.title = {"case: u", "step 3, t = 0.5"},
                                  .units = "u, dimensionless",
                                  .x = {.name = "x", .first = 0.5 / 16, .spacing = 1.0 / 16},
                                  .y = {.name = "y", .first = 0.25, .spacing = 0.5}};
  const auto picture = outputs::draw_field(values, 16, 8, text);
  CHECK(picture.field_width == 16 * 16);
  CHECK(picture.field_height == 8 * 16);
  CHECK(picture.field_y > 2 * 14);  // below two lines of title
  CHECK(picture.minimum == 0);
  CHECK(picture.maximum == 1);
  CHECK(picture.ticks.size() >= 3);
  const outputs::Picture& p = picture.picture;
  const outputs::Rgb black{0, 0, 0};
  // The field's left column is the minimum's colour, its right the maximum's; the bar's top row
  // the maximum's.
  CHECK(p.at(picture.field_x, picture.field_y + 5) == outputs::colour_of(0));
  CHECK(p.at(picture.field_x + picture.field_width - 1, picture.field_y + 5) ==
        outputs::colour_of(1));
  CHECK(p.at(picture.bar_x + 3, picture.bar_y) == outputs::colour_of(1));
  CHECK(p.at(picture.bar_x + 3, picture.bar_y + picture.bar_height - 1) == outputs::colour_of(0));
  // A tick mark at the bar's top (the tick 1) and text in the title.
  CHECK(p.at(picture.bar_x + picture.bar_width + 1, picture.bar_y) == black);
  CHECK(dark_pixels(p, 0, 0, p.width, picture.field_y) > 100);
  // x: 0 to 1 in cells of 1/16; y: 0 to 4 in cells of 1/2. A tick below the axis at each, its
  // label under it; the y ticks left of the axis, their labels left of them.
  const int bottom = picture.field_y + picture.field_height;
  REQUIRE(picture.x_ticks.size() >= 2);
  CHECK(picture.x_ticks.front().value == 0);
  CHECK(picture.x_ticks.back().value == 1);
  for (const outputs::AxisTick& tick : picture.x_ticks) {
    const int x = picture.field_x + tick.pixel;
    CHECK(p.at(x, bottom) == black);
    CHECK(p.at(x, bottom + 5) == black);
    CHECK(dark_pixels(p, x - 15, bottom + 6, x + 15, bottom + 6 + 18) > 5);
  }
  CHECK(dark_pixels(p, picture.field_x, bottom + 6 + 18, picture.field_x + picture.field_width,
                    bottom + 6 + 36) > 5);  // the axis's name, "x"
  REQUIRE(picture.y_ticks.size() >= 2);
  CHECK(picture.y_ticks.front().value == 0);
  CHECK(picture.y_ticks.back().value == 4);
  CHECK(picture.y_ticks.back().pixel == picture.field_height - 1);
  for (const outputs::AxisTick& tick : picture.y_ticks) {
    const int y = bottom - 1 - tick.pixel;
    CHECK(p.at(picture.field_x - 1 - 5, y) == black);
    CHECK(dark_pixels(p, 0, y - 9, picture.field_x - 7, y + 9) > 5);
  }
  CHECK_THROWS_AS((void)outputs::draw_field(values, 16, 9, {}), Error);

  // Without a font: the same layout, the axes and ticks, and no text.
  const auto bare = outputs::draw_field(values, 16, 8, text, nullptr);
  CHECK(bare.field_y == picture.field_y);
  CHECK(bare.x_ticks.size() == picture.x_ticks.size());
  CHECK(dark_pixels(bare.picture, 0, 0, bare.picture.width, bare.field_y) == 0);
  CHECK(bare.picture.at(bare.field_x + bare.x_ticks[1].pixel, bottom + 5) == black);
  CHECK(dark_pixels(bare.picture, 0, bottom + 6, bare.picture.width, bare.picture.height) == 0);
}

TEST_CASE("the PNG is libpng's, compressed, and reads back pixel for pixel") {
  std::vector<double> values(64 * 64);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.01 * i);
  const auto picture = outputs::draw_field(values, 64, 64, {.title = {"x"}, .units = "1"});
  const std::vector<std::uint8_t> bytes = outputs::encode_png(picture.picture);
  const auto raw = static_cast<std::size_t>(picture.picture.width * picture.picture.height * 3);
  CHECK(bytes.size() * 10 < raw);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  REQUIRE(png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()) != 0);
  CHECK(image.width == static_cast<png_uint_32>(picture.picture.width));
  CHECK(image.height == static_cast<png_uint_32>(picture.picture.height));
  image.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> decoded(PNG_IMAGE_SIZE(image));
  REQUIRE(png_image_finish_read(&image, nullptr, decoded.data(), 0, nullptr) != 0);
  CHECK(decoded == picture.picture.rgb);
}

TEST_CASE("the files written: every one with its size, a folder's many as one line") {
  outputs::WrittenFiles files("runs/x");
  files.add({.path = "runs/x/case.resolved.json", .bytes = 600});
  for (int step = 0; step < 50; ++step) {
    files.add({.path = "runs/x/vtk/x_" + std::to_string(1000 + step) + ".vti", .bytes = 2048});
  }
  files.add({.path = "runs/x/x.pvd", .bytes = 100});
  files.add({.path = "runs/x/x.pvd", .bytes = 200});  // rewritten: the newest size
  files.add({.path = "elsewhere.raw", .bytes = 8});
  CHECK(files.files().size() == 53);
  CHECK(files.total_bytes() == 600 + 50 * 2048 + 200 + 8);
  const std::string text = files.announcement(40);
  CHECK(text.find("wrote 53 files (100.8 KiB in all):") == 0);
  CHECK(text.find("runs/x/vtk/ (50 files: x_1000.vti ... x_1049.vti)") != std::string::npos);
  CHECK(text.find("runs/x/x.pvd") != std::string::npos);
  CHECK(text.find("200 B") != std::string::npos);
  CHECK(files.announcement(100).find("runs/x/vtk/x_1049.vti") != std::string::npos);
  const auto json = files.json();
  CHECK(json[0]["file"] == "case.resolved.json");
  CHECK(json[1]["file"] == "vtk/x_1000.vti");
  CHECK(json[52]["file"].get<std::string>().front() == '/');  // outside: absolute
  CHECK(outputs::size_text(1023) == "1023 B");
  CHECK(outputs::size_text(5 * 1024 * 1024) == "5.00 MiB");
}

TEST_CASE("strings for results.json are clean: no tab, no newline, no padding") {
  CHECK(outputs::clean_text("MPICH Version:\t4.0.2  ") == "MPICH Version: 4.0.2");
  CHECK(outputs::clean_text("\n a\r\nb\x01") == "a b");
  CHECK(outputs::mpi_library_version().find('\t') == std::string::npos);
}
