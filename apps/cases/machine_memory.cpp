#include "machine_memory.hpp"

#include <unistd.h>

#include <algorithm>

namespace haloflow::cases {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_bytes = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_bytes <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_bytes);
}

double memory_gib_per_rank(std::uint64_t physical_bytes, int ranks_on_node, double fallback_gib) {
  if (physical_bytes == 0) return fallback_gib;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return static_cast<double>(physical_bytes) / kGiB / std::max(ranks_on_node, 1);
}

int ranks_on_this_node(MPI_Comm communicator) {
  MPI_Comm node = MPI_COMM_NULL;
  if (MPI_Comm_split_type(communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) !=
      MPI_SUCCESS) {
    return 1;
  }
  int size = 1;
  if (MPI_Comm_size(node, &size) != MPI_SUCCESS) size = 1;
  MPI_Comm_free(&node);
  return size;
}

double host_memory_gib_per_rank(int ranks_on_node, double fallback_gib) {
  return memory_gib_per_rank(physical_memory_bytes(), ranks_on_node, fallback_gib);
}

double rank_memory_gib(const std::optional<DeviceInfo>& device, int ranks_on_node) {
  return device ? device->memory_gib : host_memory_gib_per_rank(ranks_on_node);
}

}  // namespace haloflow::cases
