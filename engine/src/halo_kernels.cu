// Pack and unpack of every neighbour's halo in one grid-stride kernel each: a thread finds its
// segment (one field's box of one message) by binary search over the segments' buffer offsets.

#include "haloflow/halo_exchange.hpp"
#include "haloflow/per_cell.cuh"

namespace haloflow {
namespace {

HALOFLOW_HD inline const HaloSegment& segment_of(std::int64_t element, const HaloSegment* segments,
                                                 int count) {
  int low = 0;
  int high = count - 1;
  while (low < high) {  // the last segment whose offset is <= element
    const int middle = (low + high + 1) / 2;
    if (segments[middle].buffer_offset <= element) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return segments[low];
}

template <class T>
HALOFLOW_HD inline T& field_cell(std::int64_t element, const HaloSegment& segment,
                                 const FieldTable<T>& table) {
  const std::int64_t local = element - segment.buffer_offset;
  const std::int64_t i = segment.lower[0] + local % segment.extent[0];
  const std::int64_t j = segment.lower[1] + (local / segment.extent[0]) % segment.extent[1];
  const std::int64_t k = segment.lower[2] + local / (segment.extent[0] * segment.extent[1]);
  return table.fields[segment.field][i + table.stride_y * j + table.stride_z * k];
}

template <class T>
struct Pack {
  static HALOFLOW_HD void apply(std::size_t element, const HaloSegment* segments, int count,
                                FieldTable<T> table, T* buffer) {
    const auto e = static_cast<std::int64_t>(element);
    buffer[e] = field_cell(e, segment_of(e, segments, count), table);
  }
};

template <class T>
struct Unpack {
  static HALOFLOW_HD void apply(std::size_t element, const HaloSegment* segments, int count,
                                FieldTable<T> table, const T* buffer) {
    const auto e = static_cast<std::int64_t>(element);
    field_cell(e, segment_of(e, segments, count), table) = buffer[e];
  }
};

}  // namespace

template <class T>
KernelRef<std::size_t, const HaloSegment*, int, FieldTable<T>, T*> halo_pack_kernel() {
  return grid_stride_kernel<Pack<T>, const HaloSegment*, int, FieldTable<T>, T*>("halo_pack");
}

template <class T>
KernelRef<std::size_t, const HaloSegment*, int, FieldTable<T>, const T*> halo_unpack_kernel() {
  return grid_stride_kernel<Unpack<T>, const HaloSegment*, int, FieldTable<T>, const T*>(
      "halo_unpack");
}

template KernelRef<std::size_t, const HaloSegment*, int, FieldTable<float>, float*>
halo_pack_kernel<float>();
template KernelRef<std::size_t, const HaloSegment*, int, FieldTable<double>, double*>
halo_pack_kernel<double>();
template KernelRef<std::size_t, const HaloSegment*, int, FieldTable<float>, const float*>
halo_unpack_kernel<float>();
template KernelRef<std::size_t, const HaloSegment*, int, FieldTable<double>, const double*>
halo_unpack_kernel<double>();

}  // namespace haloflow
