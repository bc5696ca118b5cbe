#pragma once
// `haloflow replay`: any case's frames (all of a model's frames) built once and stepped on every
// rank: a few settling frames, then untraced, recorded (every node timed) and untraced again, so
// that what recording costs is measured against frames on either side; rank 0 says how far it
// is, gathers the ranks' recordings on its clock and shows what overlapped: a summary across the
// ranks (each rank's tables with --per-frame), a merged Chrome trace, an SVG timeline with a row
// per rank and lane, a DOT file per frame (and per CUDA graph), the overlap report as JSON.

#include <string>
#include <vector>

#include "haloflow/mpi_session.hpp"
#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"
#include "haloflow/trace_writers.hpp"
#include "rank_traces.hpp"

namespace haloflow::cases {

struct ReplayOptions {
  std::string case_path;
  std::string executor = "auto";  //!< graph, host, or auto (graph when a GPU is present)
  int frames = 0;                 //!< recorded frames (steps); 0: the case's
  std::string trace_path;         //!< Chrome trace-event JSON
  std::string timeline_path;      //!< SVG
  std::string window;             //!< "first:count" of the timeline; empty: the median frame
  std::string dot_dir;            //!< a directory: <frame>.dot per frame (and <frame>.cuda.dot)
  std::string report_path;        //!< the overlap report as JSON
  bool force = false;             //!< overwrite existing output files
  bool per_frame = false;         //!< also print each rank's node and frame tables
  std::string handoff;            //!< the exchange's handoff; empty: the case's
  std::string transport;          //!< the exchange's transport; empty: the case's
  std::vector<std::string> sets;  //!< each --set PATH=VALUE, laid on the case (case_settings.hpp)
};

//! What a replay found, on rank 0 (other ranks: `ranks` is empty).
struct ReplayResult {
  std::vector<RankRecording> ranks;    //!< each rank's recording, on rank 0's clock
  std::vector<OverlapReport> reports;  //!< analyze() of each rank's trace
  int frames = 0;                      //!< recorded frames per rank (as many ran untraced)
  int settling = 0;                    //!< frames run before any was timed
  int warmup = 0;                      //!< the model's warm-up steps before them
  std::vector<std::string> written;    //!< the files written
  std::string text;                    //!< what the command prints
};

//! The replay's frames in order: `settling` frames untimed, `before` untraced, `recorded`
//! traced, `after` untraced (as many untraced in all as traced).
struct ReplayPhases {
  int settling = 0;
  int before = 0;
  int recorded = 0;
  int after = 0;
  [[nodiscard]] int total() const { return settling + before + recorded + after; }
  [[nodiscard]] bool traced(int frame) const {
    return frame >= settling + before && frame < settling + before + recorded;
  }
};
//! The phases of a replay that records `frames` frames: min(5, frames) settling frames (MPI
//! connects on a first message, pages are touched), half the untraced frames before the
//! recorded ones and the rest after them, so that a machine slowing or speeding up shows as
//! noise rather than as a cost.
[[nodiscard]] ReplayPhases replay_phases(int frames);

//! Reads --window's "first:count" (e.g. "10:3"), checked against the `frames` recorded.
//! \throws Error naming the text and what is allowed.
[[nodiscard]] TimelineWindow parse_window(const std::string& text, int frames);

//! Replays the case on every rank of MPI_COMM_WORLD (replay_phases: the recorder's cost is
//! measured against the untraced frames); rank 0 prints progress, writes the requested files.
//! \throws CollectiveError for a bad case or option, or an output file that exists (without
//! force); Error for a failed recording.
[[nodiscard]] ReplayResult replay_case(const ReplayOptions& options, const MpiSession& mpi);

}  // namespace haloflow::cases
