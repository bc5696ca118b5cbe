#pragma once
// `haloflow replay`: the seed frame built and instantiated once, replayed with every node
// recorded, and what overlapped shown as a trace, a timeline, DOT and the overlap report.

#include <string>
#include <vector>

#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"

namespace haloflow::app {

struct ReplayOptions {
  std::string case_path;
  std::string executor = "auto";  // graph, host, or auto (graph when a GPU is present)
  int frames = 0;                 // recorded frames; 0: the case's (host_frames for host)
  std::string trace_path;         // Chrome trace-event JSON
  std::string timeline_path;      // SVG
  std::string window;             // "first:count" of the timeline; empty: the median frame
  std::string dot_path;           // the plan's DOT (and the CUDA graph's next to it)
  std::string report_path;        // the overlap report as JSON
  bool force = false;             // overwrite existing output files
};

struct ReplayResult {
  Trace trace;
  OverlapReport report;
  std::vector<double> untraced_us;   // per frame, launch to end of wait, recorder off
  std::vector<double> traced_us;     // the same frames' count, recorder on
  std::vector<std::string> written;  // the files written
  std::string text;                  // what the command prints
};

//! The CUDA graph's DOT file written next to the plan's: frame.dot -> frame.cuda.dot.
[[nodiscard]] std::string cuda_dot_path(const std::string& dot_path);

//! Reads the case, warms up, replays `frames` frames untraced then as many recorded (so the
//! recorder's cost is measured), writes the requested files and returns the report.
//! `rank` is the MPI rank, the trace's process. \throws Error for a bad case or option, an
//! output file that exists (without force), or a failed recording.
[[nodiscard]] ReplayResult replay_seed_case(const ReplayOptions& options, int rank);

}  // namespace haloflow::app
