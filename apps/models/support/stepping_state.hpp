#pragma once
//! \file
//! \brief A stepping model's state on one rank as the shared step loop (run_timed_steps) drives
//! it: its fields and frames, built once, stepped frame by frame, and set back or saved between
//! frames. Each model implements it once, in its own folder.

#include <optional>
#include <string>
#include <vector>

#include "haloflow/decomposition.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "haloflow/plan.hpp"

struct CUstream_st;

namespace haloflow::models {

class SteppingState {
 public:
  virtual ~SteppingState() = default;
  SteppingState() = default;
  SteppingState(const SteppingState&) = delete;
  SteppingState& operator=(const SteppingState&) = delete;
  SteppingState(SteppingState&&) = delete;
  SteppingState& operator=(SteppingState&&) = delete;

  //! Patches and launches the frame that begins with step `step` of `steps` (the warm-up's or the
  //! timed run's) on `stream` (null under the host executor), and returns how many steps it took:
  //! 1 to `most`. `most` >= 1 is the steps left before the loop must see the state between two
  //! steps (the end, an output, a checkpoint, a recorded step), so a model that can take several
  //! steps in one frame (jacobi2d's two-step sweep) takes at most that many.
  [[nodiscard]] virtual int step(int step, int steps, int most, CUstream_st* stream) = 0;
  //! Waits for every frame of the model, so that failures of queued frames are reported.
  virtual void settle() = 0;
  //! Sets the fields back to the initial state (after the warm-up).
  virtual void reset() = 0;
  //! Every frame the model launches, for RunListener::frames_built (replay records them all).
  [[nodiscard]] virtual std::vector<Frame*> frames() = 0;
  //! The plan of the model's plain step frame (without optional work such as a norm), for
  //! RunOptions::measure_overlap; null: not measured. Its kernels' parameters as they are.
  [[nodiscard]] virtual const FramePlan* step_plan() const { return nullptr; }
  //! How this rank's halos travel to each neighbour, and why (HaloExchange::routes): the run's
  //! header says it. Empty for a model without an exchange.
  [[nodiscard]] virtual std::vector<HaloRoute> halo_routes() const { return {}; }
  //! What the run's header says of RunOptions::frames_per_launch (frames_per_launch_line); empty:
  //! the model launches a frame at a time whatever it asks.
  [[nodiscard]] virtual std::string launch_line() const { return {}; }
  //! The model's process grid, for RunListener::started.
  [[nodiscard]] virtual Coord3 process_grid() const { return {1, 1, 1}; }

  //! Whether the model has a field to output (output()).
  [[nodiscard]] virtual bool has_field() const { return false; }
  //! Copies the current field (after `done` timed steps) to the host for RunListener::field;
  //! called only when the listener wants fields and has_field(), after settle().
  virtual void output(int /*done*/) {}
  //! Hands RunListener::sample what the model has learnt by step `done` (launched, perhaps not
  //! finished), if it has something to say then; called after every timed step when the listener
  //! wants samples.
  //! By default the model has nothing to say as it goes.
  virtual void sample(int /*done*/) {}

  //! Whether the model can save its whole state and restart from it (save(), restart_at()).
  [[nodiscard]] virtual bool saves_state() const { return false; }
  //! The model's whole state after the steps so far (RunListener::checkpoint); called only when
  //! saves_state(), after settle().
  [[nodiscard]] virtual std::vector<unsigned char> save() { return {}; }
  //! Sets the state saved after `step` timed steps back (RunOptions::restart_state); called only
  //! when saves_state(), before the first timed step.
  virtual void restart_at(int /*step*/, const std::vector<unsigned char>& /*state*/) {}

  //! The steps, counted from step 0, that advanced the state by the end of the run (called after
  //! settle()); the timed steps after them (euler2d's after its end time, which do nothing) are
  //! left out of the per-step times and their count. None: every step advances the state.
  [[nodiscard]] virtual std::optional<int> steps_advanced() const { return std::nullopt; }
};

}  // namespace haloflow::models
