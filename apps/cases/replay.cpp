#include "replay.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <optional>
#include <sstream>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "collective.hpp"
#include "executors.hpp"
#include "haloflow/device.hpp"
#include "haloflow/graph_dot.hpp"
#include "haloflow/nvtx.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/ranks.hpp"
#include "haloflow/recorder.hpp"
#include "haloflow/version.hpp"
#include "output_files.hpp"
#include "overlap_output.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

using Clock = std::chrono::steady_clock;

// Sees the model's frames as the steps launch them: attaches the recorder to every frame, writes
// their DOT, lets `frames` frames run untraced and records the `frames` after them.
class Recording final : public models::RunListener {
 public:
  Recording(FrameRecorder& recorder, int frames, const ReplayOptions& options, bool root)
      : recorder_(recorder), frames_(frames), options_(options), root_(root) {}

  // Every frame waited for, so that each recorded frame is whole.
  [[nodiscard]] Wants wants() const override { return {.every_frame = true}; }

  void frames_built(const std::vector<Frame*>& frames) override {
    recorder_.attach(frames);
    if (!root_ || options_.dot_path.empty()) return;
    std::string text;
    for (const Frame* frame : frames) text += frame->plan().to_dot();
    outputs::write_output_file(options_.dot_path, text, {.replace = options_.force});
    written_.push_back(options_.dot_path);
    if (frames.front()->executor() != ExecutorKind::graph) return;
    for (std::size_t i = 0; i < frames.size(); ++i) {
      // CUDA writes this one itself (cudaGraphDebugDotPrint), so it is refused here unless
      // forced; the first frame's was checked before the run.
      const std::string path = cuda_dot_path(options_.dot_path, i);
      outputs::check_output_file(path, options_.force);
      write_cuda_graph_dot(*frames[i], path);
      written_.push_back(path);
    }
  }

  void frame_begins(int frame) override {
    if (frame == frames_) recorder_.start();
    nvtx_.emplace(
        fmt::format("frame {} ({})", frame % frames_, traced(frame) ? "traced" : "untraced")
            .c_str());
    if (traced(frame)) recorder_.frame_begins();
    start_ = Clock::now();
  }

  void frame_ends(int frame) override {
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start_).count();
    if (traced(frame)) recorder_.frame_ends();
    nvtx_.reset();
    (traced(frame) ? traced_us_ : untraced_us_).push_back(us);
    // The frames live only as long as the model's run: stop while they are there.
    if (frame == 2 * frames_ - 1) trace_ = recorder_.stop();
  }

  [[nodiscard]] RankRecording take() {
    if (!trace_) throw Error("replay: the run ended before its last recorded frame");
    return RankRecording{.trace = std::move(*trace_),
                         .untraced_frame_us = median(untraced_us_),
                         .traced_frame_us = median(traced_us_),
                         .clock_offset_ns = 0};
  }
  [[nodiscard]] const std::vector<std::string>& written() const { return written_; }

 private:
  [[nodiscard]] bool traced(int frame) const { return frame >= frames_; }

  FrameRecorder& recorder_;
  int frames_;
  const ReplayOptions& options_;
  bool root_;
  std::optional<NvtxRange> nvtx_;
  Clock::time_point start_;
  std::vector<double> untraced_us_;
  std::vector<double> traced_us_;
  std::optional<Trace> trace_;
  std::vector<std::string> written_;
};

std::string cost_line(const RankRecording& r) {
  const double off = r.untraced_frame_us;
  const double on = r.traced_frame_us;
  return fmt::format(
      "untraced {:.1f} us per frame, traced {:.1f} (medians): recording costs {:.1f} us per "
      "frame ({:+.1f}%)\n",
      off, on, on - off, off > 0 ? 100 * (on - off) / off : 0.0);
}

void check_outputs(const ReplayOptions& options, int frames, ExecutorKind kind,
                   std::size_t frame_count) {
  if (!options.window.empty()) (void)parse_window(options.window, frames);
  for (const std::string* path :
       {&options.trace_path, &options.timeline_path, &options.dot_path, &options.report_path}) {
    if (!path->empty()) outputs::check_output_file(*path, options.force);
  }
  if (!options.dot_path.empty() && kind == ExecutorKind::graph) {
    for (std::size_t i = 0; i < frame_count; ++i) {
      outputs::check_output_file(cuda_dot_path(options.dot_path, i), options.force);
    }
  }
}

// Rank 0: the trace, the timeline and the report, each added to result.written.
void write_outputs(const ReplayOptions& options, ReplayResult& result) {
  const auto write = [&](const std::string& path, const std::string& text) {
    outputs::write_output_file(path, text, {.replace = options.force});
    result.written.push_back(path);
  };
  std::vector<Trace> traces;
  for (const RankRecording& r : result.ranks) traces.push_back(r.trace);
  if (!options.trace_path.empty()) {
    std::ostringstream text;
    write_chrome_trace(text, traces);
    write(options.trace_path, text.str());
  }
  if (!options.timeline_path.empty()) {
    std::optional<TimelineWindow> window;
    if (!options.window.empty()) window = parse_window(options.window, result.frames);
    std::ostringstream text;
    write_svg_timeline(text, traces, window);
    write(options.timeline_path, text.str());
  }
  if (!options.report_path.empty()) {
    nlohmann::json ranks = nlohmann::json::array();
    for (std::size_t r = 0; r < result.ranks.size(); ++r) {
      const RankRecording& recording = result.ranks[r];
      nlohmann::json json = overlap_to_json(recording.trace, result.reports[r]);
      json["tracing"] = {{"untraced_frame_us", recording.untraced_frame_us},
                         {"traced_frame_us", recording.traced_frame_us},
                         {"overhead_us", recording.traced_frame_us - recording.untraced_frame_us}};
      json["clock_offset_ns"] = recording.clock_offset_ns;
      ranks.push_back(std::move(json));
    }
    const nlohmann::json report = {{"case", options.case_path},
                                   {"executor", result.ranks.front().trace.executor},
                                   {"frames_recorded", result.frames},
                                   {"ranks", std::move(ranks)},
                                   {"haloflow_version", haloflow::version}};
    write(options.report_path, report.dump(2) + "\n");
  }
}

}  // namespace

