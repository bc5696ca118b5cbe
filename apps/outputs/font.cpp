#include "font.hpp"

#include <fmt/format.h>
#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include <algorithm>
#include <cstdio>
#include <string>

#include "haloflow/error.hpp"

namespace haloflow::outputs {

struct Font::FreeType {
  FT_Library library = nullptr;
  FT_Face face = nullptr;
  ~FreeType() {
    if (face != nullptr) FT_Done_Face(face);
    if (library != nullptr) FT_Done_FreeType(library);
  }
};

namespace {

// The code points of UTF-8 `text`; a malformed byte reads as U+FFFD (FreeType draws the font's
// "missing" box).
template <typename Visit>
void each_code_point(std::string_view text, Visit visit) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const int length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
    if (length == 0 || i + static_cast<std::size_t>(length) > text.size()) {
      visit(0xFFFDu);
      ++i;
      continue;
    }
    char32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (int k = 1; k < length; ++k)
      code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    visit(code);
    i += static_cast<std::size_t>(length);
  }
}

Rgb blend(Rgb under, Rgb over, int coverage) {
  const auto mix = [&](std::uint8_t a, std::uint8_t b) {
    return static_cast<std::uint8_t>((a * (255 - coverage) + b * coverage + 127) / 255);
  };
  return {mix(under.r, over.r), mix(under.g, over.g), mix(under.b, over.b)};
}

}  // namespace

Font::Font(const std::filesystem::path& file, int pixels)
    : freetype_(std::make_unique<FreeType>()), file_(file) {
  if (FT_Init_FreeType(&freetype_->library) != 0) throw Error("FreeType: cannot initialise");
  if (FT_New_Face(freetype_->library, file.c_str(), 0, &freetype_->face) != 0 ||
      FT_Set_Pixel_Sizes(freetype_->face, 0, static_cast<FT_UInt>(pixels)) != 0) {
    throw Error(
        fmt::format("FreeType: cannot load the font {} at {} pixels", file.string(), pixels));
  }
  const FT_Size_Metrics& metrics = freetype_->face->size->metrics;
  ascent_ = static_cast<int>((metrics.ascender + 63) >> 6);
  line_height_ = static_cast<int>((metrics.height + 63) >> 6);
}

Font::~Font() = default;

std::unique_ptr<Font> Font::find(std::string_view family, int pixels) {
  if (FcInit() == FcFalse) return nullptr;
  FcPattern* pattern = FcNameParse(reinterpret_cast<const FcChar8*>(std::string(family).c_str()));
  if (pattern == nullptr) return nullptr;
  FcConfigSubstitute(nullptr, pattern, FcMatchPattern);
  FcDefaultSubstitute(pattern);
  FcResult result = FcResultNoMatch;
  FcPattern* match = FcFontMatch(nullptr, pattern, &result);
  FcPatternDestroy(pattern);
  if (match == nullptr) return nullptr;
  FcChar8* file = nullptr;
  std::unique_ptr<Font> font;
  if (FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch) {
    try {
      font = std::make_unique<Font>(reinterpret_cast<const char*>(file), pixels);
    } catch (const Error&) {
      font = nullptr;  // a file fontconfig lists but FreeType cannot read: no font
    }
  }
  FcPatternDestroy(match);
  return font;
}

int Font::width(std::string_view text) const {
  int advance = 0;
  each_code_point(text, [&](char32_t code) {
    if (FT_Load_Char(freetype_->face, code, FT_LOAD_DEFAULT) == 0) {
      advance += static_cast<int>((freetype_->face->glyph->advance.x + 32) >> 6);
    }
  });
  return advance;
}

void Font::draw(Picture& picture, int x, int y, std::string_view text, Rgb colour) const {
  const int baseline = y + ascent_;
  each_code_point(text, [&](char32_t code) {
    if (FT_Load_Char(freetype_->face, code, FT_LOAD_RENDER) != 0) return;
    const FT_GlyphSlot glyph = freetype_->face->glyph;
    const FT_Bitmap& bitmap = glyph->bitmap;
    for (unsigned row = 0; row < bitmap.rows; ++row) {
      for (unsigned column = 0; column < bitmap.width; ++column) {
        const int coverage = bitmap.buffer[row * static_cast<unsigned>(bitmap.pitch) + column];
        const int px = x + glyph->bitmap_left + static_cast<int>(column);
        const int py = baseline - glyph->bitmap_top + static_cast<int>(row);
        if (coverage == 0 || px < 0 || py < 0 || px >= picture.width || py >= picture.height) {
          continue;
        }
        picture.set(px, py, blend(picture.at(px, py), colour, coverage));
      }
    }
    x += static_cast<int>((glyph->advance.x + 32) >> 6);
  });
}

const Font* picture_font() {
  // Found once: every picture of a run uses it, and a missing font is said once.
  static const std::unique_ptr<Font> font = [] {
    auto found = Font::find("DejaVu Sans", 14);
    if (!found) {
      std::fputs(
          "haloflow: no font found through fontconfig (install fonts-dejavu-core): the pictures "
          "are written without text\n",
          stderr);
    }
    return found;
  }();
  return font.get();
}

}  // namespace haloflow::outputs
