#pragma once
//! \file
//! \brief Per-step timing that does not stop the pipeline: on the GPU executors, one CUDA event
//! per step boundary on the stream the frames are launched on (frames are queued without waiting
//! for each other); on the host executor, the wall clock.

#include <mpi.h>

#include <chrono>
#include <memory>
#include <vector>

#include "haloflow/buffer.hpp"

struct CUstream_st;  // cudaStream_t, declared so this header needs no CUDA

namespace haloflow {

//! \brief Times a run step by step while its frames stay queued: a solver launches each step's
//! frames on stream(), marks each step boundary, and reads the per-step times at the end.
class StepClock {
 public:
  //! \brief A clock for `steps` steps on `backend` (the host executor's Backend::cpu: the wall
  //! clock); marks at most the first 4096 steps (their median is the figure reported).
  //! \throws Error for a failed CUDA call.
  StepClock(Backend backend, int steps);
  //! \brief Destroys the stream and the events (errors are not thrown from here).
  ~StepClock();
  StepClock(const StepClock&) = delete;
  StepClock& operator=(const StepClock&) = delete;
  StepClock(StepClock&&) = delete;
  StepClock& operator=(StepClock&&) = delete;

  //! \brief The stream every frame of the run is launched on (null under the host executor), so
  //! that frames run in launch order whichever of them is launched.
  [[nodiscard]] CUstream_st* stream() const;
  //! \brief The boundary before step `step` (`step` == steps: after the last); later marks are
  //! ignored. A frame that takes several steps marks only the boundary before its first.
  void mark(int step);
  //! \brief Waits for everything launched on the stream.
  void synchronize();
  //! \brief Seconds of each step up to the last mark: between consecutive marks, each step of a
  //! frame that took k steps (marks k apart) a k-th of its time. \pre synchronize() after the last
  //! mark; step 0 marked.
  [[nodiscard]] std::vector<double> step_seconds() const;

  //! \brief Notes that `done` steps are launched: a marker on the stream (no timing, no wait), so
  //! that finished() can later say how far the device got. Waits only when many markers are pending
  //! (the host far ahead of the device).
  void note_launched(int done);
  //! \brief The largest `done` noted whose steps have all finished (0 before any); never blocks. On
  //! the host executor a step has finished when it returns, so the latest noted.
  [[nodiscard]] int finished();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

//! \brief What a run's steps took, from StepClock::step_seconds(): percentiles of the intervals
//! between consecutive steps' ends, and the wall clock of the whole run.
struct StepTimes {
  int steps = 0;             //!< the steps timed
  double median_step_s = 0;  //!< median of the per-step intervals
  double min_step_s = 0;     //!< fastest step
  double p10_step_s = 0;     //!< 10th percentile (nearest rank)
  double p90_step_s = 0;     //!< 90th percentile
  double p99_step_s = 0;     //!< 99th percentile
  double max_step_s = 0;     //!< slowest step
  double total_s = 0;        //!< wall clock from the first launch to the last step's end
};

//! \brief The percentiles of `step_seconds` (see haloflow::percentile), with `steps` and `total_s`
//! as given.
[[nodiscard]] StepTimes summarize_steps(const std::vector<double>& step_seconds, int steps,
                                        double total_s);

//! \brief Each figure of `mine` replaced by its largest value over the ranks of `communicator`:
//! the slowest rank's, which is what bounds a bulk-synchronous run. Collective, bounded by
//! `timeout` (BoundedCollectives). \throws Error for a failed MPI call or a rank that does not
//! reach the reduction in time.
[[nodiscard]] StepTimes slowest_rank(
    const StepTimes& mine, MPI_Comm communicator,
    std::chrono::duration<double> timeout = std::chrono::seconds(60));

}  // namespace haloflow
