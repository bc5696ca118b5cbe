#pragma once
// What kind of run a model makes, said once by the model (Model::run_shape()): the case reader,
// the command-line flags, `haloflow run` and its outputs read it instead of asking which model
// they hold.

#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"

namespace haloflow::models {

struct RunShape {
  //! Whether the model steps in time: it reads the stepping keys of the run section (steps,
  //! warmup, vtk, output_every, png, checkpoint_every; the case reader's RunSection) rather than
  //! keys of its own, says its header and per-step lines as it runs, and leaves a report file,
  //! checkpoints and a field to dump. False: it measures frames (the seed).
  bool steps_in_time = true;
  //! The run-section keys the model reads itself (the seed: frames, host_frames, ...).
  std::vector<std::string> own_run_keys;
  //! The run-section keys `--steps` and `--frames` set: {"steps"}; the seed counts frames.
  std::vector<std::string> length_keys{"steps"};
  //! The default of run.steps (for a model that steps in time).
  int default_steps = 100;
  //! The default of run.executor: "auto", or "all" (the seed compares every executor).
  std::string default_executor = "auto";
  //! The samples per axis of the field the model writes (VTK, PNG; one layer along z for a 2D
  //! field), its section read; {0, 0, 0}: it writes none (the seed).
  Index3 field_samples{0, 0, 0};

  //! Whether the model writes a field (VTK, PNG).
  [[nodiscard]] bool writes_fields() const {
    return field_samples[0] > 0 && field_samples[1] > 0 && field_samples[2] > 0;
  }
};

}  // namespace haloflow::models
