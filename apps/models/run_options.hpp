#pragma once
//! \file
//! \brief What every model run shares: how it runs (executor, steps, warm-up) and how long its
//! steps took.

#include <chrono>

#include "haloflow/frame.hpp"

namespace haloflow::models {

struct RunOptions {
  ExecutorKind executor = ExecutorKind::graph;
  int steps = 100;
  //! Steps run first and thrown away (the fields are set back to the initial state), so that the
  //! timed steps do not pay for first-launch costs; the result is that of `steps` steps.
  int warmup = 0;
  //! Rank 0 receives the global field at the end (MPI_Gatherv of the owned cells).
  bool gather = false;
  //! A neighbour that has not answered the halo exchange after this long ends the run.
  std::chrono::duration<double> exchange_timeout = std::chrono::seconds(60);
};

//! \brief The timed steps, each figure the slowest rank's.
struct StepTimes {
  int steps = 0;
  double median_step_s = 0;  //!< median of the per-step intervals
  double total_s = 0;        //!< wall clock from the first launch to the last step's end
};

}  // namespace haloflow::models
