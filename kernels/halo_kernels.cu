// Pack, unpack and self copy of every neighbour's halo, one grid-stride kernel each: a thread finds
// its segment (one field's box of one message) as the last one starting at or before its element,
// in the kernel's parameters where they fit (HaloSegmentList), else by binary search of a device
// table.

#include "halo_cells.cuh"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/per_cell.cuh"

namespace haloflow {
namespace {

using halo_cells::cell_at;
using halo_cells::load_halo;
using halo_cells::store_halo;
using halo_cells::with_segment;

// The segment lists and field tables are taken by reference: on the device they are the kernel's
// own __grid_constant__ parameters, read in place; on the host, the twin's arguments.
template <class T>
struct Pack {
  static HALOFLOW_HD void apply(std::size_t element, const HaloSegments& segments,
                                const FieldTable<T>& table, HaloBuffer<T> buffer) {
    const auto e = static_cast<std::int64_t>(element);
    with_segment(e, segments, [&](const HaloSegment& s) {
      store_halo(buffer, e, cell_at(e - s.buffer_offset, s.lower, s.extent, s.field, table));
    });
  }
};

template <class T>
struct Unpack {
  static HALOFLOW_HD void apply(std::size_t element, const HaloSegments& segments,
                                const FieldTable<T>& table, HaloBuffer<T> buffer) {
    const auto e = static_cast<std::int64_t>(element);
    with_segment(e, segments, [&](const HaloSegment& s) {
      cell_at(e - s.buffer_offset, s.lower, s.extent, s.field, table) = load_halo(buffer, e);
    });
  }
};

template <class T>
struct SelfCopy {
  static HALOFLOW_HD void apply(std::size_t element, const HaloCopySegments& runs,
                                const FieldTable<T>& table) {
    const auto e = static_cast<std::int64_t>(element);
    with_segment(e, runs, [&](const HaloCopySegment& run) {
      const std::int64_t local = e - run.offset;
      cell_at(local, run.to, run.extent, run.field, table) =
          cell_at(local, run.from, run.extent, run.field, table);
    });
  }
};

//! grid_stride_cells (per_cell.cuh) with the segment list and the field table __grid_constant__:
//! they are indexed by values known only at run time, which otherwise makes a copy of each in
//! local memory; so they are read where the launch put them. (Spelt out rather than as a
//! `const Params...` pack, whose function type g++ does not match.)
template <class Op, class List, class Table, class... Rest>
__global__ void halo_grid_stride(std::size_t cells, __grid_constant__ const List list,
                                 __grid_constant__ const Table table, Rest... rest) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t cell = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       cell < cells; cell += stride) {
    Op::apply(cell, list, table, rest...);
  }
}

template <class Op, class List, class Table, class... Rest>
KernelRef<std::size_t, List, Table, Rest...> halo_kernel(const char* label) {
  return {&halo_grid_stride<Op, List, Table, Rest...>,
          &strided_cells_on_host<Op, List, Table, Rest...>, label};
}

// The parameter blocks, (cells, list, table[, buffer]) as CUDA lays them out: far below the 4 KB
// every CUDA version takes.
static_assert(sizeof(std::size_t) + sizeof(HaloSegments) + sizeof(FieldTable<double>) +
                  sizeof(HaloBuffer<double>) <=
              1280);
static_assert(sizeof(std::size_t) + sizeof(HaloCopySegments) + sizeof(FieldTable<double>) <= 1600);

}  // namespace

template <class T>
KernelRef<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>> halo_pack_kernel() {
  return halo_kernel<Pack<T>, HaloSegments, FieldTable<T>, HaloBuffer<T>>("halo_pack");
}

template <class T>
KernelRef<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>> halo_unpack_kernel() {
  return halo_kernel<Unpack<T>, HaloSegments, FieldTable<T>, HaloBuffer<T>>("halo_unpack");
}

template <class T>
KernelRef<std::size_t, HaloCopySegments, FieldTable<T>> halo_self_copy_kernel() {
  return halo_kernel<SelfCopy<T>, HaloCopySegments, FieldTable<T>>("halo_self_copy");
}

#define HALOFLOW_HALO_KERNELS(T)                                              \
  template KernelRef<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>> \
  halo_pack_kernel<T>();                                                      \
  template KernelRef<std::size_t, HaloSegments, FieldTable<T>, HaloBuffer<T>> \
  halo_unpack_kernel<T>();                                                    \
  template KernelRef<std::size_t, HaloCopySegments, FieldTable<T>> halo_self_copy_kernel<T>();
HALOFLOW_HALO_KERNELS(float)
HALOFLOW_HALO_KERNELS(double)
#undef HALOFLOW_HALO_KERNELS

}  // namespace haloflow
