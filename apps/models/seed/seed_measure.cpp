#include "seed_measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "haloflow/overlap.hpp"
#include "seed_frame.hpp"

namespace haloflow::models {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

namespace {

// One executor's frames (full, interior alone, communication alone) on its own copy of the grid,
// and the samples taken so far.
class SeedTrial {
 public:
  SeedTrial(const SeedCase& seed, ExecutorKind executor, const FrameOptions& options)
      : seed_(seed),
        executor_(executor),
        seed_frame_(build_seed_frame(seed, backend_of(executor))),
        full_(seed_frame_.plan, executor, options),
        interior_(seed_frame_.plan.only(Lane::bulk), executor, options),
        communication_(seed_frame_.plan.only(Lane::communication), executor, options) {}

  // One step: the patches (in a solver: dt, time, swapped buffers) and the launch, as a solver's
  // loop issues them, then each branch alone.
  void step(bool record) {
    const auto start = Clock::now();
    patch_seed_fluxes(seed_, seed_frame_, full_);
    const double patched = microseconds_since(start);
    full_.launch();
    const double issued = microseconds_since(start);
    full_.wait();
    const double whole = microseconds_since(start);
    const double interior = timed(interior_);
    const double communication = timed(communication_);
    ++steps_;
    if (!record) return;
    patch_us_.push_back(patched);
    launch_us_.push_back(issued - patched);
    full_us_.push_back(whole);
    interior_us_.push_back(interior);
    communication_us_.push_back(communication);
  }

  [[nodiscard]] ExecutorKind executor() const { return executor_; }
  [[nodiscard]] Frame& frame() { return full_; }

  [[nodiscard]] ExecutorReport report() const {
    ExecutorReport report{.executor = executor_, .frames = static_cast<int>(full_us_.size())};
    report.frame_us = median(full_us_);
    report.frame_p90_us = percentile(full_us_, 0.9);
    report.interior_us = median(interior_us_);
    report.communication_us = median(communication_us_);
    report.patch_us = median(patch_us_);
    report.launch_us = median(launch_us_);
    report.hidden = hidden_fraction(report.frame_us, report.interior_us, report.communication_us);
    report.max_error = max_error();
    return report;
  }

 private:
  static double timed(Frame& frame) {
    const auto start = Clock::now();
    frame.run();
    return microseconds_since(start);
  }

  // Every cell went through the flux once per full frame and once per lone-branch frame.
  [[nodiscard]] double max_error() const {
    const long applications = 2L * steps_ * seed_.intensity;
    std::vector<std::size_t> probes{0, seed_.halo_cells - 1, seed_.halo_cells, seed_.cells - 1};
    for (std::size_t cell = 0; cell < seed_.cells;
         cell += std::max<std::size_t>(1, seed_.cells / 4096)) {
      probes.push_back(cell);
    }
    double worst = 0;
    for (const std::size_t probe : probes) {
      double expected = seed_initial_value(probe);
      for (long i = 0; i < applications; ++i) expected = std::sin(expected);
      double actual = 0;
      seed_frame_.data.download(&actual, sizeof actual, probe * sizeof(double));
      worst = std::max(worst, std::isfinite(actual) ? std::abs(actual - expected) : INFINITY);
    }
    return worst;
  }

