#include "replay_report.hpp"

#include "haloflow/version.hpp"
#include "overlap_output.hpp"
#include "replay_summary.hpp"

namespace haloflow::cases {
namespace {

nlohmann::json spread_json(const std::vector<double>& values) {
  const Spread s = spread_of(values);
  return {{"min", s.min}, {"avg", s.avg}, {"max", s.max}};
}

// What recording cost: the numbers, and the cost itself only where it exceeds the noise (null,
// with the reason, where the console says "within noise").
nlohmann::json cost_json(const RecordingCost& cost) {
  nlohmann::json json = {{"untraced_frame_us", cost.untraced_us},
                         {"traced_frame_us", cost.traced_us},
                         {"untraced_before_us", cost.before_us},
                         {"untraced_after_us", cost.after_us},
                         {"noise_us", cost.noise_us},
                         {"within_noise", !cost.measured()},
                         {"overhead_us", nullptr},
                         {"overhead_fraction", nullptr},
                         {"note", nullptr}};
  if (cost.measured()) {
    json["overhead_us"] = cost.us();
    json["overhead_fraction"] = cost.fraction();
  } else {
    json["note"] =
        "within noise: traced and untraced medians differ by no more than the untraced frames "
        "before and after the traced ones, or than the medians' 95 % notches";
  }
  return json;
}

}  // namespace

nlohmann::json replay_report_json(const std::string& case_path, const ReplayResult& result) {
  const bool host = host_run(result.ranks.front().trace);
  std::vector<double> frame, interior, communication, concurrent, hidden, hidden_spans, critical,
      idle, untraced, traced;
  nlohmann::json ranks = nlohmann::json::array();
  for (std::size_t r = 0; r < result.ranks.size(); ++r) {
    const RankRecording& recording = result.ranks[r];
    const OverlapReport& report = result.reports.at(r);
    frame.push_back(report.frame_us);
    interior.push_back(report.interior_us);
    communication.push_back(report.communication_us);
    concurrent.push_back(report.concurrent_us);
    hidden.push_back(report.hidden);
    hidden_spans.push_back(report.hidden_span);
    critical.push_back(report.critical_path_us);
    idle.push_back(report.idle_us);
    untraced.push_back(recording.untraced_frame_us);
    traced.push_back(recording.traced_frame_us);
    nlohmann::json json = overlap_to_json(recording.trace, report);
    json["tracing"] = cost_json(recording_cost(recording));
    json["clock_offset_ns"] = recording.clock_offset_ns;
    ranks.push_back(std::move(json));
  }
  const nlohmann::json summary = {
      {"ranks", result.ranks.size()},
      {"frame_us", spread_json(frame)},
      {"interior_us", spread_json(interior)},
      {"communication_us", spread_json(communication)},
      {"concurrent_us", spread_json(concurrent)},
      {"hidden_fraction", spread_json(hidden)},
      {"hidden_fraction_spans", spread_json(hidden_spans)},
      {"critical_path_us", spread_json(critical)},
      {"gpu_idle_us", host ? nlohmann::json(nullptr) : spread_json(idle)},
      {"untraced_frame_us", spread_json(untraced)},
      {"traced_frame_us", spread_json(traced)}};
  return {{"format_version", kReplayReportFormatVersion},
          {"case", case_path},
          {"executor", result.ranks.front().trace.executor},
          {"frames_recorded", result.frames},
          {"settling_frames", result.settling},
          {"warmup_steps", result.warmup},
          {"summary", summary},
          {"ranks", std::move(ranks)},
          {"haloflow_version", haloflow::version}};
}

}  // namespace haloflow::cases
