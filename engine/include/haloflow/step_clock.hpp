#pragma once
//! \file
//! \brief Per-step timing that does not stop the pipeline: on the GPU executors, one CUDA event
//! per step boundary on the stream the frames are launched on (frames are queued without waiting
//! for each other); on the host executor, the wall clock.

#include <memory>
#include <vector>

#include "haloflow/buffer.hpp"

struct CUstream_st;  // cudaStream_t, declared so this header needs no CUDA

namespace haloflow::models {

class StepClock {
 public:
  //! Marks at most the first 4096 steps (their median is the figure reported).
  //! \throws Error for a failed CUDA call.
  StepClock(Backend backend, int steps);
  ~StepClock();
  StepClock(const StepClock&) = delete;
  StepClock& operator=(const StepClock&) = delete;
  StepClock(StepClock&&) = delete;
  StepClock& operator=(StepClock&&) = delete;

  //! The stream every frame of the run is launched on (null under the host executor), so that
  //! frames run in launch order whichever of them is launched.
  [[nodiscard]] CUstream_st* stream() const;
  //! The boundary before step `step` (`step` == steps: after the last); later marks are ignored.
  void mark(int step);
  //! Waits for everything launched on the stream.
  void synchronize();
  //! Seconds between consecutive marks. \pre synchronize() after the last mark.
  [[nodiscard]] std::vector<double> step_seconds() const;

  //! Notes that `done` steps are launched: a marker on the stream (no timing, no wait), so that
  //! finished() can later say how far the device got. Waits only when many markers are pending
  //! (the host far ahead of the device).
  void note_launched(int done);
  //! The largest `done` noted whose steps have all finished (0 before any); never blocks. On the
  //! host executor a step has finished when it returns, so the latest noted.
  [[nodiscard]] int finished();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace haloflow::models
