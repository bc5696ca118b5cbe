#pragma once
// Text in pictures: a scalable font found through fontconfig (DejaVu Sans where installed,
// fonts-dejavu-core) and rendered by FreeType, anti-aliased onto the picture. Without a font the
// pictures are still written, without text, and the run says so once.

#include <filesystem>
#include <memory>
#include <string_view>

#include "picture.hpp"

namespace haloflow::outputs {

class Font {
 public:
  //! The font file fontconfig matches to `family` (any font it knows when that one is absent),
  //! loaded at `pixels` per em; nullptr when fontconfig knows no font or FreeType cannot load it.
  [[nodiscard]] static std::unique_ptr<Font> find(std::string_view family, int pixels);

  //! The font in `file` at `pixels` per em. \throws Error naming the file.
  Font(const std::filesystem::path& file, int pixels);
  ~Font();
  Font(const Font&) = delete;
  Font& operator=(const Font&) = delete;
  Font(Font&&) = delete;
  Font& operator=(Font&&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  //! Pixels from the top of a line to its baseline, and a line's whole height.
  [[nodiscard]] int ascent() const { return ascent_; }
  [[nodiscard]] int line_height() const { return line_height_; }
  //! Pixels `text` (UTF-8) advances across.
  [[nodiscard]] int width(std::string_view text) const;
  //! Draws `text` (UTF-8) with the top of its line at y, starting at x, blended by coverage.
  void draw(Picture& picture, int x, int y, std::string_view text, Rgb colour) const;

 private:
  struct FreeType;
  std::unique_ptr<FreeType> freetype_;
  std::filesystem::path file_;
  int ascent_ = 0;
  int line_height_ = 0;
};

//! The pictures' font, DejaVu Sans at 14 pixels, found once per process; nullptr (said once on
//! stderr) when the machine has none.
[[nodiscard]] const Font* picture_font();

}  // namespace haloflow::outputs
