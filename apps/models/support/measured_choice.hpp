#pragma once
//! \file
//! \brief A setting chosen by measuring, not guessing ("auto"): each candidate's frames built on a
//! state of their own, a few steps timed as the run times its steps, the slowest rank's median
//! step compared, and the first candidate within a tolerance of the fastest taken, the same on
//! every rank. heat3d's steps_per_frame and euler2d's exchange_every use it.

#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include "run_options.hpp"
#include "stepping_state.hpp"

namespace haloflow::models {

//! Steps each candidate is timed over, after two of its frames (whose first launches pay for
//! set-up): whole frames of 1 to 4 steps. With run.frames_per_launch above 1, three launches of
//! that many frames after one (if more steps), so that the loop the run will launch is timed.
inline constexpr int kMeasuredSteps = 12;

//! One candidate of a measured choice: how to build its state, and the steps one of its frames
//! takes (for whole frames in the warm-up and the timed steps).
struct MeasuredCandidate {
  std::function<std::unique_ptr<SteppingState>()> build;
  int frame_steps = 1;
};

//! What measuring found and took.
struct MeasuredChoice {
  std::size_t chosen = 0;  //!< the candidate taken
  //! Per candidate, the median time of a timed step, the slowest rank's; empty when a candidate
  //! could not be timed (its state stopped advancing first: a run that ends within the warm-up),
  //! and the first candidate is taken.
  std::vector<double> seconds_per_step;
  //! The fewest steps any candidate was timed over: kMeasuredSteps, or three launches of
  //! run.frames_per_launch frames where that is more.
  int steps_timed = 0;
  double seconds = 0;  //!< what measuring took on this rank, wall clock, set-up included
};

//! \brief Builds, runs and drops each of `candidates` in turn on `run`'s executor, and takes the
//! first whose median step is within `tolerance` (a fraction) of the fastest, so that the earlier
//! (plainer) candidates win what the measurement cannot tell apart. Collective over
//! `communicator`, its collective bounded by `run.exchange_timeout`; the states must not talk to
//! the run's listener from step(). \throws Error for no candidate, or what building or stepping a
//! candidate throws.
[[nodiscard]] MeasuredChoice choose_by_measuring(const RunOptions& run, MPI_Comm communicator,
                                                 const std::vector<MeasuredCandidate>& candidates,
                                                 double tolerance);

}  // namespace haloflow::models
