#include "replay.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <sstream>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "collective.hpp"
#include "dot_files.hpp"
#include "executors.hpp"
#include "haloflow/device.hpp"
#include "haloflow/nvtx.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/ranks.hpp"
#include "haloflow/recorder.hpp"
#include "output_files.hpp"
#include "overlap_output.hpp"
#include "printable.hpp"
#include "replay_report.hpp"
#include "replay_summary.hpp"
#include "run_output.hpp"

namespace haloflow::cases {
namespace {

using Clock = std::chrono::steady_clock;

// Sees the model's frames as the steps launch them: attaches the recorder to every frame, writes
// their DOT, times every frame of the phases and records the traced ones; rank 0 says how far it
// is, a line every tenth of the frames or every 10 (a terminal's line is rewritten in place).
class Recording final : public models::RunListener {
 public:
  Recording(FrameRecorder& recorder, ReplayPhases phases, const ReplayOptions& options, bool root)
      : recorder_(recorder),
        phases_(phases),
        options_(options),
        root_(root),
        progress_("frame", std::max(10, phases.total() / 10), root) {}

  // Every frame waited for, so that each recorded frame is whole.
  [[nodiscard]] Wants wants() const override { return {.every_frame = true}; }

  void frames_built(const std::vector<Frame*>& frames) override {
    recorder_.attach(frames);
    if (!root_ || options_.dot_dir.empty()) return;
    const bool cuda = frames.front()->executor() == ExecutorKind::graph;
    for (const outputs::WrittenFile& file :
         write_dot_files(frames, options_.dot_dir, options_.force, cuda)) {
      written_.push_back(file.path.string());
    }
  }

  void frame_begins(int frame) override {
    if (frame == phases_.settling + phases_.before) recorder_.start();
    nvtx_.emplace(
        fmt::format("frame {} ({})", frame, phases_.traced(frame) ? "traced" : "untraced").c_str());
    if (phases_.traced(frame)) recorder_.frame_begins();
    start_ = Clock::now();
  }

  void frame_ends(int frame) override {
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - start_).count();
    const bool traced = phases_.traced(frame);
    if (traced) recorder_.frame_ends();
    nvtx_.reset();
    if (traced) {
      traced_us_.push_back(us);
    } else if (frame >= phases_.settling) {
      (frame < phases_.settling + phases_.before ? before_us_ : after_us_).push_back(us);
    }
    // The frames live only as long as the model's run: stop while they are there.
    if (traced && frame == phases_.settling + phases_.before + phases_.recorded - 1) {
      trace_ = recorder_.stop();
    }
    progress_.update(frame + 1, phases_.total());  // outside the frame's time
  }

  [[nodiscard]] RankRecording take() {
    if (!trace_) throw Error("replay: the run ended before its last recorded frame");
    const RecordingCost cost = recording_cost(before_us_, traced_us_, after_us_);
    return RankRecording{.trace = std::move(*trace_),
                         .untraced_frame_us = cost.untraced_us,
                         .traced_frame_us = cost.traced_us,
                         .frame_noise_us = cost.noise_us,
                         .untraced_before_us = cost.before_us,
                         .untraced_after_us = cost.after_us,
                         .clock_offset_ns = 0};
  }
  [[nodiscard]] const std::vector<std::string>& written() const { return written_; }

 private:
  FrameRecorder& recorder_;
  ReplayPhases phases_;
  const ReplayOptions& options_;
  bool root_;
  outputs::Progress progress_;
  std::optional<NvtxRange> nvtx_;
  Clock::time_point start_;
  std::vector<double> before_us_;
  std::vector<double> traced_us_;
  std::vector<double> after_us_;
  std::optional<Trace> trace_;
  std::vector<std::string> written_;
};

void check_outputs(const ReplayOptions& options, int frames) {
  if (!options.window.empty()) (void)parse_window(options.window, frames);
  for (const std::string* path :
       {&options.trace_path, &options.timeline_path, &options.report_path}) {
    if (!path->empty()) outputs::check_output_file(*path, options.force);
  }
  if (!options.dot_dir.empty()) check_dot_directory(options.dot_dir, options.force);
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
    write(options.report_path, replay_report_json(options.case_path, result).dump(2) + "\n");
  }
}

// What was replayed, how, and on which clock.
std::string replay_heading(const ReplayResult& result) {
  const Trace& head = result.ranks.front().trace;
  std::string text = fmt::format(
      "replay of '{}' on the {} executor, {} rank{}: {} frames recorded per rank, as many "
      "untraced around them, after {} settling frames and {} warm-up steps\nclock: {}",
      head.plan, head.executor, result.ranks.size(), result.ranks.size() == 1 ? "" : "s",
      result.frames, result.settling, result.warmup, head.clock);
  if (result.ranks.size() > 1) {
    std::vector<double> offsets;
    for (std::size_t r = 1; r < result.ranks.size(); ++r) {
      offsets.push_back(static_cast<double>(result.ranks[r].clock_offset_ns));
    }
    const Spread s = spread_of(offsets);
    text += fmt::format("; the other ranks' moved onto rank 0's (offsets {:.0f} to {:.0f} ns)",
                        s.min, s.max);
  }
  return text + "\n\n";
}

}  // namespace

ReplayPhases replay_phases(int frames) {
  const int before = frames / 2;
  return {.settling = std::min(frames, 5),
          .before = before,
          .recorded = frames,
          .after = frames - before};
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
  const ReplayPhases phases = replay_phases(result.frames);
  result.settling = phases.settling;
  // The window and the output files are checked before anything runs: a long replay never ends
  // in a refusal.
  on_root_everywhere(mpi, Seconds(c.run.timeout_s), "checking the replay's outputs",
                     [&] { check_outputs(options, result.frames); });
  if (root) {
    outputs::print_out(fmt::format(
        "replaying '{}' on {} rank{}, {} executor: {} settling frames, {} untraced, {} recorded, "
        "{} untraced\n",
        c.name, mpi.world_size(), mpi.world_size() == 1 ? "" : "s", to_string(kind),
        phases.settling, phases.before, phases.recorded, phases.after));
  }

  // Before the frames: CUPTI must watch the graphs being instantiated (see FrameRecorder).
  FrameRecorder recorder(kind, mpi.world_rank());
  Recording recording(recorder, phases, options, root);
  models::RunOptions run;
  run.executor = kind;
  // Enough steps for the frames whatever steps each takes; the run ends after the last frame.
  run.steps = phases.total() * models::kMostStepsPerFrame;
  run.frames_limit = phases.total();
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

  result.text = replay_heading(result) + format_summary(result.ranks, result.reports);
  if (options.per_frame) {
    for (std::size_t r = 0; r < result.ranks.size(); ++r) {
      const RankRecording& recorded = result.ranks[r];
      result.text += fmt::format("\nrank {}: recording costs {}\n", recorded.trace.rank,
                                 cost_text(recording_cost(recorded)));
      result.text += format_overlap(recorded.trace, result.reports[r]);
    }
  }
  for (const std::string& path : result.written) {
    result.text += fmt::format("wrote {}\n", input::printable(path, 300));
  }
  return result;
}

}  // namespace haloflow::cases
