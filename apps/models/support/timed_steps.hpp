#pragma once
//! \file
//! \brief The step loop every model shares: warm-up steps thrown away, then timed steps whose
//! frames are queued on one stream without waiting (a model waits only where it must, e.g. for a
//! norm), timed per step without stopping the queue.

#include <mpi.h>

#include <functional>
#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

#include "run_options.hpp"

struct CUstream_st;

namespace haloflow::models {

struct StepHooks {
  //! Patches and launches the frame that begins with step `step` of `steps` (the warm-up's or the
  //! timed run's) on `stream` (null under the host executor), and returns how many steps it took:
  //! 1 to `most`. `most` >= 1 is the steps left before the loop must see the state between two
  //! steps (the end, an output, a checkpoint, a recorded step), so a model that can take several
  //! steps in one frame (jacobi2d's two-step sweep) takes at most that many.
  std::function<int(int step, int steps, int most, CUstream_st* stream)> step;
  //! Waits for every frame of the model, so that failures of queued frames are reported.
  std::function<void()> settle;
  //! Sets the fields back to the initial state (after the warm-up).
  std::function<void()> reset;
  //! Copies the current field (after `done` timed steps) to the host for RunOptions::output;
  //! called only when that is set, after settle().
  std::function<void(int done)> output;
  //! Hands RunOptions::sample what the model has learnt by step `done` (launched, perhaps not
  //! finished), if it has something to say then; called after every timed step when that is set.
  //! Null: the model has nothing to say as it goes.
  std::function<void(int done)> sample;
  //! The model's process grid, for RunOptions::started.
  Coord3 process_grid{1, 1, 1};
  //! The model's whole state after the steps so far, and setting it back (RunOptions::checkpoint,
  //! restart_state); called only when those are used, after settle().
  std::function<std::vector<unsigned char>()> save;
  std::function<void(const std::vector<unsigned char>&)> load;
  //! The plan of the model's plain step frame (without optional work such as a norm), for
  //! RunOptions::measure_overlap; null: not measured. Its kernels' parameters as they are.
  const FramePlan* step_plan = nullptr;
  //! Every frame the model launches, for RunOptions::observer (replay records them all).
  std::vector<Frame*> frames;
  //! The steps, counted from step 0, that advanced the state by the end of the run (called after
  //! settle()); the timed steps after them (euler2d's after its end time, which do nothing) are
  //! left out of the per-step times and their count. Null: every step advances the state.
  std::function<int()> steps_advanced;
};

//! \brief Times `plan` as a whole frame, its bulk lane alone and its communication lane alone,
//! `rounds` times each in turn (ranks start each frame together). Collective over
//! `collectives`' communicator, each call bounded; the frames write whatever the plan's kernels
//! write, so the model's fields must be reset afterwards.
[[nodiscard]] OverlapTimes measure_overlap(const FramePlan& plan, ExecutorKind executor, int rounds,
                                           const BoundedCollectives& collectives);

//! \brief Runs `run.warmup` steps, resets, then `run.steps` timed steps. Collective over
//! `communicator` (a barrier before the timed steps; the times are the slowest rank's), each
//! collective bounded by `run.exchange_timeout`. The field is output (RunOptions::output) before
//! the first timed step too, so that a series starts from the state the steps start from.
[[nodiscard]] StepTimes run_timed_steps(const RunOptions& run, MPI_Comm communicator,
                                        const StepHooks& hooks);

}  // namespace haloflow::models
