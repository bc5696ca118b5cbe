#pragma once
//! \file
//! \brief The Jacobi sweep of the Laplace problem (NVIDIA's multi-gpu-programming-models jacobi):
//! a_new = the mean of a's four face neighbours, summed in the reference program's order, so that
//! results compare number for number.
//!
//! Launch geometry: x over grid.x * block.x (one thread per column of the box), rows over
//! grid.y * block.y: each thread walks a run of ceil(ny / (grid.y * block.y)) consecutive rows, so
//! a shorter grid gives longer runs; blocks have a multiple of 32 threads (the norm variant
//! reduces by warps).

#include "cell_box.hpp"
#include "haloflow/kernel.hpp"

namespace haloflow::kernels {

//! (box, a, a_new, sum): one sweep over the rows of `box` (its z0 plane).
template <class T>
using JacobiKernel = KernelRef<CellBox, const T*, T*, double*>;

//! The sweep alone: `sum` is not touched (it may be null). Same parameters as the norm variant,
//! so both frames patch their nodes the same way.
template <class T>
JacobiKernel<T> jacobi_kernel();

//! The sweep, adding the sum over `box` of (a_new - a)^2, in double, to `*sum` (one atomicAdd per
//! block on the GPU): the norm costs no extra pass over memory.
template <class T>
JacobiKernel<T> jacobi_norm_kernel();

//! (value): *value = 0, one thread; resets the norm's accumulator at the start of a frame.
KernelRef<double*> zero_kernel();

}  // namespace haloflow::kernels
