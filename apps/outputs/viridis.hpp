#pragma once
// The pictures' colour map: matplotlib's viridis, its 256 entries as published (viridis.cpp),
// perceptually uniform and readable in grey and by colour-blind readers.

#include "picture.hpp"

namespace haloflow::outputs {

constexpr int kViridisSize = 256;

//! Entry `index` (0 to 255) of the table, 8 bits per channel. \throws std::out_of_range outside.
[[nodiscard]] Rgb viridis_entry(int index);

//! The colour of `t` in [0, 1] (clamped; NaN as 0), looked up as matplotlib does: entry
//! floor(256 t), the last one for t = 1.
[[nodiscard]] Rgb colour_of(double t);

}  // namespace haloflow::outputs
