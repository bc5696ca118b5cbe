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

// "result: key=value ..." from the model driver's report, as JSON (numbers where they parse).
// The per-step time percentiles of a model's result line, in microseconds (each the slowest
// rank's; see haloflow::models::StepTimes).
nlohmann::json step_percentiles(const nlohmann::json& result) {
  nlohmann::json times = {{"steps", result.value("steps", 0)}};
  for (const char* name : {"min", "p10", "median", "p90", "p99", "max"}) {
    const std::string key = std::string(name) + "_step_s";
    if (result.contains(key) && result[key].is_number()) {
      times[name] = 1e6 * result[key].get<double>();
    }
  }
  return times;
}

nlohmann::json parse_result_line(const std::string& report) {
  nlohmann::json result = nlohmann::json::object();
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("result: ", 0) != 0) continue;
    std::istringstream pairs(line.substr(8));
    std::string pair;
    while (pairs >> pair) {
      const auto equals = pair.find('=');
      if (equals == std::string::npos) continue;
      const auto key = pair.substr(0, equals);
      const auto value = pair.substr(equals + 1);
      char* end = nullptr;
      const long long whole = std::strtoll(value.c_str(), &end, 10);
      if (end != nullptr && *end == '\0' && !value.empty()) {
        result[key] = whole;
        continue;
      }
      const double number = std::strtod(value.c_str(), &end);
      if (end != nullptr && *end == '\0' && !value.empty()) {
        result[key] = number;
      } else {
        result[key] = value;
      }
    }
  }
  return result;
}

// The first component of `field` in the plane z = global nz / 2, gathered on rank 0 and drawn
// there into `path`; nullopt on the other ranks. Collective over MPI_COMM_WORLD.
std::optional<haloflow::app::FieldPicture> write_field_png(
    const std::string& path, const haloflow::models::OwnedField& field) {
  const std::int64_t nx = field.global_cells[0];
  const std::int64_t ny = field.global_cells[1];
  const std::int64_t z = field.global_cells[2] / 2 - field.offset[2];
  std::vector<std::int64_t> indices;
  std::vector<double> values;
  if (z >= 0 && z < field.cells[2]) {
    for (std::int64_t j = 0; j < field.cells[1]; ++j) {
      for (std::int64_t i = 0; i < field.cells[0]; ++i) {
        indices.push_back((field.offset[1] + j) * nx + field.offset[0] + i);
        values.push_back(
            field.values[static_cast<std::size_t>((z * field.cells[1] + j) * field.cells[0] + i)]);
      }
    }
  }
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int mine = static_cast<int>(values.size());
  std::vector<int> counts(static_cast<std::size_t>(ranks));
  HALOFLOW_MPI(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
               "the picture's slice sizes");
  std::vector<int> displacements(static_cast<std::size_t>(ranks));
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = total;
    total += counts[r];
  }
  std::vector<std::int64_t> all_indices(static_cast<std::size_t>(rank == 0 ? total : 0));
  std::vector<double> all_values(all_indices.size());
  HALOFLOW_MPI(MPI_Gatherv(indices.data(), mine, MPI_INT64_T, all_indices.data(), counts.data(),
                           displacements.data(), MPI_INT64_T, 0, MPI_COMM_WORLD),
               "the picture's slice");
  HALOFLOW_MPI(MPI_Gatherv(values.data(), mine, MPI_DOUBLE, all_values.data(), counts.data(),
                           displacements.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD),
               "the picture's slice");
  if (rank != 0) return std::nullopt;
  if (static_cast<std::int64_t>(total) != nx * ny) {
    throw haloflow::Error(
        fmt::format("{}: the ranks' slices hold {} cells; expected {} x {}", path, total, nx, ny));
  }
  std::vector<double> plane(static_cast<std::size_t>(nx * ny));
  for (std::size_t k = 0; k < all_indices.size(); ++k) {
    plane[static_cast<std::size_t>(all_indices[k])] = all_values[k];
  }
  auto picture = haloflow::app::draw_field(plane, nx, ny);
  haloflow::app::write_png(path, picture.picture);
  return picture;
}

