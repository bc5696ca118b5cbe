#pragma once
// How a halo kernel finds the cell of one of its elements: the element's segment (one field's box
// of one message) is the last one starting at or before it, in the kernel's parameters where the
// segments fit (HaloSegmentList), else by binary search of a device table; then the cell inside
// that box. Shared by the host-staged kernels (halo_kernels.cu) and the peer transport's
// (peer_kernels.cu), on the GPU and in their host twins.

#include <cstdint>

#include "haloflow/halo_exchange.hpp"
#include "haloflow/per_cell.cuh"

namespace haloflow::halo_cells {

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

}  // namespace haloflow::halo_cells
