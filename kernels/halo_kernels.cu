// Pack, unpack and self copy of every neighbour's halo, one grid-stride kernel each: a thread finds
// its segment (one field's box of one message) as the last one starting at or before its element,
// in the kernel's parameters where they fit (HaloSegmentList), else by binary search of a device
// table.

#include "haloflow/halo_exchange.hpp"
#include "haloflow/per_cell.cuh"

namespace haloflow {
namespace {

template <class Segment>
HALOFLOW_HD inline std::int64_t start_of(const Segment& segment) {
  if constexpr (requires { segment.buffer_offset; }) {
    return segment.buffer_offset;
  } else {
    return segment.offset;
  }
}

template <class Segment>
HALOFLOW_HD inline const Segment& search(std::int64_t element, const Segment* segments, int count) {
  int low = 0;
  int high = count - 1;
  while (low < high) {  // the last segment whose offset is <= element
    const int middle = (low + high + 1) / 2;
    if (start_of(segments[middle]) <= element) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return segments[low];
}

//! The same segment among inline items: a scan unrolled over fixed indices, whose compares read
//! the parameter bank directly, so there is no chain of dependent loads as in the search.
template <class Segment>
HALOFLOW_HD inline int scan(std::int64_t element, const HaloSegmentList<Segment>& list) {
  int found = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 1; i < kInlineHaloSegments; ++i) {
    if (i >= list.count) break;
    if (start_of(list.items[i]) <= element) found = i;
  }
  return found;
}

//! Calls `use` with the segment of `element`. Two calls rather than one reference chosen by a
//! branch: a reference that may point into the parameters would be read as generic memory,
//! where each branch alone reads the parameter bank or global memory.
template <class Segment, class Use>
HALOFLOW_HD inline void with_segment(std::int64_t element, const HaloSegmentList<Segment>& list,
                                     Use&& use) {
  if (list.table == nullptr) {
    use(list.items[scan(element, list)]);
  } else {
    use(search(element, list.table, list.count));
  }
}

//! The cell `local` elements into a box starting at `lower` with `extent` cells, x fastest. In
//! 32 bits where the box allows (every halo box of a real grid): a 64-bit division is a long
//! software sequence on the GPU, and the self copy of a large 3D halo does three per cell.
template <class T>
HALOFLOW_HD inline T& cell_at(std::int64_t local, const std::int64_t (&lower)[3],
                              const std::int64_t (&extent)[3], std::int32_t field,
                              const FieldTable<T>& table) {
  constexpr std::int64_t kNarrow = 0xffffffffLL;
  const std::int64_t plane = extent[0] * extent[1];
  std::int64_t i = 0;
  std::int64_t j = 0;
  std::int64_t k = 0;
  if (local <= kNarrow && plane <= kNarrow) {
    const auto l = static_cast<std::uint32_t>(local);
    const auto nx = static_cast<std::uint32_t>(extent[0]);
    const auto row = l / nx;
    i = lower[0] + (l - row * nx);
    j = lower[1] + row % static_cast<std::uint32_t>(extent[1]);
    k = lower[2] + l / static_cast<std::uint32_t>(plane);
  } else {
    i = lower[0] + local % extent[0];
    j = lower[1] + (local / extent[0]) % extent[1];
    k = lower[2] + local / plane;
  }
  T* const base = table.table == nullptr ? table.fields[field] : table.table[field];
  return base[i + table.stride_y * j + table.stride_z * k];
}

// Host-mapped buffers are touched by the host between kernels: loads that never trust a cached
// line, stores that write through to system memory. Device buffers use plain accesses.
template <class T>
HALOFLOW_HD inline T load_halo(const HaloBuffer<T>& buffer, std::int64_t e) {
#if defined(__CUDA_ARCH__)
  if (buffer.host_mapped) return __ldcv(buffer.data + e);
#endif
  return buffer.data[e];
}

template <class T>
HALOFLOW_HD inline void store_halo(const HaloBuffer<T>& buffer, std::int64_t e, T value) {
#if defined(__CUDA_ARCH__)
  if (buffer.host_mapped) {
    __stwt(buffer.data + e, value);
    return;
  }
#endif
  buffer.data[e] = value;
}

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
