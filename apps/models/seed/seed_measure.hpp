#pragma once
// The seed's measurement: every executor's frame, its interior alone and its communication alone,
// frame by frame, with the grid checked against a host reference; and its views (the table the
// command prints, the JSON results.json holds).

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "haloflow/frame.hpp"
#include "run_options.hpp"
#include "seed_case.hpp"

namespace haloflow::models {

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
//! `listener` is shown the first executor's full frame before any frame runs (--dot).
using FrameProgress = std::function<void(long done, long total)>;
std::vector<ExecutorReport> measure_seed(const SeedCase& seed,
                                         const std::vector<ExecutorKind>& executors,
                                         const FrameProgress& progress = {},
                                         const FrameOptions& options = {},
                                         RunListener* listener = nullptr);
ExecutorReport measure_seed(const SeedCase& seed, ExecutorKind executor,
                            const FrameOptions& options = {});

std::string format_reports(const SeedCase& seed, const std::vector<ExecutorReport>& reports);
nlohmann::json reports_to_json(const SeedCase& seed, const std::vector<ExecutorReport>& reports);

}  // namespace haloflow::models
