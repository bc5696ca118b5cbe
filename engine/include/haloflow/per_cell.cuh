#pragma once
//! \file
//! \brief Kernels written once as a per-cell operation, launched on the GPU by thin `__global__`
//! wrappers and on the CPU by a loop, so the host executor can run the same frame.
//!
//! An operation is a type with `static HALOFLOW_HD void apply(std::size_t cell, Params...)`.
//! Include from `.cu` files only: taking a `__global__` address needs nvcc.

#include <cstddef>
#include <cstdint>

#include "haloflow/kernel.hpp"

#if defined(__CUDACC__)
#define HALOFLOW_HD __host__ __device__
#else
#define HALOFLOW_HD
#endif

namespace haloflow {

//! One thread per cell: many short blocks, so higher-priority blocks find room as they retire
//! (the shape the bulk interior kernel wants).
template <class Op, class... Params>
__global__ void one_thread_per_cell(std::size_t cells, Params... params) {
  const std::size_t cell = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (cell < cells) Op::apply(cell, params...);
}

//! A fixed grid striding over the cells: few blocks, so communication kernels occupy little.
template <class Op, class... Params>
__global__ void grid_stride_cells(std::size_t cells, Params... params) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t cell = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       cell < cells; cell += stride) {
    Op::apply(cell, params...);
  }
}

//! The CPU twin of one_thread_per_cell: the cells the launch's threads reach, as on the GPU (a
//! grid too small for the cells leaves the rest untouched on both, so the host executor shows
//! the mistake the GPU would make).
template <class Op, class... Params>
void cells_on_host(const LaunchShape& shape, std::size_t cells, Params... params) {
  const std::uint64_t threads = std::uint64_t{shape.grid.x} * shape.block.x;
  const std::size_t reached = threads < cells ? static_cast<std::size_t>(threads) : cells;
  for (std::size_t cell = 0; cell < reached; ++cell) Op::apply(cell, params...);
}

//! The CPU twin of grid_stride_cells: every cell, as any non-empty grid reaches all of them.
template <class Op, class... Params>
void strided_cells_on_host(const LaunchShape& shape, std::size_t cells, Params... params) {
  if (std::uint64_t{shape.grid.x} * shape.block.x == 0) return;
  for (std::size_t cell = 0; cell < cells; ++cell) Op::apply(cell, params...);
}

//! The cells one_thread_per_cell reaches: one per thread along x (the wrapper indexes by x
//! alone), at most `cells`.
template <class... Params>
std::uint64_t cells_reached(const LaunchShape& shape, std::size_t cells, Params...) {
  const std::uint64_t threads = std::uint64_t{shape.grid.x} * shape.block.x;
  return threads < cells ? threads : std::uint64_t{cells};
}

//! The cells grid_stride_cells reaches: all of them, from any non-empty grid.
template <class... Params>
std::uint64_t cells_strided(const LaunchShape& shape, std::size_t cells, Params...) {
  return shape.grid.volume() * shape.block.volume() == 0 ? 0 : std::uint64_t{cells};
}

//! \brief `Op` as a kernel with one thread per cell, runnable by every executor.
template <class Op, class... Params>
KernelRef<std::size_t, Params...> per_cell_kernel(const char* label) {
  return {&one_thread_per_cell<Op, Params...>, &cells_on_host<Op, Params...>, label,
          &cells_reached<Params...>};
}

//! \brief `Op` as a grid-stride kernel, runnable by every executor.
template <class Op, class... Params>
KernelRef<std::size_t, Params...> grid_stride_kernel(const char* label) {
  return {&grid_stride_cells<Op, Params...>, &strided_cells_on_host<Op, Params...>, label,
          &cells_strided<Params...>};
}

}  // namespace haloflow
