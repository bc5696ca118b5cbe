#pragma once
// The seed case (../shared/seed): a large low-priority flux over the interior while the halo
// goes pack -> device-to-host -> host work (where MPI would be) -> host-to-device -> unpack ->
// boundary flux at high priority. Its settings, read from a case's seed section and the seed's
// keys of its run section.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "haloflow/frame.hpp"
#include "json_fields.hpp"

namespace haloflow::models {

struct SeedCase {
  std::string name = "seed";
  std::size_t cells = 100ULL * 1048576;  // doubles in the whole grid (the seed's ds)
  std::size_t halo_cells = 1048576;      // doubles exchanged per frame (the seed's bs)
  int intensity = 1;                     // sin() applications per cell per flux
  unsigned block_size = 512;
  unsigned copy_blocks = 320;  // grid of the grid-stride pack and unpack kernels
  double host_work_us = 100;   // busy host time standing in for MPI
  int frames = 50;             // measured frames per executor (GPU executors)
  int host_frames = 2;         // measured frames for the host executor
  int warmup_frames = 3;
  std::vector<ExecutorKind> executors{ExecutorKind::graph, ExecutorKind::streams,
                                      ExecutorKind::serial, ExecutorKind::host};
};

//! The fields of a case's "seed" section (`section`, unknown keys included) and the seed's keys
//! of its "run" section, reported into `fields`.
void read_seed_section(input::JsonFields& fields, const nlohmann::json& section, SeedCase& seed);
void read_seed_run(input::JsonFields& fields, const nlohmann::json& run, SeedCase& seed);

//! The seed's run keys (frames, host_frames, warmup_frames, executors).
[[nodiscard]] const std::vector<std::string>& seed_run_keys();

}  // namespace haloflow::models
