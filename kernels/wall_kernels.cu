// The wall node's kernel (haloflow/walls.hpp): one grid-stride kernel over the ghost cells of
// every wall face; each thread finds its face among the inline ones, then fills that cell of
// every field by the field's rule.

#include "haloflow/per_cell.cuh"
#include "haloflow/walls.hpp"

namespace haloflow {
namespace {

template <class T>
struct FillWall {
  static HALOFLOW_HD void apply(std::size_t element, const WallSegments& faces,
                                const WallFields<T>& set) {
    const auto e = static_cast<std::int64_t>(element);
    int found = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int f = 1; f < kWallFaces; ++f) {
      if (f >= faces.count) break;
      if (faces.items[f].offset <= e) found = f;
    }
    const WallSegment& face = faces.items[found];
    const std::int64_t local = e - face.offset;
    std::int64_t cell[3] = {face.lower[0] + local % face.extent[0],
                            face.lower[1] + (local / face.extent[0]) % face.extent[1],
                            face.lower[2] + local / (face.extent[0] * face.extent[1])};
    const std::int64_t ghost = cell[0] + set.stride_y * cell[1] + set.stride_z * cell[2];
    const std::int64_t stride =
        face.axis == 0 ? std::int64_t{1} : (face.axis == 1 ? set.stride_y : set.stride_z);
    const std::int64_t along = cell[face.axis];
    // The nearest owned layer, and the owned layer mirrored across the wall.
    const std::int64_t nearest = face.side < 0 ? face.wall : face.wall - 1;
    const std::int64_t mirrored = 2 * face.wall - 1 - along;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int f = 0; f < kWallFields; ++f) {
      if (f >= set.count) break;
      T* const field = set.fields[f];
      switch (static_cast<WallRule>(set.rules[f])) {
        case WallRule::zero_gradient:
          field[ghost] = field[ghost + (nearest - along) * stride];
          break;
        case WallRule::reflect:
          field[ghost] = field[ghost + (mirrored - along) * stride];
          break;
        case WallRule::reflect_negated:
          field[ghost] = -field[ghost + (mirrored - along) * stride];
          break;
        case WallRule::fixed:
          field[ghost] = set.values[f];
          break;
      }
    }
  }
};

//! grid_stride_cells (per_cell.cuh) with the faces and fields __grid_constant__, read where the
//! launch put them rather than copied to local memory (they are indexed at run time).
template <class T>
__global__ void fill_walls(std::size_t cells, __grid_constant__ const WallSegments faces,
                           __grid_constant__ const WallFields<T> set) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t cell = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       cell < cells; cell += stride) {
    FillWall<T>::apply(cell, faces, set);
  }
}

static_assert(sizeof(std::size_t) + sizeof(WallSegments) + sizeof(WallFields<double>) <= 1024);

}  // namespace

template <class T>
KernelRef<std::size_t, WallSegments, WallFields<T>> wall_kernel() {
  return {&fill_walls<T>, &strided_cells_on_host<FillWall<T>, WallSegments, WallFields<T>>, "wall"};
}

template KernelRef<std::size_t, WallSegments, WallFields<float>> wall_kernel<float>();
template KernelRef<std::size_t, WallSegments, WallFields<double>> wall_kernel<double>();

}  // namespace haloflow
