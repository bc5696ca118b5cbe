#pragma once
// The memory budget of a rank without a GPU: this machine's physical memory shared by the ranks
// that run on it (`run`: the ranks of this node, MPI_COMM_TYPE_SHARED; `validate`: --ranks,
// taken to share one node). With a GPU the budget is the device's memory.

#include <mpi.h>

#include <cstdint>
#include <optional>

#include "haloflow/device.hpp"

namespace haloflow::cases {

//! This machine's physical memory in bytes (sysconf(_SC_PHYS_PAGES) * _SC_PAGESIZE); 0 when the
//! system does not say.
[[nodiscard]] std::uint64_t physical_memory_bytes();

//! GiB per rank when `ranks_on_node` ranks share this machine's physical memory (ranks below 1
//! count as 1); `fallback_gib` when the system does not say how much it has.
[[nodiscard]] double host_memory_gib_per_rank(int ranks_on_node, double fallback_gib = 16.0);

//! A rank's memory budget in GiB: `device`'s memory, or without one this machine's physical
//! memory shared by `ranks_on_node` ranks.
[[nodiscard]] double rank_memory_gib(const std::optional<DeviceInfo>& device, int ranks_on_node);

//! The ranks of `communicator` on this node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED); 1 when
//! MPI cannot say. Collective.
[[nodiscard]] int ranks_on_this_node(MPI_Comm communicator);

//! The same from a machine of `physical_bytes` (the rule, for tests).
[[nodiscard]] double memory_gib_per_rank(std::uint64_t physical_bytes, int ranks_on_node,
                                         double fallback_gib = 16.0);

}  // namespace haloflow::cases
