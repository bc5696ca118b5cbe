#include "replay.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/graph_dot.hpp"
#include "haloflow/nvtx.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/recorder.hpp"
#include "haloflow/version.hpp"
#include "output_files.hpp"
#include "overlap_output.hpp"
#include "seed_case.hpp"
#include "trace_chrome.hpp"
#include "trace_svg.hpp"

namespace haloflow::app {
namespace {

using Clock = std::chrono::steady_clock;

ExecutorKind choose_executor(const std::string& requested) {
  const bool have_gpu = gpu_available();
  if (requested == "auto") return have_gpu ? ExecutorKind::graph : ExecutorKind::host;
  const auto kind = executor_from_string(requested);
  if (!kind || (*kind != ExecutorKind::graph && *kind != ExecutorKind::host)) {
    throw Error(
        fmt::format("--executor {}: replay records the graph and host executors; "
                    "expected graph, host or auto",
                    requested));
  }
  if (*kind == ExecutorKind::graph && !have_gpu) {
    throw Error(
        "--executor graph: no CUDA device found on this machine; use --executor host "
        "or auto");
  }
  return *kind;
}

// A solver's step, as `haloflow run` times it: the two flux kernels patched, launched, waited.
class SeedSteps {
 public:
  SeedSteps(const SeedCase& seed, SeedFrame& seed_frame, Frame& frame)
      : seed_(seed), seed_frame_(seed_frame), frame_(frame) {}

  double step() {
    auto* grid = seed_frame_.data.as<double>();
    const auto start = Clock::now();
    frame_.update(seed_frame_.interior, seed_.cells - seed_.halo_cells, grid + seed_.halo_cells,
                  seed_.intensity);
    frame_.update(seed_frame_.boundary, seed_.halo_cells, grid, seed_.intensity);
    frame_.launch();
    frame_.wait();
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  }

 private:
  const SeedCase& seed_;
  SeedFrame& seed_frame_;
  Frame& frame_;
};

std::string cost_line(const ReplayResult& result) {
  const double off = median(result.untraced_us);
  const double on = median(result.traced_us);
  return fmt::format(
      "untraced {:.1f} us per frame, traced {:.1f} (medians): recording costs {:.1f} us per "
      "frame ({:+.1f}%)\n",
      off, on, on - off, off > 0 ? 100 * (on - off) / off : 0.0);
}

// Warm-up, then `frames` frames untraced and as many recorded, each marked by an NVTX range.
void record_frames(SeedSteps steps, FrameRecorder& recorder, int warmup, int frames,
                   ReplayResult& result) {
  for (int f = 0; f < warmup; ++f) {
    const NvtxRange range(fmt::format("warm-up {}", f).c_str());
    (void)steps.step();
  }
  for (int f = 0; f < frames; ++f) {
    const NvtxRange range(fmt::format("frame {} (untraced)", f).c_str());
    result.untraced_us.push_back(steps.step());
  }
  recorder.start();
  for (int f = 0; f < frames; ++f) {
    const NvtxRange range(fmt::format("frame {} (traced)", f).c_str());
    recorder.frame_begins();
    result.traced_us.push_back(steps.step());
    recorder.frame_ends();
  }
  result.trace = recorder.stop();
}

// The files asked for, each added to result.written.
void write_outputs(const ReplayOptions& options, Frame& frame, ReplayResult& result) {
  const auto write = [&](const std::string& path, const std::string& text) {
    write_output_file(path, text, options.force);
    result.written.push_back(path);
  };
  if (!options.trace_path.empty()) {
    write(options.trace_path, chrome_trace(result.trace).dump(1) + "\n");
  }
  if (!options.timeline_path.empty()) {
    const TimelineWindow window =
        options.window.empty()
            ? TimelineWindow{result.report.median_frame, 1}
            : parse_window(options.window, static_cast<int>(result.trace.frames.size()));
    write(options.timeline_path, timeline_svg(result.trace, result.report, window));
  }
  if (!options.dot_path.empty()) {
    write(options.dot_path, frame.plan().to_dot());
    if (frame.executor() == ExecutorKind::graph) {
      const std::string cuda_path = cuda_dot_path(options.dot_path);
      refuse_existing(cuda_path, options.force);
      write_cuda_graph_dot(frame, cuda_path);
      result.written.push_back(cuda_path);
    }
  }
  if (!options.report_path.empty()) {
    auto json = overlap_to_json(result.trace, result.report);
    json["case"] = options.case_path;
    json["tracing"] = {{"untraced_frame_us", median(result.untraced_us)},
                       {"traced_frame_us", median(result.traced_us)},
                       {"overhead_us", median(result.traced_us) - median(result.untraced_us)}};
    json["haloflow_version"] = haloflow::version;
    write(options.report_path, json.dump(2) + "\n");
  }
}

}  // namespace

std::string cuda_dot_path(const std::string& dot_path) {
  const std::string suffix = ".dot";
  if (dot_path.size() > suffix.size() &&
      dot_path.compare(dot_path.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return dot_path.substr(0, dot_path.size() - suffix.size()) + ".cuda.dot";
  }
  return dot_path + ".cuda.dot";
}

ReplayResult replay_seed_case(const ReplayOptions& options, int rank) {
  const SeedCase seed = read_seed_case(options.case_path);
  const ExecutorKind kind = choose_executor(options.executor);
  const int frames = options.frames > 0           ? options.frames
                     : kind == ExecutorKind::host ? seed.host_frames
                                                  : seed.frames;
  // The window and the output files are checked before anything runs: a long replay never
  // ends in a refusal.
  if (!options.window.empty()) (void)parse_window(options.window, frames);
  for (const std::string* path :
       {&options.trace_path, &options.timeline_path, &options.dot_path, &options.report_path}) {
    if (!path->empty()) refuse_existing(*path, options.force);
  }
  if (!options.dot_path.empty() && kind == ExecutorKind::graph) {
    refuse_existing(cuda_dot_path(options.dot_path), options.force);
  }

  SeedFrame seed_frame = build_seed_frame(seed, backend_of(kind));
  // Before the frame: CUPTI must watch the graph being instantiated (see FrameRecorder).
  FrameRecorder recorder(kind, rank);
  Frame frame(seed_frame.plan, kind);
  recorder.attach(frame);
  ReplayResult result;
  record_frames(SeedSteps(seed, seed_frame, frame), recorder, seed.warmup_frames, frames, result);
  result.report = analyze(result.trace);
  write_outputs(options, frame, result);

  result.text = fmt::format(
      "replay of '{}' on the {} executor, rank {}: {} frames recorded after {} untraced and {} "
      "warm-up\nclock: {}\n{}\n",
      result.trace.plan, result.trace.executor, rank, frames, frames, seed.warmup_frames,
      result.trace.clock, cost_line(result));
  result.text += format_overlap(result.trace, result.report);
  for (const std::string& path : result.written) result.text += fmt::format("wrote {}\n", path);
  return result;
}

}  // namespace haloflow::app
