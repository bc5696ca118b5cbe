#pragma once
// `haloflow replay --report`: what the command printed, as JSON (json/schema/replay.schema.json):
// the summary across the ranks and each rank's overlap report, with what recording cost.

#include <nlohmann/json.hpp>

#include <string>

#include "replay.hpp"

namespace haloflow::cases {

//! The report's layout: 1 is the first that says so (format_version, summary, tracing's noise).
inline constexpr int kReplayReportFormatVersion = 1;

//! The report of `result` (rank 0's: its ranks and reports) of the case `case_path`.
[[nodiscard]] nlohmann::json replay_report_json(const std::string& case_path,
                                                const ReplayResult& result);

}  // namespace haloflow::cases
