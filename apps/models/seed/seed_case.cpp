#include "seed_case.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "haloflow/error.hpp"
#include "haloflow/overlap.hpp"
#include "json_fields.hpp"
#include "seed_kernels.hpp"

namespace haloflow::app {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Busy, not sleeping: a sleep overshoots by tens of microseconds, more than MPI itself takes.
void busy_host_work(double microseconds) {
  const auto end = Clock::now() + std::chrono::duration<double, std::micro>(microseconds);
  while (Clock::now() < end) {
  }
}

double initial_value(std::size_t cell) {
  return 0.5 + static_cast<double>(cell % 997) * 1e-3;
}

}  // namespace

void read_seed_section(JsonFields& fields, const nlohmann::json& grid, SeedCase& seed) {
  constexpr std::int64_t kMaxCells = std::int64_t{1} << 34;  // 128 GiB of doubles
  seed.cells = static_cast<std::size_t>(
      fields.integer(grid, "/seed/cells", static_cast<std::int64_t>(seed.cells), 2, kMaxCells));
  seed.halo_cells = static_cast<std::size_t>(fields.integer(
      grid, "/seed/halo_cells", static_cast<std::int64_t>(seed.halo_cells), 1, kMaxCells));
  if (seed.halo_cells >= seed.cells) {
    fields.report("/seed/halo_cells",
                  fmt::format("{} is not allowed; expected fewer than /seed/cells ({})",
                              seed.halo_cells, seed.cells));
  }
  seed.intensity = static_cast<int>(fields.integer(grid, "/seed/intensity", 1, 0, 100000));
  seed.block_size = static_cast<unsigned>(fields.integer(grid, "/seed/block_size", 512, 32, 1024));
  if (seed.block_size % 32 != 0) {
    fields.report("/seed/block_size",
                  fmt::format("{} is not allowed; expected a multiple of 32", seed.block_size));
  }
  seed.copy_blocks =
      static_cast<unsigned>(fields.integer(grid, "/seed/copy_blocks", 320, 1, 65535));
  seed.host_work_us = fields.number(grid, "/seed/host_work_us", 100, 0, 1e7);
}

void read_seed_run(JsonFields& fields, const nlohmann::json& run, SeedCase& seed) {
  seed.frames = static_cast<int>(fields.integer(run, "/run/frames", seed.frames, 1, 1000000));
  seed.host_frames =
      static_cast<int>(fields.integer(run, "/run/host_frames", seed.host_frames, 1, 1000000));
  seed.warmup_frames =
      static_cast<int>(fields.integer(run, "/run/warmup_frames", seed.warmup_frames, 0, 1000));
  if (run.contains("executors")) {
    const auto& list = run["executors"];
    if (!list.is_array() || list.empty()) {
      fields.report("/run/executors",
                    fmt::format("{} is not allowed; expected a non-empty array of executor names",
                                list.dump()));
    } else {
      seed.executors.clear();
      for (std::size_t i = 0; i < list.size(); ++i) {
        const auto name = fields.choice(list[i], fmt::format("/run/executors/{}", i),
                                        {"graph", "streams", "serial", "host"});
        if (const auto kind = executor_from_string(name)) seed.executors.push_back(*kind);
      }
    }
  }
}

SeedCase parse_seed_case(const nlohmann::json& root, const std::string& source) {
  JsonFields fields(source);
  SeedCase seed;
  if (!root.is_object()) {
    fields.report("", fmt::format("the case is {}; expected a JSON object", root.type_name()));
    fields.throw_if_any();
  }
  fields.only_keys(root, "", {"name", "description", "model", "seed", "run"});
  seed.name = fields.text(root, "/name", seed.name);
  if (root.contains("model")) fields.choice(root["model"], "/model", {"seed"});
  const auto& grid = fields.object(root, "/seed", false);
  fields.only_keys(
      grid, "/seed",
      {"cells", "halo_cells", "intensity", "block_size", "copy_blocks", "host_work_us"});
  read_seed_section(fields, grid, seed);
  const auto& run = fields.object(root, "/run", false);
  fields.only_keys(run, "/run", {"frames", "host_frames", "warmup_frames", "executors"});
  read_seed_run(fields, run, seed);
  fields.throw_if_any();
  return seed;
}

SeedCase read_seed_case(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(fmt::format("{}: is a directory; expected a JSON case file", path.string()));
  }
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("{}: cannot be opened for reading", path.string()));
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& parse) {
    throw Error(fmt::format("{}: not valid JSON: {}", path.string(), parse.what()));
  }
  return parse_seed_case(root, path.string());
}

