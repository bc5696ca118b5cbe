#pragma once
//! \file
//! \brief The overlap report: what a trace says about how much communication was hidden.
//!
//! Unlike `hidden_fraction` (three timings of separate runs), these numbers come from one run
//! with every node timed, so they also say *where* the time went: which chain of nodes bounded
//! the frame, and when the GPU had nothing to do.

#include <cstddef>
#include <optional>
#include <vector>

#include "haloflow/trace.hpp"

namespace haloflow {

//! \brief Durations of one node over all recorded frames, in microseconds.
struct NodeStats {
  std::size_t node = 0;  //!< index into Trace::nodes
  int runs = 0;          //!< spans recorded (fewer than the frames: some runs were not seen)
  double median_us = 0;  //!< median duration; 0 (as are the others) when the node never ran
  double min_us = 0;     //!< shortest run
  double p90_us = 0;     //!< 90th percentile (nearest rank): a typical slow run
  double max_us = 0;     //!< longest run
};

//! \brief A stretch inside a frame's work with no kernel or copy running: the GPU sat idle
//! (waiting on a host node, or on launch latency between dependent nodes).
struct IdleGap {
  double start_us = 0;  //!< a GPU node's end, or the start of the frame's work; microseconds
  double end_us = 0;    //!< a GPU node's start, or the end of the frame's work; microseconds
  std::optional<std::size_t> after;   //!< the kernel or copy node that ended at start_us
  std::optional<std::size_t> before;  //!< the kernel or copy node that started at end_us
  //! \brief end_us - start_us: how long the GPU sat idle.
  [[nodiscard]] double duration_us() const { return end_us - start_us; }
};

//! \brief One frame's overlap, in microseconds.
struct FrameOverlap {
  int frame = 0;                //!< index into Trace::frames
  double frame_us = 0;          //!< launch to end of wait
  double work_us = 0;           //!< first node start to last node end
  double interior_us = 0;       //!< bulk lane: its first node start to its last node end
  double communication_us = 0;  //!< communication lane: the same
  //! Time when a node of each lane was running: the intersection of the two lanes' busy
  //! intervals (a lane is busy while any of its nodes runs, host nodes included).
  double concurrent_us = 0;
  //! concurrent / the shorter lane span, in [0, 1]; 0 when a lane did not run.
  double hidden = 0;
  //! The intersection of the two lanes' spans, gaps inside a lane included: what `haloflow run`
  //! computes from three separate runs as interior + communication - frame, here from one.
  //! Never less than concurrent_us: a lane waiting inside its span (a host node waking up)
  //! lowers concurrent_us, though the other lane's work then still adds nothing to the frame.
  double span_overlap_us = 0;
  //! span_overlap_us / the shorter lane span, in [0, 1]: comparable with `haloflow run`.
  double hidden_span = 0;
  //! The dependency chain with the largest sum of measured durations, first node first. It is
  //! what bounds the frame when every node starts as soon as its dependencies end.
  std::vector<std::size_t> critical_path;
  double critical_path_us = 0;  //!< the critical path's summed durations in this frame
  std::vector<IdleGap> gaps;    //!< inside the frame's work, longer than the report's threshold
  double idle_us = 0;           //!< sum of the gaps
};

//! \brief What analyze() found: per-node timings, per-frame overlap, and the medians over the
//! frames that a run reports as its result.
struct OverlapReport {
  std::vector<NodeStats> nodes;      //!< one per trace node, in plan order
  std::vector<FrameOverlap> frames;  //!< one per recorded frame
  int median_frame = 0;   //!< the frame whose frame_us is the median (the lower one of two)
  double min_gap_us = 1;  //!< gaps up to this long were left out
  // Medians over the frames.
  double frame_us = 0;          //!< median of FrameOverlap::frame_us
  double interior_us = 0;       //!< median of FrameOverlap::interior_us
  double communication_us = 0;  //!< median of FrameOverlap::communication_us
  double concurrent_us = 0;     //!< median of FrameOverlap::concurrent_us
  double hidden = 0;            //!< median of FrameOverlap::hidden, in [0, 1]
  double span_overlap_us = 0;   //!< median of FrameOverlap::span_overlap_us
  double hidden_span = 0;       //!< median of FrameOverlap::hidden_span, in [0, 1]
  double critical_path_us = 0;  //!< median of FrameOverlap::critical_path_us
  double idle_us = 0;           //!< median of FrameOverlap::idle_us
};

//! \brief Computes the report of `trace`; idle gaps of `min_gap_us` or less are left out (short
//! ones are the scheduling between back-to-back nodes, not idleness worth a look).
//! \throws Error when a span names a node or frame the trace does not have, or when the nodes'
//! dependencies form a cycle.
[[nodiscard]] OverlapReport analyze(const Trace& trace, double min_gap_us = 1.0);

}  // namespace haloflow
