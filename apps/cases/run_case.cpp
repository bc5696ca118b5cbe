// haloflow run and haloflow validate: reading a case on every rank, running it into a run
// directory (the seed case compared across executors, or a model with its outputs).

#include <fmt/format.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "case_file.hpp"
#include "checkpoint.hpp"
#include "commands.hpp"
#include "driver.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "haloflow/version.hpp"
#include "model_run.hpp"
#include "output_files.hpp"
#include "png_output.hpp"
#include "replay.hpp"
#include "run_output.hpp"
#include "seed_case.hpp"
#include "vtk_output.hpp"

namespace haloflow::app {
namespace {

using haloflow::ExecutorKind;

// Rank 0 reads the case file and broadcasts its text (or why it could not be read), so that
// every rank runs the same case.
std::string read_case_everywhere(const std::string& path, const haloflow::MpiSession& mpi) {
  std::string text;
  int failed = 0;
  if (mpi.world_rank() == 0) {
    try {
      text = haloflow::app::read_case_text(path);
    } catch (const haloflow::Error& error) {
      text = error.what();
      failed = 1;
    }
  }
  if (mpi.world_size() > 1) {
    unsigned long long length = text.size();
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    text.resize(length);
    for (unsigned long long sent = 0; sent < length;) {
      const int chunk = static_cast<int>(std::min<unsigned long long>(length - sent, 1 << 30));
      MPI_Bcast(text.data() + sent, chunk, MPI_CHAR, 0, MPI_COMM_WORLD);
      sent += static_cast<unsigned long long>(chunk);
    }
  }
  if (failed != 0) throw CollectiveError(text);
  return text;
}

haloflow::app::CaseFile parse_everywhere(const std::string& path,
                                         const haloflow::app::CaseLimits& limits,
                                         const haloflow::MpiSession& mpi) {
  const auto text = read_case_everywhere(path, mpi);
  try {
    return haloflow::app::parse_case(text, path, limits);
  } catch (const haloflow::Error& error) {
    throw CollectiveError(error.what());
  }
}

double default_memory_gib(const std::optional<haloflow::DeviceInfo>& device) {
  return device ? device->memory_gib : 16.0;
}

// The executors to run: the case's list, narrowed by --executor, limited to what this machine
// can run (saying so, never silently).
std::vector<ExecutorKind> choose_executors(const haloflow::app::SeedCase& seed,
                                           const std::string& requested, bool have_gpu) {
  std::vector<ExecutorKind> chosen;
  if (requested == "auto") {
    chosen = {have_gpu ? ExecutorKind::graph : ExecutorKind::host};
    std::puts(have_gpu ? "haloflow: executor auto: a CUDA device is present: graph"
                       : "haloflow: executor auto: no CUDA device found: host");
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
  haloflow::app::write_output_file(path, text, force);
}

// Every rank agrees on whether the run directory may be used: rank 0 decides.
void prepare_out_everywhere(const std::filesystem::path& out, bool force,
                            const haloflow::MpiSession& mpi) {
  std::string refusal;
  if (mpi.world_rank() == 0) {
    try {
      haloflow::app::prepare_run_directory(out, force);
    } catch (const haloflow::Error& error) {
      refusal = error.what();
    }
  }
  int failed = refusal.empty() ? 0 : 1;
  if (mpi.world_size() > 1) MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed != 0) throw CollectiveError(refusal);
}

}  // namespace

nlohmann::json versions() {
  return {{"haloflow", haloflow::version},
          {"fmt", FMT_VERSION},
          {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR,
                                        NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH)}};
}

