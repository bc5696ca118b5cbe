#pragma once
// The overlap report as the haloflow command prints it and as JSON (--report).

#include <nlohmann/json_fwd.hpp>

#include <string>

#include "haloflow/trace.hpp"
#include "haloflow/trace_report.hpp"

namespace haloflow::cases {

//! Whether `trace` comes from the host executor: its "GPU idle" figures mean nothing there (a
//! kernel node runs on the CPU), so neither the console nor the report shows them.
[[nodiscard]] bool host_run(const Trace& trace);

//! The node table (median and spread of each node's duration), one line per frame (spans,
//! concurrent time, hidden fraction, critical path, GPU idle time), and the median frame's
//! critical path and idle gaps by node name.
[[nodiscard]] std::string format_overlap(const Trace& trace, const OverlapReport& report);

//! Everything format_overlap prints, every frame's critical path and gaps included; times in
//! microseconds, gap times from the frame's start.
[[nodiscard]] nlohmann::json overlap_to_json(const Trace& trace, const OverlapReport& report);

}  // namespace haloflow::cases
