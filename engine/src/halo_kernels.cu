// Pack, unpack and self copy of every neighbour's halo, one grid-stride kernel each: a thread finds
// its segment (one field's box of one message) by binary search over the segments' offsets.

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
HALOFLOW_HD inline const Segment& segment_of(std::int64_t element, const Segment* segments,
                                             int count) {
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
  return table.fields[field][i + table.stride_y * j + table.stride_z * k];
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

template <class T>
struct Pack {
  static HALOFLOW_HD void apply(std::size_t element, const HaloSegment* segments, int count,
                                FieldTable<T> table, HaloBuffer<T> buffer) {
    const auto e = static_cast<std::int64_t>(element);
    const HaloSegment& s = segment_of(e, segments, count);
    store_halo(buffer, e, cell_at(e - s.buffer_offset, s.lower, s.extent, s.field, table));
  }
};

template <class T>
struct Unpack {
  static HALOFLOW_HD void apply(std::size_t element, const HaloSegment* segments, int count,
                                FieldTable<T> table, HaloBuffer<T> buffer) {
    const auto e = static_cast<std::int64_t>(element);
    const HaloSegment& s = segment_of(e, segments, count);
    cell_at(e - s.buffer_offset, s.lower, s.extent, s.field, table) = load_halo(buffer, e);
  }
};

template <class T>
struct SelfCopy {
  static HALOFLOW_HD void apply(std::size_t element, const HaloCopySegment* runs, int count,
                                FieldTable<T> table) {
    const auto e = static_cast<std::int64_t>(element);
    const HaloCopySegment& run = segment_of(e, runs, count);
    const std::int64_t local = e - run.offset;
    cell_at(local, run.to, run.extent, run.field, table) =
        cell_at(local, run.from, run.extent, run.field, table);
  }
};

}  // namespace

template <class T>
KernelRef<std::size_t, const HaloSegment*, int, FieldTable<T>, HaloBuffer<T>> halo_pack_kernel() {
  return grid_stride_kernel<Pack<T>, const HaloSegment*, int, FieldTable<T>, HaloBuffer<T>>(
      "halo_pack");
}

template <class T>
KernelRef<std::size_t, const HaloSegment*, int, FieldTable<T>, HaloBuffer<T>> halo_unpack_kernel() {
  return grid_stride_kernel<Unpack<T>, const HaloSegment*, int, FieldTable<T>, HaloBuffer<T>>(
      "halo_unpack");
}

template <class T>
KernelRef<std::size_t, const HaloCopySegment*, int, FieldTable<T>> halo_self_copy_kernel() {
  return grid_stride_kernel<SelfCopy<T>, const HaloCopySegment*, int, FieldTable<T>>(
      "halo_self_copy");
}

#define HALOFLOW_HALO_KERNELS(T)                                                         \
  template KernelRef<std::size_t, const HaloSegment*, int, FieldTable<T>, HaloBuffer<T>> \
  halo_pack_kernel<T>();                                                                 \
  template KernelRef<std::size_t, const HaloSegment*, int, FieldTable<T>, HaloBuffer<T>> \
  halo_unpack_kernel<T>();                                                               \
  template KernelRef<std::size_t, const HaloCopySegment*, int, FieldTable<T>>            \
  halo_self_copy_kernel<T>();
HALOFLOW_HALO_KERNELS(float)
HALOFLOW_HALO_KERNELS(double)
#undef HALOFLOW_HALO_KERNELS

}  // namespace haloflow
