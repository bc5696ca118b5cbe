#pragma once
//! \file
//! \brief Files a user opens to see what overlapped, from the traces a FrameRecorder returns (one
//! per rank): Chrome trace-event JSON (Perfetto, chrome://tracing) and an SVG timeline that
//! haloflow draws itself, so it is there on any machine and can go into a report as it is.
//!
//! Several ranks' traces are drawn on one time axis as given: align their clocks first (shift
//! each trace's times by its rank's offset) if they were recorded on different clocks.

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <vector>

#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"

namespace haloflow {

//! \brief Which recorded frames a timeline shows: `count` frames from frame `first`.
struct TimelineWindow {
  int first = 0;  //!< the first frame shown (an index into Trace::frames)
  int count = 1;  //!< how many frames, at least 1
};

//! \brief Writes `ranks` as one Chrome trace: a process per trace (pid = its rank, sorted by
//! rank); per process a thread for the frames and one per lane track (the interior's bulk lane,
//! then the communication chain; more than one per lane only where its nodes overlapped); a
//! complete ("X") event per node run, named after the node, with its frame, kind, lane (and plan,
//! for a recording of several frames) as args; and a flow arrow from each run of a node's
//! dependency to the node's run in the same frame. Times in microseconds, the format's unit.
void write_chrome_trace(std::ostream& out, const std::vector<Trace>& ranks);
//! \brief The same into the file `path`. \throws Error naming the file when it cannot be written.
void write_chrome_trace(const std::filesystem::path& path, const std::vector<Trace>& ranks);

//! \brief Writes `ranks` as an SVG timeline: per rank one row for the interior branch (bulk lane)
//! and one for the communication chain, each node run a box coloured by kind and labelled with
//! its name (inside when it fits, else on a line below where one has room, else left out: its
//! tooltip names it), on a GPU executor the GPU's idle gaps under them (from analyze() of each
//! trace), frame boundaries, and a time axis in microseconds from the window's start. Labels are
//! measured at least as wide as DejaVu Sans draws them, so none overlaps another in the usual
//! sans-serif fonts; the title and subtitles are cut to the width. `window`: the frames shown; by
//! default the first trace's median frame.
//! \throws Error when a trace holds fewer frames than the window needs (or none at all).
void write_svg_timeline(std::ostream& out, const std::vector<Trace>& ranks,
                        std::optional<TimelineWindow> window = std::nullopt);
//! \brief The same into the file `path`. \throws Error as above, or naming the file when it
//! cannot be written.
void write_svg_timeline(const std::filesystem::path& path, const std::vector<Trace>& ranks,
                        std::optional<TimelineWindow> window = std::nullopt);

}  // namespace haloflow
