// haloflow: run JSON-described cases and report how much communication the frame hid.

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/version.hpp"
#include "replay.hpp"
#include "seed_case.hpp"

namespace {

using haloflow::ExecutorKind;

struct RunOptions {
  std::string case_path;
  std::string executor = "all";
  int frames = 0;
  std::string json_path;
  std::string dot_path;
  bool force = false;
};

// The executors to run: the case's list, narrowed by --executor, limited to what this machine
// can run (saying so, never silently).
std::vector<ExecutorKind> choose_executors(const haloflow::app::SeedCase& seed,
                                           const std::string& requested, bool have_gpu) {
  std::vector<ExecutorKind> chosen;
  if (requested == "auto") {
    chosen = {have_gpu ? ExecutorKind::graph : ExecutorKind::host};
  } else if (requested == "all") {
    for (const auto kind : seed.executors) {
      if (have_gpu || kind == ExecutorKind::host) chosen.push_back(kind);
    }
    if (!have_gpu) {
      std::puts("haloflow: no CUDA device found: running the host executor only");
      if (chosen.empty()) chosen = {ExecutorKind::host};
    }
  } else {
    const auto kind = *haloflow::executor_from_string(requested);
    if (!have_gpu && kind != ExecutorKind::host) {
      throw haloflow::Error(fmt::format(
          "--executor {}: no CUDA device found on this machine; use --executor host or auto",
          requested));
    }
    chosen = {kind};
  }
  return chosen;
}

// Refuses to replace a file the user already has, unless told to.
void write_new_file(const std::string& path, const std::string& text, bool force) {
  if (std::filesystem::exists(path) && !force) {
    throw haloflow::Error(fmt::format("{} exists; pass --force to overwrite it", path));
  }
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw haloflow::Error(fmt::format("{}: could not be written", path));
}

int run_case(const RunOptions& options, const haloflow::MpiSession& mpi) {
  if (mpi.world_size() > 1) {
    throw haloflow::Error(fmt::format(
        "{}: the seed case runs on one rank; it was started on {} (run it without mpiexec)",
        options.case_path, mpi.world_size()));
  }
  auto seed = haloflow::app::read_seed_case(options.case_path);
  if (options.frames > 0) {
    seed.frames = options.frames;
    seed.host_frames = options.frames;
  }
  const auto device = haloflow::current_device();
  if (device) {
    fmt::print("device {}: {} ({} SMs, {:.0f} GiB, stream priorities {} (low) to {} (high))\n",
               device->ordinal, device->name, device->multiprocessors, device->memory_gib,
               device->priority_lowest, device->priority_highest);
  }
  if (!options.dot_path.empty()) {
    const auto frame = haloflow::app::build_seed_frame(
        seed, device ? haloflow::Backend::cuda : haloflow::Backend::cpu);
    write_new_file(options.dot_path, frame.plan.to_dot(), options.force);
  }
  std::fflush(stdout);
  const auto reports = haloflow::app::measure_seed(
      seed, choose_executors(seed, options.executor, device.has_value()));
  std::fputs(haloflow::app::format_reports(seed, reports).c_str(), stdout);
  if (!options.json_path.empty()) {
    auto json = haloflow::app::reports_to_json(seed, reports);
    json["device"] = device ? device->name : "none (host executor)";
    json["haloflow_version"] = haloflow::version;
    write_new_file(options.json_path, json.dump(2) + "\n", options.force);
  }
  for (const auto& report : reports) {
    if (!(report.max_error <= 1e-12)) {
      throw haloflow::Error(
          fmt::format("executor {} produced a grid that differs from the host reference by {:.3e}",
                      haloflow::to_string(report.executor), report.max_error));
    }
  }
  return 0;
}

int replay_case(const haloflow::app::ReplayOptions& options, const haloflow::MpiSession& mpi) {
  if (mpi.world_size() > 1) {
    throw haloflow::Error(fmt::format(
        "{}: the seed case runs on one rank; it was started on {} (run it without mpiexec)",
        options.case_path, mpi.world_size()));
  }
  if (const auto device = haloflow::current_device()) {
    fmt::print("device {}: {} ({} SMs, {:.0f} GiB)\n", device->ordinal, device->name,
               device->multiprocessors, device->memory_gib);
  }
  std::fflush(stdout);
  const auto result = haloflow::app::replay_seed_case(options, mpi.world_rank());
  std::fputs(result.text.c_str(), stdout);
  return 0;
}

int show_info(const haloflow::MpiSession& mpi) {
  fmt::print("haloflow {}\n", haloflow::version);
  if (const auto device = haloflow::current_device()) {
    fmt::print("device {}: {}, {} SMs, {:.0f} GiB, stream priorities {} (low) to {} (high)\n",
               device->ordinal, device->name, device->multiprocessors, device->memory_gib,
               device->priority_lowest, device->priority_highest);
    fmt::print("CUDA driver {}, runtime {}\n", device->driver_version, device->runtime_version);
  } else {
    fmt::print("no CUDA device: only the host executor can run\n");
  }
  fmt::print("MPI: {} rank(s), MPI_THREAD_MULTIPLE provided\n", mpi.world_size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"haloflow: hide halo communication behind computation with CUDA graphs"};
  app.require_subcommand(1);
  RunOptions options;
  auto* run = app.add_subcommand("run", "run a case with each executor and report the overlap");
  run->add_option("case", options.case_path, "the case file (JSON)")->required();
  run->add_option("--executor", options.executor, "which executor(s) to run")
      ->check(CLI::IsMember({"all", "auto", "graph", "streams", "serial", "host"}))
      ->capture_default_str();
  run->add_option("--frames", options.frames, "measured frames per executor (overrides the case)")
      ->check(CLI::Range(1, 1000000));
  run->add_option("--json", options.json_path, "also write the results as JSON to this file");
  run->add_option("--dot", options.dot_path, "also write the frame plan as Graphviz DOT");
  run->add_flag("--force", options.force, "overwrite files given to --json and --dot");
  haloflow::app::ReplayOptions replay_options;
  auto* replay = app.add_subcommand(
      "replay", "replay a case's frame with every node recorded, and show what overlapped");
  replay->add_option("case", replay_options.case_path, "the case file (JSON)")->required();
  replay
      ->add_option("--frames", replay_options.frames,
                   "recorded frames (as many run untraced first; default: the case's)")
      ->check(CLI::Range(1, 1000000));
  replay->add_option("--executor", replay_options.executor, "which executor to record")
      ->check(CLI::IsMember({"auto", "graph", "host"}))
      ->capture_default_str();
  replay->add_option("--trace", replay_options.trace_path,
                     "write the recording as Chrome trace-event JSON (Perfetto opens it)");
  replay->add_option("--timeline", replay_options.timeline_path,
                     "write an SVG timeline, a row per branch");
  replay->add_option("--window", replay_options.window,
                     "frames the timeline shows, as first:count (default: the median frame)");
  replay->add_option("--dot", replay_options.dot_path,
                     "write the plan as DOT (and, for graph, the CUDA graph to NAME.cuda.dot)");
  replay->add_option("--report", replay_options.report_path, "write the overlap report as JSON");
  replay->add_flag("--force", replay_options.force, "overwrite existing output files");
  auto* info = app.add_subcommand("info", "describe the device, MPI and this build");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  std::optional<haloflow::MpiSession> mpi;  // outlives the handler, which may need MPI_Abort
  try {
    mpi.emplace(&argc, &argv);
    if (run->parsed()) return run_case(options, *mpi);
    if (replay->parsed()) return replay_case(replay_options, *mpi);
    if (info->parsed()) return show_info(*mpi);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "haloflow: %s\n", error.what());
    // Other ranks may be waiting on this one: end them too rather than leave them hanging.
    if (mpi && mpi->world_size() > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
  return 0;
}
