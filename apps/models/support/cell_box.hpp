#pragma once
// The models' kernels include "cell_box.hpp" and name the box kernels::CellBox: since the box
// moved into the engine (haloflow/cell_box.hpp, one type for every kernel), this keeps those
// spellings valid while the kernels are being tuned near their memory floor on another branch;
// once that has landed, the kernels can include haloflow/cell_box.hpp and this file can go.

#include "haloflow/cell_box.hpp"

namespace haloflow::kernels {
using haloflow::CellBox;
}  // namespace haloflow::kernels
