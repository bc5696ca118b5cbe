#include "haloflow/per_cell.cuh"
#include "stencil_kernels.hpp"

namespace haloflow::kernels {
namespace {

struct Average5 {
  static HALOFLOW_HD void apply(std::size_t cell, Box2 box, const double* in, double* out) {
    const auto c = static_cast<std::int64_t>(cell);
    const std::int64_t index = (box.x0 + c % box.nx) + box.stride * (box.y0 + c / box.nx);
    out[index] =
        0.25 * (in[index - 1] + in[index + 1] + in[index - box.stride] + in[index + box.stride]);
  }
};

}  // namespace

KernelRef<std::size_t, Box2, const double*, double*> average5() {
  return per_cell_kernel<Average5, Box2, const double*, double*>("average5");
}

}  // namespace haloflow::kernels