// The same outcome on every rank: when any rank failed, the lowest such rank's message, thrown on
// every rank as a CollectiveError (rank 0 reports it).
void agree_everywhere(const std::string& failure, const haloflow::MpiSession& mpi) {
  const int mine = failure.empty() ? mpi.world_size() : mpi.world_rank();
  int first = mine;
  HALOFLOW_MPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
               "the ranks' verdicts");
  if (first == mpi.world_size()) return;
  std::string message = failure;
  unsigned long long length = message.size();
  HALOFLOW_MPI(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, MPI_COMM_WORLD),
               "the failure's message");
  message.resize(length);
  HALOFLOW_MPI(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, first, MPI_COMM_WORLD),
               "the failure's message");
  throw CollectiveError(message);
}

// What a checkpoint must match: the model and its section (not the run section: a restart may run
// more steps or write other outputs).
std::uint64_t case_hash(const haloflow::app::CaseFile& c) {
  const auto resolved = c.resolved();
  const std::string text = c.model + "\n" + resolved[c.model].dump();
  return haloflow::app::fnv1a64(text.data(), text.size());
}

// Periodic checkpoints into OUT/checkpoints, and --restart: every rank reads its file of the
// newest complete checkpoint; any refusal is reported once, before the run starts.
void set_up_checkpoints(const haloflow::app::CaseFile& c, const RunOptions& options,
                        const std::filesystem::path& out, const haloflow::MpiSession& mpi,
                        haloflow::models::DriverOptions& o, nlohmann::json& results) {
  const std::uint64_t hash = case_hash(c);
  const int rank = mpi.world_rank();
  const int ranks = mpi.world_size();
  if (!options.restart.empty()) {
    const std::filesystem::path from = std::filesystem::path(options.restart) / "checkpoints";
    int step = -1;
    if (rank == 0) step = haloflow::app::newest_complete_checkpoint(from);
    HALOFLOW_MPI(MPI_Bcast(&step, 1, MPI_INT, 0, MPI_COMM_WORLD), "the restart step");
    if (step < 0) {
      throw CollectiveError(fmt::format(
          "--restart {}: no complete checkpoint in {} (run with run.checkpoint_every or "
          "--checkpoint-every first)",
          options.restart, from.string()));
    }
    std::string failure;
    try {
      o.restart_state = haloflow::app::read_checkpoint(
          from, {.case_hash = hash, .rank = rank, .ranks = ranks, .step = step});
      if (step > c.run.steps) {
        failure = fmt::format(
            "--restart {}: its newest checkpoint is of step {}, after this run's "
            "last ({} steps; raise --steps)",
            options.restart, step, c.run.steps);
      }
    } catch (const haloflow::Error& error) {
      failure = fmt::format("--restart {}: {}", options.restart, error.what());
    }
    agree_everywhere(failure, mpi);
    o.restart_step = step;
    if (rank == 0) {
      fmt::print("haloflow: restarting from the checkpoint of step {} in {}\n", step,
                 from.string());
      results["restart"] = {{"from", from.string()}, {"step", step}};
    }
  }
  if (c.run.checkpoint_every <= 0) return;
  const auto directory = out / "checkpoints";
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  agree_everywhere(
      error ? fmt::format("{}: cannot be created: {}", directory.string(), error.message())
            : std::string(),
      mpi);
  o.checkpoint_every = c.run.checkpoint_every;
  o.checkpoint = [directory, hash, rank, ranks, &mpi](int done,
                                                      const std::vector<unsigned char>& state) {
    std::string failure;
    try {
      haloflow::app::write_checkpoint(
          directory, {.case_hash = hash, .rank = rank, .ranks = ranks, .step = done}, state);
    } catch (const haloflow::Error& write_error) {
      failure = write_error.what();
    }
    agree_everywhere(failure, mpi);  // every rank's file is on disk before the marker
    if (rank == 0) haloflow::app::mark_checkpoint_complete(directory, done, ranks);
  };
  if (rank == 0) {
    results["checkpoints"] = {{"directory", "checkpoints"}, {"every", c.run.checkpoint_every}};
  }
}

