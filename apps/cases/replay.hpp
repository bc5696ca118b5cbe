#pragma once
// `haloflow replay`: any case's frames (all of a model's frames) built once and stepped, first
// untraced then with every node recorded, on every rank; rank 0 gathers the ranks' recordings on
// its clock and shows what overlapped: a merged Chrome trace, an SVG timeline with a row per rank
// and lane, the plans' DOT (and the CUDA graphs'), and the overlap report of each rank.

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
  std::string dot_path;           //!< the plans' DOT (and the CUDA graphs' next to it)
  std::string report_path;        //!< the overlap report as JSON
  bool force = false;             //!< overwrite existing output files
  std::string handoff;            //!< the exchange's handoff; empty: the case's
  std::string transport;          //!< the exchange's transport; empty: the case's
  std::vector<std::string> sets;  //!< each --set PATH=VALUE, laid on the case (case_settings.hpp)
};

//! What a replay found, on rank 0 (other ranks: `ranks` is empty).
struct ReplayResult {
  std::vector<RankRecording> ranks;    //!< each rank's recording, on rank 0's clock
  std::vector<OverlapReport> reports;  //!< analyze() of each rank's trace
  int frames = 0;                      //!< recorded frames per rank (as many ran untraced)
  int warmup = 0;                      //!< warm-up steps before them
  std::vector<std::string> written;    //!< the files written
  std::string text;                    //!< what the command prints
};

//! The CUDA graph's DOT file of the `index`-th frame, next to the plans': frame.dot ->
//! frame.cuda.dot (the first frame), frame.1.cuda.dot, ...
[[nodiscard]] std::string cuda_dot_path(const std::string& dot_path, std::size_t index = 0);

//! Reads --window's "first:count" (e.g. "10:3"), checked against the `frames` recorded.
//! \throws Error naming the text and what is allowed.
[[nodiscard]] TimelineWindow parse_window(const std::string& text, int frames);

//! Replays the case on every rank of MPI_COMM_WORLD: warm-up, `frames` steps untraced, as many
//! recorded (so the recorder's cost is measured); rank 0 writes the requested files.
//! \throws CollectiveError for a bad case or option, or an output file that exists (without
//! force); Error for a failed recording.
[[nodiscard]] ReplayResult replay_case(const ReplayOptions& options, const MpiSession& mpi);

}  // namespace haloflow::cases
