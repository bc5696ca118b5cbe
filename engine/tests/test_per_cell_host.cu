// The host twins of per_cell.cuh honour the launch shape as the GPU does: a grid of one thread per
// cell that is too small leaves the same cells untouched on the CPU, so the host executor shows
// the mistake; a grid-stride kernel reaches every cell with any grid.

#include <doctest/doctest.h>

#include <vector>

#include "haloflow/frame.hpp"
#include "haloflow/per_cell.cuh"

using namespace haloflow;

namespace {

struct MarkCell {
  static HALOFLOW_HD void apply(std::size_t cell, int* cells) { cells[cell] = 1; }
};

int marked(const std::vector<int>& cells) {
  int count = 0;
  for (const int cell : cells) count += cell;
  return count;
}

int run(KernelRef<std::size_t, int*> kernel, LaunchShape shape, std::size_t cells) {
  std::vector<int> values(cells, 0);
  FramePlan plan("shape");
  plan.add_kernel({.name = "mark"}, kernel, shape, cells, values.data());
  Frame frame(std::move(plan), ExecutorKind::host, {.host_order = HostOrdering{}});
  frame.launch();
  frame.wait();
  return marked(values);
}

}  // namespace

TEST_CASE("a one-thread-per-cell kernel's host twin visits the cells its grid reaches") {
  const auto kernel = per_cell_kernel<MarkCell, int*>("mark");
  CHECK(run(kernel, LaunchShape::cover(1000, 128), 1000) == 1000);
  CHECK(run(kernel, LaunchShape::fixed(4, 128), 1000) == 512);  // half the cells: as on a GPU
  CHECK(run(kernel, LaunchShape::fixed(1, 1), 1000) == 1);
}

TEST_CASE("a grid-stride kernel's host twin visits every cell with any grid") {
  const auto kernel = grid_stride_kernel<MarkCell, int*>("mark");
  CHECK(run(kernel, LaunchShape::fixed(1, 32), 1000) == 1000);
  CHECK(run(kernel, LaunchShape::fixed(64, 256), 1000) == 1000);
}