  const SeedCase& seed_;
  ExecutorKind executor_;
  SeedFrame seed_frame_;
  Frame full_;
  Frame interior_;
  Frame communication_;
  long steps_ = 0;
  std::vector<double> full_us_, interior_us_, communication_us_, patch_us_, launch_us_;
};

}  // namespace

std::vector<ExecutorReport> measure_seed(const SeedCase& seed,
                                         const std::vector<ExecutorKind>& executors,
                                         const FrameProgress& progress, const FrameOptions& options,
                                         RunListener* listener) {
  // GPU executors take turns step by step, so a change in the machine's state (clocks, the
  // host's load) lands on all of them alike; the host executor, far slower, runs alone.
  std::vector<std::unique_ptr<SeedTrial>> trials;
  for (const auto kind : executors)
    trials.push_back(std::make_unique<SeedTrial>(seed, kind, options));
  if (listener != nullptr && !trials.empty()) listener->frames_built({&trials.front()->frame()});
  const auto hosts = std::count(executors.begin(), executors.end(), ExecutorKind::host);
  const long gpu_frames = hosts == static_cast<std::ptrdiff_t>(executors.size())
                              ? 0
                              : static_cast<long>(seed.warmup_frames + seed.frames);
  const long total = gpu_frames + hosts * static_cast<long>(seed.warmup_frames + seed.host_frames);
  long done = 0;
  for (long f = 0; f < gpu_frames; ++f) {
    for (auto& trial : trials) {
      if (trial->executor() != ExecutorKind::host) trial->step(f >= seed.warmup_frames);
    }
    if (progress) progress(++done, total);
  }
  for (auto& trial : trials) {
    if (trial->executor() != ExecutorKind::host) continue;
    for (int f = 0; f < seed.warmup_frames + seed.host_frames; ++f) {
      trial->step(f >= seed.warmup_frames);
      if (progress) progress(++done, total);
    }
  }
  std::vector<ExecutorReport> reports;
  for (const auto& trial : trials) reports.push_back(trial->report());
  return reports;
}

ExecutorReport measure_seed(const SeedCase& seed, ExecutorKind executor,
                            const FrameOptions& options) {
  return measure_seed(seed, std::vector<ExecutorKind>{executor}, {}, options).front();
}

namespace {

// The host executor runs one node after another: nothing can be hidden, and the formula would
// only measure noise. The table says n/a and results.json null, with this reason.
constexpr const char* kHostHidesNothing =
    "the host executor runs one node after another: nothing can be hidden";

bool hidden_measured(const ExecutorReport& report) {
  return report.executor != ExecutorKind::host;
}

}  // namespace

std::string format_reports(const SeedCase& seed, const std::vector<ExecutorReport>& reports) {
  std::string text = fmt::format(
      "case '{}': {} cells, halo {} cells, intensity {}, host work {} us\n"
      "{:<9} {:>7} {:>10} {:>9} {:>10} {:>10} {:>8} {:>9} {:>10} {:>10}\n",
      seed.name, seed.cells, seed.halo_cells, seed.intensity, seed.host_work_us, "executor",
      "frames", "us/frame", "p90", "interior", "comm", "hidden", "patch us", "launch us",
      "max error");
  for (const auto& r : reports) {
    const std::string hidden =
        hidden_measured(r) ? fmt::format("{:.1f}%", 100 * r.hidden) : std::string("n/a");
    text += fmt::format(
        "{:<9} {:>7} {:>10.1f} {:>9.1f} {:>10.1f} {:>10.1f} {:>8} {:>9.2f} {:>10.2f} {:>10.1e}\n",
        to_string(r.executor), r.frames, r.frame_us, r.frame_p90_us, r.interior_us,
        r.communication_us, hidden, r.patch_us, r.launch_us, r.max_error);
  }
  return text;
}

nlohmann::json reports_to_json(const SeedCase& seed, const std::vector<ExecutorReport>& reports) {
  nlohmann::json out = {{"case", seed.name},
                        {"cells", seed.cells},
                        {"halo_cells", seed.halo_cells},
                        {"intensity", seed.intensity},
                        {"host_work_us", seed.host_work_us},
                        {"executors", nlohmann::json::array()}};
  for (const auto& r : reports) {
    const bool measured = hidden_measured(r);
    const nlohmann::json hidden = measured ? nlohmann::json(r.hidden) : nlohmann::json(nullptr);
    const nlohmann::json note = measured ? nlohmann::json(nullptr) : kHostHidesNothing;
    out["executors"].push_back({{"executor", to_string(r.executor)},
                                {"frames", r.frames},
                                {"frame_us", r.frame_us},
                                {"frame_p90_us", r.frame_p90_us},
                                {"interior_us", r.interior_us},
                                {"communication_us", r.communication_us},
                                {"hidden_fraction", hidden},
                                {"hidden_fraction_note", note},
                                {"patch_us", r.patch_us},
                                {"launch_us", r.launch_us},
                                {"max_error", r.max_error}});
  }
  return out;
}

}  // namespace haloflow::models
