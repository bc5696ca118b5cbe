#pragma once
//! \file
//! \brief Recording when every node of a frame ran, frame after frame (`haloflow replay`).
//!
//! Frames pay for recording only while a recorder records: before start() and after stop()
//! nothing is timed, no CUPTI activity is enabled and no CUPTI callback is subscribed.

#include <cstdint>
#include <memory>
#include <vector>

#include "haloflow/frame.hpp"
#include "haloflow/trace.hpp"

namespace haloflow {

//! \brief Records when each node of a frame ran (or of each of several frames: a model's step
//! frame and its norm frame), over the frames run between start() and stop(), and hands the
//! recording back as a Trace.
class FrameRecorder {
 public:
  //! \brief Prepares to record frames of `executor` on MPI rank `rank`: wall-clock spans of every
  //! node for `host`; CUPTI for `graph` (kernel and copy activity records, which carry the graph
  //! node's id, and host nodes time-stamped on CUPTI's clock).
  //!
  //! For `graph`, construct the recorder *before* the Frame: the executable graph's nodes are
  //! clones of the lowered ones, and CUPTI names the clones only while the graph is
  //! instantiated. Until attach() it holds a subscription to that one callback, with kernel and
  //! copy activity on so that CUPTI sees the graph instantiated as it will trace it; attach()
  //! drops both, so frames run between attach() and start() are not traced at all.
  //! \throws Error for the streams and serial executors, for `graph` without a CUDA device, or
  //! when CUPTI is held by another tool (Nsight Systems, Nsight Compute).
  FrameRecorder(ExecutorKind executor, int rank);
  //! \pre stop() was called, or the attached frame is already destroyed (construct the
  //! recorder first and it is): a recording frame's host work reports to the recorder.
  ~FrameRecorder();
  FrameRecorder(const FrameRecorder&) = delete;
  FrameRecorder& operator=(const FrameRecorder&) = delete;
  FrameRecorder(FrameRecorder&&) = delete;  // CUPTI's callbacks hold its address
  FrameRecorder& operator=(FrameRecorder&&) = delete;

  //! \brief Learns the frame's nodes and drops the instantiation callback. Once, before start().
  //! \throws Error when `frame` runs on another executor than the recorder's.
  void attach(Frame& frame);
  //! \brief The same for several frames, all built before this call: the trace holds the nodes of
  //! each, one frame's after another's (TraceNode::plan says whose), and a recorded frame is
  //! whatever ran between frame_begins() and frame_ends() (one step of a model, say). Once.
  //! \throws Error for no frame, or one on another executor than the recorder's.
  void attach(const std::vector<Frame*>& frames);
  //! \brief Starts recording the frames that follow.
  void start();
  //! \brief Marks the start of a recorded frame: call it just before the frame's first patch
  //! or its launch (of several frames: before the first of them). \throws Error when not recording,
  //! or inside a frame already.
  void frame_begins();
  //! \brief Marks the end of the frame begun last: call it when its wait (every wait) returned.
  //! \throws Error without a frame_begins() before it.
  void frame_ends();
  //! \brief Stops recording and returns the trace, in microseconds from the first frame's
  //! start. \throws Error when the record is incomplete (CUPTI dropped records, or none of
  //! its records came from this frame's graph).
  [[nodiscard]] Trace stop();
  //! \brief The recorder's clock now, nanoseconds (Trace::origin_ns is a reading of it): what
  //! ranks compare to put their traces on one clock.
  [[nodiscard]] std::uint64_t clock_ns();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace haloflow
