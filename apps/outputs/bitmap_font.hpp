#pragma once
// Text in pictures: a 5 x 7 pixel font of printable ASCII, drawn at an integer scale. Built in,
// so that a picture's title and labels need no font files on the machine that writes them.

#include <string_view>

#include "picture.hpp"

namespace haloflow::outputs {

constexpr int kGlyphWidth = 5;
constexpr int kGlyphHeight = 7;

//! Pixels `text` covers across at `scale` (each glyph and the gap after it: 6 font pixels).
[[nodiscard]] int text_width(std::string_view text, int scale);

//! Draws `text` with its top-left corner at (x, y); characters outside printable ASCII are drawn
//! as '?'.
void draw_text(Picture& picture, int x, int y, std::string_view text, int scale, Rgb colour);

}  // namespace haloflow::outputs
