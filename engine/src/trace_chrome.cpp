// Traces as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing open:
// one process per rank, a thread per lane track, a complete event per node run, and flow arrows
// from each node's dependencies to it.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <optional>

#include "haloflow/error.hpp"
#include "haloflow/trace_writers.hpp"
#include "haloflow/version.hpp"

namespace haloflow {
namespace {

constexpr int kFramesThread = 0;

nlohmann::json metadata(const char* name, int pid, int tid, const nlohmann::json& args) {
  return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", args}};
}

// The plans a trace records, as the process is named after them.
std::string plans_of(const Trace& trace) {
  return trace.plan.empty() ? std::string("frame") : trace.plan;
}

// Events of one rank's trace: its process and threads named, the frames, a complete event per
// span, and a flow arrow (start at the dependency's span, end at the dependent's) per edge that
// ran in the same frame. `next_flow` numbers the arrows across ranks.
void add_rank(const Trace& trace, nlohmann::json& events, long long& next_flow) {
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
  events.push_back(metadata("process_name", pid, 0,
                            {{"name", fmt::format("rank {}: {} ({} executor)", trace.rank,
                                                  plans_of(trace), trace.executor)}}));
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
  // The latest run of each node in each frame, for the arrows: (frame, node) -> span index.
  std::vector<std::vector<std::optional<std::size_t>>> run_of(
      trace.frames.size(), std::vector<std::optional<std::size_t>>(trace.nodes.size()));
  for (std::size_t i = 0; i < trace.spans.size(); ++i) {
    const NodeSpan& span = trace.spans[i];
    const TraceNode& node = trace.nodes.at(span.node);
    nlohmann::json args = {{"frame", span.frame},
                           {"kind", std::string(to_string(node.kind))},
                           {"lane", std::string(to_string(node.lane))}};
    if (!node.plan.empty()) args["plan"] = node.plan;
    events.push_back({{"name", node.name},
                      {"cat", std::string(to_string(node.kind))},
                      {"ph", "X"},
                      {"ts", span.start_us},
                      {"dur", span.duration_us()},
                      {"pid", pid},
                      {"tid", thread_of(node.lane, tracks[i])},
                      {"args", std::move(args)}});
    if (span.frame >= 0 && static_cast<std::size_t>(span.frame) < run_of.size()) {
      run_of[static_cast<std::size_t>(span.frame)][span.node] = i;
    }
  }
  for (std::size_t i = 0; i < trace.spans.size(); ++i) {
    const NodeSpan& span = trace.spans[i];
    if (span.frame < 0 || static_cast<std::size_t>(span.frame) >= run_of.size()) continue;
    const TraceNode& node = trace.nodes[span.node];
    for (const std::size_t dependency : node.after) {
      const auto& before = run_of[static_cast<std::size_t>(span.frame)].at(dependency);
      if (!before) continue;  // the dependency did not run in this frame (an empty node)
      const NodeSpan& from = trace.spans[*before];
      const long long id = next_flow++;
      // The start binds to the slice that encloses its time stamp, so it sits at the
      // dependency's start; the end binds to the dependent's slice ("bp": "e").
      events.push_back({{"name", "after"},
                        {"cat", "dependency"},
                        {"ph", "s"},
                        {"id", id},
                        {"ts", from.start_us},
                        {"pid", pid},
                        {"tid", thread_of(trace.nodes[from.node].lane, tracks[*before])}});
      events.push_back({{"name", "after"},
                        {"cat", "dependency"},
                        {"ph", "f"},
                        {"bp", "e"},
                        {"id", id},
                        {"ts", span.start_us},
                        {"pid", pid},
                        {"tid", thread_of(node.lane, tracks[i])}});
    }
  }
}

}  // namespace

void write_chrome_trace(std::ostream& out, const std::vector<Trace>& ranks) {
  nlohmann::json events = nlohmann::json::array();
  nlohmann::json described = nlohmann::json::array();
  long long next_flow = 1;
  for (const Trace& trace : ranks) {
    add_rank(trace, events, next_flow);
    described.push_back({{"rank", trace.rank},
                         {"plan", trace.plan},
                         {"executor", trace.executor},
                         {"clock", trace.clock},
                         {"frames", trace.frames.size()}});
  }
  nlohmann::json document = {
      {"traceEvents", std::move(events)},
      {"displayTimeUnit", "ns"},
      {"otherData", {{"ranks", std::move(described)}, {"haloflow_version", haloflow::version}}}};
  out << document.dump(1) << '\n';
}

void write_chrome_trace(const std::filesystem::path& path, const std::vector<Trace>& ranks) {
  std::ofstream out(path);
  write_chrome_trace(out, ranks);
  if (!out.flush()) throw Error(fmt::format("{}: could not be written", path.string()));
}

}  // namespace haloflow
