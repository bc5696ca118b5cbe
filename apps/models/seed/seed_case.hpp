#pragma once
// The seed case (../shared/seed): a large low-priority flux over the interior while the halo
// goes pack -> device-to-host -> host work (where MPI would be) -> host-to-device -> unpack ->
// boundary flux at high priority. Run by every executor and measured for overlap.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "haloflow/buffer.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

namespace haloflow::app {

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

//! Reads a seed case; \throws Error listing every bad field (pointer, value, what is allowed).
SeedCase parse_seed_case(const nlohmann::json& root, const std::string& source);
SeedCase read_seed_case(const std::filesystem::path& path);

class JsonFields;
//! The fields of a case's "seed" section (`grid`) and the seed's keys of its "run" section,
//! reported into `fields`; unknown keys are the caller's to check.
void read_seed_section(JsonFields& fields, const nlohmann::json& grid, SeedCase& seed);
void read_seed_run(JsonFields& fields, const nlohmann::json& run, SeedCase& seed);

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

SeedFrame build_seed_frame(const SeedCase& seed, Backend backend);

struct ExecutorReport {
  ExecutorKind executor = ExecutorKind::host;
  int frames = 0;
  double frame_us = 0;          // median, full frame (patch + launch + wait)
  double frame_p90_us = 0;      // 90th percentile of the same
  double interior_us = 0;       // median, bulk lane alone
  double communication_us = 0;  // median, communication lane alone
  double hidden = 0;            // fraction of the shorter branch hidden, in [0, 1]
  double patch_us = 0;          // median host time of the step's two kernel patches
  double launch_us = 0;         // median host time of the launch call
  double max_error = 0;         // largest |result - host reference| over sampled cells
};

//! Runs `frames` measured frames (after warm-up) of the full frame, the interior alone and the
//! communication chain alone, interleaved, and checks the grid against a host reference. GPU
//! executors take turns frame by frame; the host executor runs `host_frames` alone.
//! Called after each measured or warm-up frame step with the frames done and the total.
using FrameProgress = std::function<void(long done, long total)>;
std::vector<ExecutorReport> measure_seed(const SeedCase& seed,
                                         const std::vector<ExecutorKind>& executors,
                                         const FrameProgress& progress = {});
ExecutorReport measure_seed(const SeedCase& seed, ExecutorKind executor);

std::string format_reports(const SeedCase& seed, const std::vector<ExecutorReport>& reports);
nlohmann::json reports_to_json(const SeedCase& seed, const std::vector<ExecutorReport>& reports);

}  // namespace haloflow::app
