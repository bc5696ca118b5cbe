#pragma once
// The timeline picture: haloflow draws it itself (plain SVG, no library), so it is there on any
// machine, Nsight or not, and can be put in a report as it is.

#include <string>

#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"

namespace haloflow::app {

//! Which recorded frames a timeline shows: `count` frames from frame `first`.
struct TimelineWindow {
  int first = 0;
  int count = 1;
};

//! Reads --window's "first:count" (e.g. "10:3"), checked against the `frames` recorded.
//! \throws Error naming the text and what is allowed.
[[nodiscard]] TimelineWindow parse_window(const std::string& text, int frames);

//! One row for the interior branch (bulk lane) and one for the communication chain, each node
//! run a box coloured by kind and labelled with its name (inside when it fits, else just
//! below), the GPU's idle gaps under them, frame boundaries, and a time axis in microseconds
//! from the window's start. \pre `report` is analyze(trace); the window lies inside the trace.
[[nodiscard]] std::string timeline_svg(const Trace& trace, const OverlapReport& report,
                                       TimelineWindow window);

}  // namespace haloflow::app
