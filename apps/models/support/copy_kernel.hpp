#pragma once
//! \file
//! \brief The copy kernel the bandwidth figures are measured with (copy_bandwidth.cpp), and the
//! L2's size: asked of CUDA here so that the rest of the models stay free of its headers.

#include <cstdint>

#include "haloflow/kernel.hpp"

namespace haloflow::models {

//! (words, from, to): to[i] = from[i] for the 16-byte words i < words, grid-stride (the kernel
//! labs' copy, tools/labs/jacobi-kernel-lab.cu). GPU executors only. Launch: any fixed grid.
using CopyKernel = KernelRef<std::int64_t, const void*, void*>;
[[nodiscard]] CopyKernel copy_kernel();

//! The current device's L2 cache in bytes; 0 when CUDA cannot say.
[[nodiscard]] double l2_cache_bytes();

}  // namespace haloflow::models
