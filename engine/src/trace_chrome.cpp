#include "trace_chrome.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "haloflow/version.hpp"

namespace haloflow::app {
namespace {

constexpr int kFramesThread = 0;

nlohmann::json metadata(const char* name, int pid, int tid, const nlohmann::json& args) {
  return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", args}};
}

}  // namespace

nlohmann::json chrome_trace(const Trace& trace) {
  const std::vector<int> tracks = lane_tracks(trace);
  int bulk_tracks = 1;
  int communication_tracks = 1;
  for (std::size_t i = 0; i < trace.spans.size(); ++i) {
    const bool bulk = trace.nodes.at(trace.spans[i].node).lane == Lane::bulk;
    int& count = bulk ? bulk_tracks : communication_tracks;
    count = std::max(count, tracks[i] + 1);
  }
  const auto thread_of = [&](Lane lane, int track) {
    return lane == Lane::bulk ? 1 + track : 1 + bulk_tracks + track;
  };

  const int pid = trace.rank;
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata("process_name", pid, 0,
                            {{"name", fmt::format("rank {}: {} ({} executor)", trace.rank,
                                                  trace.plan, trace.executor)}}));
  events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", trace.rank}}));
  const auto name_thread = [&](int tid, const std::string& name) {
    events.push_back(metadata("thread_name", pid, tid, {{"name", name}}));
    events.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
  };
  name_thread(kFramesThread, "frames");
  for (int t = 0; t < bulk_tracks; ++t) {
    name_thread(thread_of(Lane::bulk, t),
                t == 0 ? "interior (bulk lane)" : fmt::format("interior (bulk lane) {}", t + 1));
  }
  for (int t = 0; t < communication_tracks; ++t) {
    name_thread(thread_of(Lane::communication, t),
                t == 0 ? "communication chain" : fmt::format("communication chain {}", t + 1));
  }

  for (const FrameSpan& frame : trace.frames) {
    events.push_back({{"name", fmt::format("frame {}", frame.frame)},
                      {"cat", "frame"},
                      {"ph", "X"},
                      {"ts", frame.start_us},
                      {"dur", frame.duration_us()},
                      {"pid", pid},
                      {"tid", kFramesThread},
                      {"args", {{"frame", frame.frame}}}});
  }
  for (std::size_t i = 0; i < trace.spans.size(); ++i) {
    const NodeSpan& span = trace.spans[i];
    const TraceNode& node = trace.nodes.at(span.node);
    events.push_back({{"name", node.name},
                      {"cat", std::string(to_string(node.kind))},
                      {"ph", "X"},
                      {"ts", span.start_us},
                      {"dur", span.duration_us()},
                      {"pid", pid},
                      {"tid", thread_of(node.lane, tracks[i])},
                      {"args",
                       {{"frame", span.frame},
                        {"kind", std::string(to_string(node.kind))},
                        {"lane", std::string(to_string(node.lane))}}}});
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"plan", trace.plan},
            {"executor", trace.executor},
            {"clock", trace.clock},
            {"rank", trace.rank},
            {"frames", trace.frames.size()},
            {"haloflow_version", haloflow::version}}}};
}

}  // namespace haloflow::app
