#pragma once
//! \file
//! \brief The step loop every model shares: warm-up steps thrown away, then timed steps whose
//! frames are queued on one stream without waiting (a model waits only where it must, e.g. for a
//! norm), timed per step without stopping the queue.

#include <mpi.h>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

#include "run_options.hpp"
#include "stepping_state.hpp"

namespace haloflow::models {

//! \brief Times `plan` as a whole frame, its bulk lane alone and its communication lane alone,
//! `rounds` times each in turn (ranks start each frame together). Collective over
//! `collectives`' communicator, each call bounded; the frames write whatever the plan's kernels
//! write, so the model's fields must be reset afterwards.
[[nodiscard]] OverlapTimes measure_overlap(const FramePlan& plan, ExecutorKind executor, int rounds,
                                           const BoundedCollectives& collectives);

//! \brief Runs `model`'s `run.warmup` steps, resets it, then `run.steps` timed steps. Collective
//! over `communicator` (a barrier before the timed steps; the times are the slowest rank's), each
//! collective bounded by `run.exchange_timeout`. The field is output (RunListener::field) before
//! the first timed step too, so that a series starts from the state the steps start from.
[[nodiscard]] StepTimes run_timed_steps(const RunOptions& run, MPI_Comm communicator,
                                        SteppingState& model);

}  // namespace haloflow::models
