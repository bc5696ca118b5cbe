#pragma once
// The seed answer's kernels (../shared/seed): a flux that applies sin() `intensity` times per
// cell, and the grid-stride copies that pack and unpack the halo.

#include <cstddef>

#include "haloflow/kernel.hpp"

namespace haloflow::kernels {

//! flux(cells, data, intensity): data[i] = sin^intensity(data[i]); one thread per cell.
KernelRef<std::size_t, double*, int> seed_flux();
//! copy(cells, from, to): to[i] = from[i]; grid-stride, for the pack and unpack of the halo.
KernelRef<std::size_t, const double*, double*> seed_copy();

}  // namespace haloflow::kernels
