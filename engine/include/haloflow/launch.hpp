#pragma once
//! \file
//! \brief Launch geometry of a kernel node, without CUDA headers.

#include <cstddef>
#include <cstdint>

namespace haloflow {

//! \brief Grid or block extent; mirrors CUDA's dim3 so the plan stays free of CUDA headers.
struct Extent3 {
  unsigned x = 1;
  unsigned y = 1;
  unsigned z = 1;
  [[nodiscard]] std::uint64_t volume() const { return std::uint64_t{x} * y * z; }
  friend bool operator==(const Extent3&, const Extent3&) = default;
};

//! \brief Grid, block and dynamic shared memory of one kernel launch.
struct LaunchShape {
  Extent3 grid;
  Extent3 block;
  std::size_t shared_bytes = 0;

  //! \brief One thread per item: enough blocks of `block_size` threads to cover `items`.
  static LaunchShape cover(std::size_t items, unsigned block_size);
  //! \brief A fixed grid of `blocks` x `block_size` threads, for grid-stride kernels.
  static LaunchShape fixed(unsigned blocks, unsigned block_size);
  friend bool operator==(const LaunchShape&, const LaunchShape&) = default;
};

}  // namespace haloflow
