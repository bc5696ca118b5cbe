#pragma once
//! \file
//! \brief Launch geometry of a kernel node, without CUDA headers.

#include <cstddef>
#include <cstdint>

namespace haloflow {

//! \brief Grid or block extent; mirrors CUDA's dim3 so the plan stays free of CUDA headers.
struct Extent3 {
  unsigned x = 1;  //!< blocks or threads along x
  unsigned y = 1;  //!< along y
  unsigned z = 1;  //!< along z
  //! \brief x*y*z in 64 bits, so large grids do not overflow; 0 means an empty launch.
  [[nodiscard]] std::uint64_t volume() const { return std::uint64_t{x} * y * z; }
  //! \brief Member-wise equality.
  friend bool operator==(const Extent3&, const Extent3&) = default;
};

//! \brief Grid, block and dynamic shared memory of one kernel launch.
struct LaunchShape {
  Extent3 grid;                  //!< blocks per grid
  Extent3 block;                 //!< threads per block
  std::size_t shared_bytes = 0;  //!< dynamic shared memory per block, bytes

  //! \brief One thread per item: enough blocks of `block_size` threads to cover `items`.
  static LaunchShape cover(std::size_t items, unsigned block_size);
  //! \brief A fixed grid of `blocks` x `block_size` threads, for grid-stride kernels.
  static LaunchShape fixed(unsigned blocks, unsigned block_size);
  //! \brief Member-wise equality.
  friend bool operator==(const LaunchShape&, const LaunchShape&) = default;
};

}  // namespace haloflow
