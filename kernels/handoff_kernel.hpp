#pragma once
// The device side of the proxy handoff (engine/src/handoff.hpp has the protocol): one kernel per
// proxied host node. Internal header, free of CUDA types so host code can include it.

#include <cstdint>

#include "handoff.hpp"

namespace haloflow::detail {

//! What one handoff kernel node is launched with.
struct HandoffArgs {
  HandoffSlot* slot = nullptr;          //!< host-mapped (a device pointer to it)
  std::uint64_t* executions = nullptr;  //!< device memory: how often this node has run
  std::uint64_t deadline_ns = 0;        //!< how long the GPU waits for the release
};

//! The `__global__` entry of the handoff kernel: one thread that counts the execution, rings the
//! doorbell, spins until the release (or the deadline), and acknowledges. Launch it as <<<1, 1>>>
//! with one argument, a HandoffArgs.
[[nodiscard]] const void* handoff_kernel_entry();

}  // namespace haloflow::detail