// Runs the driver with rank 0's standard output also kept in `log` (the driver prints its
// report; the result line goes into results.json).
int run_model(const haloflow::app::CaseFile& c, const RunOptions& options, ExecutorKind executor,
              const std::filesystem::path& out, const haloflow::MpiSession& mpi,
              nlohmann::json& results) {
  haloflow::models::DriverOptions o;
  o.model = c.model;
  o.nx = c.grid.nx;
  o.ny = c.grid.ny;
  o.nz = c.model == "heat3d" ? c.grid.nz : 0;
  o.steps = c.run.steps;
  o.warmup = c.run.warmup;
  o.norm_every = c.grid.norm_every;
  o.print_every = c.grid.print_every;
  o.executor = executor;
  o.precision = c.grid.precision;
  o.split = c.grid.split;
  o.nu = c.grid.nu;
  o.mode = c.grid.mode;
  o.dt = c.grid.dt;
  if (c.model == "euler2d") {
    o.euler_case = c.grid.euler_case;
    o.cfl = c.grid.cfl;
    o.t_end = c.grid.t_end;
    o.rk = c.grid.rk;
    o.limiter = c.grid.limiter;
    o.riemann = c.grid.riemann;
  }
  if (c.run.vtk || c.run.png) {
    const auto directory = out / "vtk";
    if (c.run.vtk) {
      std::error_code error;
      std::filesystem::create_directories(directory, error);
      if (error) {
        throw haloflow::Error(
            fmt::format("{}: cannot be created: {}", directory.string(), error.message()));
      }
      if (mpi.world_rank() == 0) {
        results["vtk"] = {{"directory", "vtk"}, {"every", c.run.output_every}};
      }
    }
    const auto png = out / (c.name + ".png");
    o.output = [&c, &results, directory, png](const haloflow::models::OwnedField& field) {
      if (c.run.vtk) haloflow::app::write_vtk(directory, c.name, field, MPI_COMM_WORLD);
      if (c.run.png && field.step == c.run.steps) {
        const auto picture = write_field_png(png.string(), field);
        if (picture) {
          results["png"] = {
              {"file", png.filename().string()},     {"array", field.names.front()},
              {"width", picture->picture.width},     {"height", picture->picture.height},
              {"field_x", picture->field_x},         {"field_y", picture->field_y},
              {"field_width", picture->field_width}, {"field_height", picture->field_height},
              {"minimum", picture->minimum},         {"maximum", picture->maximum}};
        }
      }
    };
    // VTK's interval; the picture needs only the last step.
    o.output_every = c.run.vtk ? c.run.output_every : 0;
  }
  o.dump = options.dump;
  set_up_checkpoints(c, options, out, mpi, o, results);
  const auto log = out / "model_output.txt";
  int saved = -1;
  // The progress line goes to the user's standard output as it was, not into the report file.
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> console(nullptr, &std::fclose);
  if (mpi.world_rank() == 0) {
    std::fflush(stdout);
    saved = dup(STDOUT_FILENO);
    const int copy = saved < 0 ? -1 : dup(saved);
    if (copy >= 0) console.reset(fdopen(copy, "w"));
    const int file = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || file < 0 || !console) {
      throw haloflow::Error(fmt::format("{}: cannot be written", log.string()));
    }
    dup2(file, STDOUT_FILENO);
    close(file);
  }
  haloflow::app::Progress progress("steps", c.run.progress_every, mpi.world_rank() == 0,
                                   console.get(), o.restart_step);
  if (mpi.world_rank() == 0) {
    o.progress = [&progress](int done, int total) { progress.update(done, total); };
    o.progress_every = c.run.progress_every;
  }
  int status = 1;
  std::string failure;
  const auto start = std::chrono::steady_clock::now();
  try {
    status = haloflow::models::run_driver(o, mpi.world_rank(), mpi.world_size());
  } catch (const std::exception& error) {
    failure = error.what();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (mpi.world_rank() == 0) {
    std::fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    std::ifstream in(log);
    std::ostringstream report;
    report << in.rdbuf();
    std::fputs(report.str().c_str(), stdout);
    const nlohmann::json result = parse_result_line(report.str());
    results["model"] = {{"exit_status", status},
                        {"wall_s", seconds},
                        {"result", result},
                        {"report_file", log.filename().string()}};
    if (result.contains("median_step_s")) results["step_time_us"] = step_percentiles(result);
  }
  if (!failure.empty()) throw haloflow::Error(failure);
  return status;
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
  ExecutorKind model_executor = ExecutorKind::host;
  if (!seed_model) {
    if (c.run.executor == "all") {
      throw CollectiveError(fmt::format(
          "--executor all: the {} model runs one executor; choose auto, graph, streams, serial "
          "or host",
          c.model));
    }
    const auto placement = haloflow::place_rank_on_device(MPI_COMM_WORLD);
    const bool have_gpu = placement.device >= 0;
    if (c.run.executor == "auto") {
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
    c.run.executor = haloflow::to_string(model_executor);
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
    const int status = run_model(c, options, model_executor, out, mpi, results);
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
