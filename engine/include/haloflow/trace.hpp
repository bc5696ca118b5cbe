#pragma once
//! \file
//! \brief What a traced replay recorded: when each plan node ran, frame by frame, as plain data.
//!
//! Kept free of CUDA and of any clock so that the overlap report and every output (Chrome
//! trace, SVG timeline) can be computed and tested on hand-made spans, without a GPU.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "haloflow/plan.hpp"

namespace haloflow {

//! \brief A plan node as the trace needs it: its name, lane, kind and what it runs after (by
//! index into Trace::nodes).
struct TraceNode {
  std::string name;                  //!< the plan node's name
  Lane lane = Lane::bulk;            //!< its lane: bulk spans are the interior, the rest comms
  NodeKind kind = NodeKind::kernel;  //!< its kind: only kernels and copies keep the GPU busy
  std::vector<std::size_t> after;    //!< its resolved dependencies, indices into Trace::nodes
  //! The plan it belongs to: a recording of several frames (a model's step frame and its norm
  //! frame) holds the nodes of each, one plan after another.
  std::string plan;
};

//! \brief One run of one node, in microseconds from the start of the first recorded frame.
struct NodeSpan {
  std::size_t node = 0;  //!< index into Trace::nodes (the plan's node order)
  int frame = 0;         //!< index into Trace::frames
  double start_us = 0;   //!< when the node started, microseconds
  double end_us = 0;     //!< when it ended, microseconds; >= start_us
  //! \brief end_us - start_us.
  [[nodiscard]] double duration_us() const { return end_us - start_us; }
};

//! \brief One recorded frame: from just before its launch to the return of its wait, on the
//! same clock as its spans, so every span of the frame lies inside it.
struct FrameSpan {
  int frame = 0;        //!< its index in Trace::frames
  double start_us = 0;  //!< just before the launch, microseconds
  double end_us = 0;    //!< when the wait returned, microseconds
  //! \brief end_us - start_us: the frame time as the caller saw it.
  [[nodiscard]] double duration_us() const { return end_us - start_us; }
};

//! \brief A recording of consecutive frames on one executor: of one plan, or of the several
//! frames a model launches (each recorded frame, then, is one step of the model).
struct Trace {
  std::string plan;      //!< the frame plan's name (several: their names, joined by ", ")
  std::string executor;  //!< "graph" or "host"
  std::string clock;     //!< what measured the spans, for readers of the outputs
  int rank = 0;          //!< MPI rank that recorded it (one process per rank in the outputs)
  std::vector<TraceNode> nodes;   //!< the plan's nodes, in plan order (see trace_nodes)
  std::vector<FrameSpan> frames;  //!< in order; frames[i].frame == i
  std::vector<NodeSpan> spans;    //!< sorted by start time
  //! The reading of the recorder's clock (FrameRecorder::clock_ns) that the times count from,
  //! nanoseconds: what aligns the traces of several ranks.
  std::int64_t origin_ns = 0;
};

//! \brief Adds `us` microseconds to every time of `trace` (its frames and spans), e.g. to put
//! several ranks' traces on one rank's clock.
void shift(Trace& trace, double us);

//! \brief The plan's nodes as the trace describes them (TraceNode::plan: the plan's name).
//! \pre the plan is valid.
[[nodiscard]] std::vector<TraceNode> trace_nodes(const FramePlan& plan);

//! \brief For each span of `trace`, the track it is drawn on within its lane (0, 1, ...): spans
//! of one lane that overlap go to different tracks, the fewest needed. One track per lane is
//! the usual case (the seed's chain runs one node at a time); several packs of a halo exchange
//! can run at once, and Chrome's trace format would draw overlapping events of one track as
//! calls nested in each other.
[[nodiscard]] std::vector<int> lane_tracks(const Trace& trace);

}  // namespace haloflow
