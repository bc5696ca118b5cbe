#pragma once
//! \file
//! \brief The cells a model kernel updates, as the kernel sees them: one box of a field stored with
//! ghost cells, x fastest. Plain data shared by host code and kernels, so the launch geometry and
//! the kernel arguments come from the same numbers.

#include <cstdint>

namespace haloflow::kernels {

//! \brief The box [x0, x0+nx) x [y0, y0+ny) x [z0, z0+nz) in a field's local index space (ghost
//! cells included), with the strides of that field.
struct CellBox {
  std::int64_t x0 = 0;
  std::int64_t y0 = 0;
  std::int64_t z0 = 0;
  std::int64_t nx = 0;
  std::int64_t ny = 0;
  std::int64_t nz = 0;
  std::int64_t stride_y = 0;  //!< elements between rows
  std::int64_t stride_z = 0;  //!< elements between planes
};

}  // namespace haloflow::kernels
