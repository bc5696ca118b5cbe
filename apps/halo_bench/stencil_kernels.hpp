#pragma once
// A 5-point average over a box of a 2D field: the smallest stencil that needs a halo, used by the
// exchange benchmark.

#include <cstddef>
#include <cstdint>

#include "haloflow/decomposition.hpp"
#include "haloflow/kernel.hpp"

namespace haloflow::kernels {

//! The box a kernel covers and the field's row stride.
struct Box2 {
  std::int64_t x0 = 0;
  std::int64_t y0 = 0;
  std::int64_t nx = 0;
  std::int64_t stride = 0;
};

inline Box2 box2_of(const Box& box, std::int64_t stride) {
  return {box.lo[0], box.lo[1], box.hi[0] - box.lo[0], stride};
}

//! average(cells, box, in, out): out = mean of the four face neighbours in `in`, over the box.
KernelRef<std::size_t, Box2, const double*, double*> average5();

}  // namespace haloflow::kernels
