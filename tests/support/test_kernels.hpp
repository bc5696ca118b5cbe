#pragma once
// Kernels for the tests: the seed question's minimal example, and a fill for patching checks.

#include <cstddef>
#include <cstdint>

#include "haloflow/kernel.hpp"

namespace haloflow::testing {

//! data[i] = i (the question's smallKernel_1)
KernelRef<std::size_t, int*> write_index();
//! data[i] += 10 (smallKernel_2)
KernelRef<std::size_t, int*> add_ten();
//! out[i] = in[i] + 2000, one add at a time (longKernel: keeps the GPU busy)
KernelRef<std::size_t, const float*, float*> long_add();
//! data[i] = value
KernelRef<std::size_t, double*, double> fill();
//! One thread: log[1 + log[0]] = *value (read through, from pinned host memory), then ++log[0]
//! (cells must be 1): what a kernel after a host node sees of the value that node wrote.
KernelRef<std::size_t, const std::uint64_t*, std::uint64_t*> record_value();
//! A kernel with a device entry only: the host executor must refuse it.
KernelRef<std::size_t, double*, double> fill_device_only();
//! Launches one thread on the legacy default stream that spins for `seconds` of the GPU's clock,
//! so that work queued there after it waits; \returns whether the launch succeeded.
bool occupy_legacy_stream(double seconds);

}  // namespace haloflow::testing
