#pragma once
// A trace as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing open.

#include <nlohmann/json_fwd.hpp>

#include "haloflow/trace.hpp"

namespace haloflow::app {

//! One process per MPI rank (pid = rank); one thread per lane track (the interior's bulk lane,
//! then the communication chain; more than one per lane only where its nodes overlapped) and one
//! for the frames themselves; one complete ("X") event per node run, named after the node, with
//! its frame, kind and lane as args. Times in microseconds, the format's unit.
[[nodiscard]] nlohmann::json chrome_trace(const Trace& trace);

}  // namespace haloflow::app
