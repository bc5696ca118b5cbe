// The pictures and announcements a run makes: the colour bar's round ticks and their labels, the
// picture's layout, the PNG through libpng (read back by libpng), the list of files written, and
// clean strings for results.json.

#include <doctest/doctest.h>
#include <png.h>

#include <cmath>
#include <string>
#include <vector>

#include "bitmap_font.hpp"
#include "haloflow/error.hpp"
#include "png_output.hpp"
#include "run_output.hpp"
#include "written_files.hpp"

using namespace haloflow;

TEST_CASE("the colour bar's ticks are round values inside the range") {
  CHECK(outputs::colour_bar_ticks(0, 1, 6) ==
        std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1});
  const auto symmetric = outputs::colour_bar_ticks(-0.4853, 0.4853, 6);
  CHECK(symmetric == std::vector<double>{-0.4, -0.2, 0, 0.2, 0.4});
  const auto small = outputs::colour_bar_ticks(1.2e-7, 8.9e-7, 8);
  REQUIRE(small.size() >= 2);
  for (const double tick : small) CHECK((tick >= 1.2e-7 && tick <= 8.9e-7));
  // Too narrow for two round values: its ends. A constant field: the one value.
  CHECK(outputs::colour_bar_ticks(0.99, 1.01, 2) == std::vector<double>{0.99, 1.01});
  CHECK(outputs::colour_bar_ticks(3, 3, 6) == std::vector<double>{3});
}

TEST_CASE("tick labels show as many digits as tell the ticks apart") {
  CHECK(outputs::tick_label(0.4, 0.2) == "0.4");
  CHECK(outputs::tick_label(-0.25, 0.05) == "-0.25");
  CHECK(outputs::tick_label(0, 0.2) == "0");
  CHECK(outputs::tick_label(1500, 500) == "1500");
  CHECK(outputs::tick_label(3e-7, 1e-7) == "3e-07");
  CHECK(outputs::tick_label(2.5e6, 5e5) == "2.5e+06");
}

TEST_CASE("a field's picture: the title above, the field scaled, the bar beside with its ticks") {
  std::vector<double> values(16 * 8);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 16) / 15;
  const auto picture = outputs::draw_field(
      values, 16, 8, {.title = {"case: u", "step 3, t = 0.5"}, .units = "u, dimensionless"});
  CHECK(picture.field_width == 16 * 16);
  CHECK(picture.field_height == 8 * 16);
  CHECK(picture.field_y > 2 * outputs::kGlyphHeight * 2);  // below two lines of title
  CHECK(picture.minimum == 0);
  CHECK(picture.maximum == 1);
  CHECK(picture.ticks.size() >= 3);
  const outputs::Picture& p = picture.picture;
  // The field's left column is the minimum's colour, its right the maximum's; the bar's top row
  // the maximum's.
  CHECK(p.at(picture.field_x, picture.field_y + 5) == outputs::colour_of(0));
  CHECK(p.at(picture.field_x + picture.field_width - 1, picture.field_y + 5) ==
        outputs::colour_of(1));
  CHECK(p.at(picture.bar_x + 3, picture.bar_y) == outputs::colour_of(1));
  CHECK(p.at(picture.bar_x + 3, picture.bar_y + picture.bar_height - 1) == outputs::colour_of(0));
  // A tick mark at the bar's top (the tick 1) and black text in the title.
  CHECK(p.at(picture.bar_x + picture.bar_width + 1, picture.bar_y) == outputs::Rgb{0, 0, 0});
  int black = 0;
  for (int y = 0; y < picture.field_y; ++y) {
    for (int x = 0; x < p.width; ++x) black += p.at(x, y) == outputs::Rgb{0, 0, 0} ? 1 : 0;
  }
  CHECK(black > 100);
  CHECK_THROWS_AS((void)outputs::draw_field(values, 16, 9, {}), Error);
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

TEST_CASE("text: a glyph per printable character, '?' for the rest") {
  auto p = outputs::Picture::filled(40, 10, {255, 255, 255});
  outputs::draw_text(p, 0, 0, "A\t", 1, {0, 0, 0});
  CHECK(outputs::text_width("AB", 1) == 11);
  CHECK(p.at(0, 1) == outputs::Rgb{0, 0, 0});  // A's left stroke
  CHECK(p.at(6, 1) == outputs::Rgb{0, 0, 0});  // '?' for the tab: its top-left bar
  CHECK(p.at(2, 8) == outputs::Rgb{255, 255, 255});
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
