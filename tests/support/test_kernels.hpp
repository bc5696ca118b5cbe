#pragma once
// Kernels for the tests: the seed question's minimal example, and a fill for patching checks.

#include <cstddef>

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
//! A kernel with a device entry only: the host executor must refuse it.
KernelRef<std::size_t, double*, double> fill_device_only();

}  // namespace haloflow::testing
