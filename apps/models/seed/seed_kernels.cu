#include <cmath>

#include "haloflow/per_cell.cuh"
#include "seed_kernels.hpp"

namespace haloflow::kernels {
namespace {

struct Flux {
  static HALOFLOW_HD void apply(std::size_t cell, double* data, int intensity) {
    double value = data[cell];
    for (int i = 0; i < intensity; ++i) value = sin(value);  // stand-in for real flux work
    data[cell] = value;
  }
};

struct Copy {
  static HALOFLOW_HD void apply(std::size_t cell, const double* from, double* to) {
    to[cell] = from[cell];
  }
};

}  // namespace

KernelRef<std::size_t, double*, int> seed_flux() {
  return per_cell_kernel<Flux, double*, int>("seed_flux");
}

KernelRef<std::size_t, const double*, double*> seed_copy() {
  return grid_stride_kernel<Copy, const double*, double*>("seed_copy");
}

}  // namespace haloflow::kernels
