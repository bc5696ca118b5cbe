// The heat step written once per cell (HeatCell), run by a 3D-launched kernel on the GPU and by a
// plane/row loop on the CPU, so the host executor runs the same frame.

#include "haloflow/per_cell.cuh"
#include "heat_kernels.hpp"

namespace haloflow::kernels {
namespace {

template <class T>
struct HeatCell {
  //! Writes cell `i` of u_new. Each axis's second difference is formed before it is scaled, so a
  //! constant field stays exactly constant.
  static HALOFLOW_HD void apply(std::int64_t i, std::int64_t stride_y, std::int64_t stride_z,
                                HeatCoefficients<T> c, const T* __restrict__ u,
                                T* __restrict__ u_new) {
    const T centre = u[i];
    const T twice = centre + centre;
    u_new[i] = centre + (c.x * ((u[i - 1] + u[i + 1]) - twice) +
                         c.y * ((u[i - stride_y] + u[i + stride_y]) - twice) +
                         c.z * ((u[i - stride_z] + u[i + stride_z]) - twice));
  }
};

//! One thread per column of a row; no division or modulo per cell.
template <class T>
__global__ void heat_box(CellBox box, HeatCoefficients<T> c, const T* __restrict__ u,
                         T* __restrict__ u_new) {
  const std::int64_t x = box.x0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (x >= box.x0 + box.nx) return;
  // Indices advance by additions: a 64-bit multiply per cell made the sweep compute-bound.
  const int rows = static_cast<int>(gridDim.y * blockDim.y);
  const std::int64_t row_step = rows * box.stride_y;
  const int first_row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  for (std::int64_t z = blockIdx.z; z < box.nz; z += gridDim.z) {
    std::int64_t i = x + (box.z0 + z) * box.stride_z + (box.y0 + first_row) * box.stride_y;
    for (int y = first_row; y < box.ny; y += rows, i += row_step) {
      HeatCell<T>::apply(i, box.stride_y, box.stride_z, c, u, u_new);
    }
  }
}

template <class T>
void heat_box_on_host(const LaunchShape& /*shape*/, CellBox box, HeatCoefficients<T> c, const T* u,
                      T* u_new) {
  for (std::int64_t z = box.z0; z < box.z0 + box.nz; ++z) {
    for (std::int64_t y = box.y0; y < box.y0 + box.ny; ++y) {
      const std::int64_t row = y * box.stride_y + z * box.stride_z;
      for (std::int64_t x = box.x0; x < box.x0 + box.nx; ++x) {
        HeatCell<T>::apply(row + x, box.stride_y, box.stride_z, c, u, u_new);
      }
    }
  }
}

}  // namespace

template <class T>
HeatKernel<T> heat_kernel() {
  return {&heat_box<T>, &heat_box_on_host<T>, "heat"};
}

template HeatKernel<float> heat_kernel<float>();
template HeatKernel<double> heat_kernel<double>();

}  // namespace haloflow::kernels