SeedFrame build_seed_frame(const SeedCase& seed, Backend backend) {
  const std::size_t halo_bytes = seed.halo_cells * sizeof(double);
  SeedFrame frame{.data = Buffer(Memory::device, seed.cells * sizeof(double), "grid", backend),
                  .halo_device = Buffer(Memory::device, halo_bytes, "halo (device)", backend),
                  .halo_host = Buffer(Memory::host, halo_bytes, "halo (pinned host)", backend),
                  .plan = FramePlan(seed.name),
                  .interior = {},
                  .boundary = {}};
  // Fill the grid in slices so a 100 M-cell case needs no second full-size host array.
  std::vector<double> slice(std::min<std::size_t>(seed.cells, 1 << 20));
  for (std::size_t start = 0; start < seed.cells; start += slice.size()) {
    const std::size_t count = std::min(slice.size(), seed.cells - start);
    for (std::size_t i = 0; i < count; ++i) slice[i] = initial_value(start + i);
    frame.data.upload(slice.data(), count * sizeof(double), start * sizeof(double));
  }

  auto* grid = frame.data.as<double>();
  auto* packed = frame.halo_device.as<double>();
  const std::size_t interior_cells = seed.cells - seed.halo_cells;
  const auto flux = kernels::seed_flux();
  const auto copy = kernels::seed_copy();
  const auto copy_shape = LaunchShape::fixed(seed.copy_blocks, seed.block_size);
  FramePlan& plan = frame.plan;
  constexpr Lane comm = Lane::communication;

  frame.interior = plan.add_kernel({.name = "interior_flux", .lane = Lane::bulk}, flux,
                                   LaunchShape::cover(interior_cells, seed.block_size),
                                   interior_cells, grid + seed.halo_cells, seed.intensity);
  plan.add_kernel({.name = "pack", .lane = comm}, copy, copy_shape, seed.halo_cells,
                  static_cast<const double*>(grid), packed);
  plan.add_copy({.name = "download", .lane = comm, .after = {"pack"}}, frame.halo_host.view(),
                frame.halo_device.view(), halo_bytes);
  plan.add_host({.name = "exchange", .lane = comm, .after = {"download"}},
                [us = seed.host_work_us] { busy_host_work(us); });
  plan.add_copy({.name = "upload", .lane = comm, .after = {"exchange"}}, frame.halo_device.view(),
                frame.halo_host.view(), halo_bytes);
  plan.add_kernel({.name = "unpack", .lane = comm, .after = {"upload"}}, copy, copy_shape,
                  seed.halo_cells, static_cast<const double*>(packed), grid);
  frame.boundary = plan.add_kernel({.name = "boundary_flux", .lane = comm, .after = {"unpack"}},
                                   flux, LaunchShape::cover(seed.halo_cells, seed.block_size),
                                   seed.halo_cells, grid, seed.intensity);
  return frame;
}

namespace {

// One executor's frames (full, interior alone, communication alone) on its own copy of the grid,
// and the samples taken so far.
class SeedTrial {
 public:
  SeedTrial(const SeedCase& seed, ExecutorKind executor)
      : seed_(seed),
        executor_(executor),
        seed_frame_(build_seed_frame(seed, backend_of(executor))),
        full_(seed_frame_.plan, executor),
        interior_(seed_frame_.plan.only(Lane::bulk), executor),
        communication_(seed_frame_.plan.only(Lane::communication), executor) {}

  // One step: the patches (in a solver: dt, time, swapped buffers) and the launch, as a solver's
  // loop issues them, then each branch alone.
  void step(bool record) {
    auto* grid = seed_frame_.data.as<double>();
    const auto start = Clock::now();
    full_.update(seed_frame_.interior, seed_.cells - seed_.halo_cells, grid + seed_.halo_cells,
                 seed_.intensity);
    full_.update(seed_frame_.boundary, seed_.halo_cells, grid, seed_.intensity);
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
      double expected = initial_value(probe);
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
                                         const FrameProgress& progress) {
  // GPU executors take turns step by step, so a change in the machine's state (clocks, the
  // host's load) lands on all of them alike; the host executor, far slower, runs alone.
  std::vector<std::unique_ptr<SeedTrial>> trials;
  for (const auto kind : executors) trials.push_back(std::make_unique<SeedTrial>(seed, kind));
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

ExecutorReport measure_seed(const SeedCase& seed, ExecutorKind executor) {
  return measure_seed(seed, std::vector<ExecutorKind>{executor}).front();
}

std::string format_reports(const SeedCase& seed, const std::vector<ExecutorReport>& reports) {
  std::string text = fmt::format(
      "case '{}': {} cells, halo {} cells, intensity {}, host work {} us\n"
      "{:<9} {:>7} {:>10} {:>9} {:>10} {:>10} {:>8} {:>9} {:>10} {:>10}\n",
      seed.name, seed.cells, seed.halo_cells, seed.intensity, seed.host_work_us, "executor",
      "frames", "us/frame", "p90", "interior", "comm", "hidden", "patch us", "launch us",
      "max error");
  for (const auto& r : reports) {
    // The host executor runs one node after another: nothing can be hidden, and the formula
    // would only measure noise.
    const std::string hidden = r.executor == ExecutorKind::host
                                   ? std::string("n/a")
                                   : fmt::format("{:.1f}%", 100 * r.hidden);
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
    out["executors"].push_back({{"executor", to_string(r.executor)},
                                {"frames", r.frames},
                                {"frame_us", r.frame_us},
                                {"frame_p90_us", r.frame_p90_us},
                                {"interior_us", r.interior_us},
                                {"communication_us", r.communication_us},
                                {"hidden_fraction", r.hidden},
                                {"patch_us", r.patch_us},
                                {"launch_us", r.launch_us},
                                {"max_error", r.max_error}});
  }
  return out;
}

}  // namespace haloflow::app