std::string cuda_dot_path(const std::string& dot_path, std::size_t index) {
  const std::string suffix = ".dot";
  const bool dotted = dot_path.size() > suffix.size() &&
                      dot_path.compare(dot_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string stem = dotted ? dot_path.substr(0, dot_path.size() - suffix.size()) : dot_path;
  return index == 0 ? stem + ".cuda.dot" : fmt::format("{}.{}.cuda.dot", stem, index);
}

TimelineWindow parse_window(const std::string& text, int frames) {
  const auto colon = text.find(':');
  TimelineWindow window;
  const auto read = [&](std::string_view part, int& value) {
    const auto* end = part.data() + part.size();
    const auto [stop, error] = std::from_chars(part.data(), end, value);
    return error == std::errc{} && stop == end && !part.empty();
  };
  const bool parsed = colon != std::string::npos &&
                      read(std::string_view(text).substr(0, colon), window.first) &&
                      read(std::string_view(text).substr(colon + 1), window.count);
  if (!parsed) {
    throw Error(
        fmt::format("--window {}: expected first:count, e.g. 0:3 (frames 0, 1 and 2)", text));
  }
  if (window.first < 0 || window.count < 1 || window.first + window.count > frames) {
    throw Error(
        fmt::format("--window {}: the replay records frames 0 to {}; expected a first "
                    "frame and a count of at least 1 inside them",
                    text, frames - 1));
  }
  return window;
}

ReplayResult replay_case(const ReplayOptions& options, const MpiSession& mpi) {
  const bool root = mpi.world_rank() == 0;
  const bool have_gpu = place_rank_on_device(MPI_COMM_WORLD).device >= 0;
  const auto device = current_device();
  const MachineLimits limits{
      .ranks = mpi.world_size(),
      .memory_gib = rank_memory_gib(device, ranks_on_this_node(MPI_COMM_WORLD))};
  const CaseFile c = read_case_everywhere(
      options.case_path, limits, mpi, kDefaultTimeout,
      [&](nlohmann::json& root_json) {
        override_exchange(root_json, options.handoff, options.transport);
        apply_overrides(root_json, parse_overrides(options.sets));
      },
      source_with(options.case_path, options.sets));
  ExecutorKind kind = ExecutorKind::host;
  try {
    kind = choose_replay_executor(options.executor, have_gpu);
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
  const models::Stepping length = c.model->replay_length(kind, c.stepping());
  ReplayResult result;
  result.frames = options.frames > 0 ? options.frames : length.steps;
  result.warmup = length.warmup;
  // The window and the output files are checked before anything runs: a long replay never ends
  // in a refusal. (How many frames the model builds is known once it has built them: the CUDA
  // graphs' DOT files beyond the first are checked when they are written.)
  on_root_everywhere(mpi, Seconds(c.run.timeout_s), "checking the replay's outputs",
                     [&] { check_outputs(options, result.frames, kind, 1); });

  // Before the frames: CUPTI must watch the graphs being instantiated (see FrameRecorder).
  FrameRecorder recorder(kind, mpi.world_rank());
  Recording recording(recorder, result.frames, options, root);
  models::RunOptions run;
  run.executor = kind;
  // Enough steps for the frames whatever steps each takes; the run ends after the last frame.
  run.steps = 2 * result.frames * models::kMostStepsPerFrame;
  run.frames_limit = 2 * result.frames;
  run.warmup = result.warmup;
  run.handoff = c.exchange.handoff;
  run.transport = c.exchange.transport;
  run.exchange_timeout = Seconds(c.run.timeout_s);
  run.listener = &recording;
  (void)c.model->run_steps(run, MPI_COMM_WORLD);

  RankRecording mine = recording.take();
  mine.clock_offset_ns = clock_offset_ns(recorder, MPI_COMM_WORLD, 8, Seconds(c.run.timeout_s));
  result.ranks = gather_recordings(mine, MPI_COMM_WORLD, Seconds(c.run.timeout_s));
  if (!root) return result;
  result.written = recording.written();
  for (const RankRecording& r : result.ranks) result.reports.push_back(analyze(r.trace));
  write_outputs(options, result);

  for (std::size_t r = 0; r < result.ranks.size(); ++r) {
    const RankRecording& recorded = result.ranks[r];
    const Trace& trace = recorded.trace;
    result.text += fmt::format(
        "{}replay of '{}' on the {} executor, rank {}: {} frames recorded after {} untraced and "
        "{} warm-up\nclock: {}{}\n{}\n",
        r == 0 ? "" : "\n", trace.plan, trace.executor, trace.rank, result.frames, result.frames,
        result.warmup, trace.clock,
        r == 0 ? std::string()
               : fmt::format(" (moved onto rank 0's: offset {} ns)", recorded.clock_offset_ns),
        cost_line(recorded));
    result.text += format_overlap(trace, result.reports[r]);
  }
  for (const std::string& path : result.written) {
    result.text += fmt::format("wrote {}\n", input::printable(path, 300));
  }
  return result;
}

}  // namespace haloflow::cases