int run_case(const RunOptions& options, const haloflow::MpiSession& mpi) {
  const auto device = haloflow::current_device();
  const haloflow::app::CaseLimits limits{.ranks = mpi.world_size(),
                                         .memory_gib = default_memory_gib(device)};
  auto c = parse_everywhere(options.case_path, limits, mpi);
  const bool seed_model = c.model == "seed";
  // Flags override the case's fields.
  const int length = options.steps > 0 ? options.steps : options.frames;
  if (length > 0) {
    c.seed.frames = length;
    c.seed.host_frames = length;
    c.run.steps = length;
  }
  if (!options.executor.empty()) c.run.executor = options.executor;
  if (options.vtk) c.run.vtk = true;
  if (options.png) c.run.png = true;
  if (options.checkpoint_every >= 0) c.run.checkpoint_every = options.checkpoint_every;
  if (options.output_every >= 0) c.run.output_every = options.output_every;
  if (!options.out.empty()) {
    c.run.output = options.out;
    c.run.output_given = true;
  }
  // The default directory is never reused: a later run of the same case gets runs/NAME.2, .3, ...
  // A directory the user named (--out, run.output) is refused when it exists, unless --force.
  if (!c.run.output_given && !options.force && mpi.world_rank() == 0) {
    const std::string base = c.run.output;
    for (int n = 2; std::filesystem::exists(c.run.output); ++n) {
      c.run.output = fmt::format("{}.{}", base, n);
    }
  }
  const bool root = mpi.world_rank() == 0;
  // A model runs one executor, or with "all" each GPU executor in turn (the first one's run
  // writes the outputs; the others are timed for the comparison).
  std::vector<ExecutorKind> model_executors;
  ExecutorKind model_executor = ExecutorKind::host;
  if (!seed_model) {
    const auto placement = haloflow::place_rank_on_device(MPI_COMM_WORLD);
    const bool have_gpu = placement.device >= 0;
    if (c.run.executor == "all") {
      model_executors =
          have_gpu ? std::vector{ExecutorKind::graph, ExecutorKind::streams, ExecutorKind::serial}
                   : std::vector{ExecutorKind::host};
      model_executor = model_executors.front();
      if (root) {
        std::puts(have_gpu ? "haloflow: executor all: graph, streams and serial in turn"
                           : "haloflow: executor all: no CUDA device found: host only");
      }
    } else if (c.run.executor == "auto") {
      model_executor = have_gpu ? ExecutorKind::graph : ExecutorKind::host;
      if (root) {
        std::puts(have_gpu ? "haloflow: executor auto: a CUDA device is present: graph"
                           : "haloflow: executor auto: no CUDA device found: host");
      }
    } else {
      model_executor = *haloflow::executor_from_string(c.run.executor);
      if (!have_gpu && model_executor != ExecutorKind::host) {
        throw CollectiveError(fmt::format(
            "--executor {}: no CUDA device found on this machine; use --executor host or auto",
            c.run.executor));
      }
    }
    if (model_executors.empty()) {
      model_executors = {model_executor};
      c.run.executor = haloflow::to_string(model_executor);
    }
    if (c.run.warmup < 0) c.run.warmup = model_executor == ExecutorKind::host ? 0 : 10;
  }
  const std::filesystem::path out = c.run.output;
  if (root) {
    if (!options.json_path.empty())
      haloflow::app::refuse_existing(options.json_path, options.force);
    if (!options.dot_path.empty()) haloflow::app::refuse_existing(options.dot_path, options.force);
  }
  prepare_out_everywhere(out, options.force, mpi);
  if (root) {
    write_new_file((out / "case.resolved.json").string(), c.resolved().dump(2) + "\n", true);
    if (device) {
      fmt::print("device {}: {} ({} SMs, {:.0f} GiB, stream priorities {} (low) to {} (high))\n",
                 device->ordinal, device->name, device->multiprocessors, device->memory_gib,
                 device->priority_lowest, device->priority_highest);
    }
    std::fflush(stdout);
  }
  nlohmann::json results = {
      {"case", c.name},
      {"model", c.model},
      {"ranks", mpi.world_size()},
      {"versions", versions()},
      {"machine", haloflow::app::machine_description(device ? device->name : "none")}};
  if (!seed_model) {
    const int status = run_model(c, options, model_executors, out, mpi, results);
    if (root) {
      write_new_file((out / "results.json").string(), results.dump(2) + "\n", true);
      fmt::print("wrote {}\n", (out / "results.json").string());
    }
    return status;
  }
  auto& seed = c.seed;
  if (!options.dot_path.empty()) {
    const auto frame = haloflow::app::build_seed_frame(
        seed, device ? haloflow::Backend::cuda : haloflow::Backend::cpu);
    write_new_file(options.dot_path, frame.plan.to_dot(), options.force);
  }
  std::fflush(stdout);
  haloflow::app::Progress progress("frames", c.run.progress_every, root);
  const auto reports =
      haloflow::app::measure_seed(seed, choose_executors(seed, c.run.executor, device.has_value()),
                                  [&](long done, long total) { progress.update(done, total); });
  std::fputs(haloflow::app::format_reports(seed, reports).c_str(), stdout);
  auto comparison = haloflow::app::reports_to_json(seed, reports);
  comparison["device"] = device ? device->name : "none (host executor)";
  comparison["haloflow_version"] = haloflow::version;
  results["executor_comparison"] = comparison;
  write_new_file((out / "results.json").string(), results.dump(2) + "\n", true);
  fmt::print("wrote {}\n", (out / "results.json").string());
  if (!options.json_path.empty()) {
    write_new_file(options.json_path, comparison.dump(2) + "\n", options.force);
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

int validate_case(const ValidateOptions& options, const haloflow::MpiSession& mpi) {
  haloflow::app::CaseLimits limits{.ranks = options.ranks > 0 ? options.ranks : mpi.world_size(),
                                   .memory_gib = options.memory_gib};
  if (limits.memory_gib <= 0) limits.memory_gib = default_memory_gib(haloflow::current_device());
  const auto c = parse_everywhere(options.case_path, limits, mpi);
  if (mpi.world_rank() == 0) {
    fmt::print("ok: {}: {}\n", options.case_path, c.summary(limits));
  }
  return 0;
}

}  // namespace haloflow::app
