#pragma once
// The seed frame: its plan and the memory it runs on.

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"
#include "seed_case.hpp"

namespace haloflow::models {

//! The seed frame with the memory it runs on. Holds its buffers, so keep it alive while any
//! frame built from `plan` runs.
struct SeedFrame {
  Buffer data;         // device: the grid, halo first, then the interior
  Buffer halo_device;  // device: packed halo
  Buffer halo_host;    // pinned host: what MPI would send and receive
  FramePlan plan;
  KernelNode<std::size_t, double*, int> interior;
  KernelNode<std::size_t, double*, int> boundary;
};

//! The grid filled with seed_initial_value(), and the plan of the seed answer's frame.
[[nodiscard]] SeedFrame build_seed_frame(const SeedCase& seed, Backend backend);

//! The value cell `cell` starts from (what the host reference starts from too).
[[nodiscard]] double seed_initial_value(std::size_t cell);

//! Patches the two fluxes as a solver's step would (dt, time, swapped buffers would go here).
void patch_seed_fluxes(const SeedCase& seed, const SeedFrame& seed_frame, Frame& frame);

}  // namespace haloflow::models
