// jacobi2d's deep sweep's CPU twin (jacobi_deep_kernel) against that many one-step sweeps, bit for
// bit, with and without the fixed columns, for every depth, in float and double; and its launch.
// tests/gpu/test_gpu_jacobi_deep.cpp checks the GPU sweep the same way.

#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "haloflow/error.hpp"
#include "jacobi_deep_field.hpp"

using namespace haloflow;

namespace {

// `depth` one-step sweeps from f.start, by the CPU twin; the array after the last.
template <class T>
std::vector<T> one_step_sweeps(const tests::DeepField<T>& f, int depth) {
  std::vector<T> from = f.start;
  std::vector<T> to = f.start;  // the fixed columns and the outer ring keep their values
  for (int step = 0; step < depth; ++step) {
    for (const kernels::CellBox& box : f.one) {
      kernels::jacobi_kernel<T>().host(box_launch(box), box, from.data(), to.data(), nullptr);
    }
    std::swap(from, to);
  }
  return from;
}

template <class T>
void check_depths() {
  for (const int depth : {2, 4, 8}) {
    for (const bool fixed : {false, true}) {
      // Narrower than a warp's strip, and wider than two, with a ragged end.
      // Plain names, not a structured binding: CAPTURE's lambda cannot capture a binding under
      // the sanitizer build's clang.
      for (const auto& size : {std::pair{5, 3}, std::pair{300, 41}}) {
        const int nx = size.first;
        const int ny = size.second;
        CAPTURE(depth);
        CAPTURE(fixed);
        CAPTURE(nx);
        const auto f = tests::deep_field<T>(nx, ny, depth, fixed, 7U * depth + nx);
        const std::vector<T> want = tests::box_cells(f, one_step_sweeps(f, depth));
        std::vector<T> deep = f.start;
        kernels::jacobi_deep_kernel<T>(depth).host(kernels::deep_launch(f.box, depth), f.box,
                                                   f.start.data(), deep.data(), f.fixed);
        CHECK(tests::differing(tests::box_cells(f, deep), want) == 0);
        if (depth == 2) {
          std::vector<T> two = f.start;
          kernels::jacobi_two_step_kernel<T>().host(kernels::two_step_launch(f.box, 8), f.box,
                                                    f.start.data(), two.data(), f.fixed);
          CHECK(tests::differing(tests::box_cells(f, two), want) == 0);
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("jacobi2d's deep sweep on the host: the bits of that many one-step sweeps") {
  check_depths<float>();
  check_depths<double>();
  CHECK_THROWS_WITH_AS((void)kernels::jacobi_deep_kernel<float>(3),
                       "jacobi_deep_kernel: depth 3 is not allowed; expected 2, 4 or 8", Error);
}

TEST_CASE("the deep sweep's launch: a warp writes 128 - 2 depth columns, bands of 32 depth rows") {
  const kernels::CellBox box{.x0 = 8,
                             .y0 = 8,
                             .z0 = 0,
                             .nx = 16382,
                             .ny = 16384,
                             .nz = 1,
                             .stride_y = 16400,
                             .stride_z = 0};
  const LaunchShape eight = kernels::deep_launch(box, 8);
  CHECK(eight.block == Extent3{128, 1, 1});
  CHECK(eight.grid == Extent3{37, 64, 1});  // ceil(16382 / (4 * 112)), 16384 / 256
  CHECK(kernels::deep_launch(box, 4).grid == Extent3{35, 128, 1});  // 4 * 120 columns, 128 rows
  // A small box: bands halved (down to 4 depth rows) until the launch has enough warps.
  const kernels::CellBox small{.nx = 2046, .ny = 2048, .nz = 1, .stride_y = 2064};
  CHECK(kernels::deep_launch(small, 8).grid == Extent3{5, 64, 1});  // 32-row bands
  CHECK(kernels::deep_launch(small, 8, 100).grid == Extent3{5, 21, 1});
  CHECK_THROWS_WITH_AS((void)kernels::deep_launch({.nx = 0, .ny = 4, .nz = 1}, 8),
                       "deep_launch: a box of 0 x 4 cells for 8 steps is not allowed; expected "
                       "at least one cell per axis and one step",
                       Error);
}
