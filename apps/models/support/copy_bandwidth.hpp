#pragma once
//! \file
//! \brief The machine's copy rates, measured by a copy kernel: what a run's achieved bandwidth is
//! a fraction of and what its floors are taken at (bandwidth_floors.hpp). Only a GPU has them.

#include "bandwidth_floors.hpp"

namespace haloflow::models {

//! \brief The copy kernel's rates on the current device: bytes read + written a second over two
//! 256 MiB buffers (DRAM) and over two buffers of a quarter of the L2 each (L2-resident), each a
//! graph frame of consecutive copies back and forth, the fastest of several launches; and the
//! L2's size. All 0 without a GPU. Takes a few tens of milliseconds.
//! \throws Error when the device cannot allocate the buffers or a copy fails.
[[nodiscard]] CopyRates measure_copy_rates();

//! \brief measure_copy_rates().dram_Bps alone (the L2 not measured); 0 without a GPU.
[[nodiscard]] double measure_copy_bandwidth();

}  // namespace haloflow::models
