// haloflow run for a model case: the driver run with its outputs (VTK, PNG, checkpoints), rank 0's
// report kept in the run directory, and, with --executor all, the same case on every GPU executor
// compared in results.json.

#include "model_run.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "driver.hpp"
#include "haloflow/error.hpp"
#include "output_files.hpp"
#include "png_output.hpp"
#include "run_output.hpp"
#include "vtk_output.hpp"

namespace haloflow::app {
namespace {

using haloflow::ExecutorKind;

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

// The overlap measurement of a model's result line (see haloflow::models::OverlapTimes), in
// microseconds.
nlohmann::json overlap_json(const nlohmann::json& result) {
  return {{"frame_us", 1e6 * result.value("overlap_frame_s", 0.0)},
          {"interior_alone_us", 1e6 * result.value("overlap_interior_s", 0.0)},
          {"communication_alone_us", 1e6 * result.value("overlap_communication_s", 0.0)},
          {"hidden", result.value("hidden", 0.0)}};
}

// Each "result: key=value ..." line of the model driver's report, in order, as JSON (numbers
// where they parse).
std::vector<nlohmann::json> parse_result_lines(const std::string& report) {
  std::vector<nlohmann::json> results;
  std::istringstream lines(report);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("result: ", 0) != 0) continue;
    nlohmann::json& result = results.emplace_back(nlohmann::json::object());
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
  return results;
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

// The driver's options from the case: the model and its section, one executor, no outputs.
haloflow::models::DriverOptions driver_options(const CaseFile& c, ExecutorKind executor) {
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
  // The hidden fraction costs a few dozen extra frames before the warm-up; GPU executors only.
  o.overlap = executor != ExecutorKind::host;
  return o;
}

// VTK every output_every steps and the PNG at the end, as the case asks.
void add_field_outputs(const CaseFile& c, const std::filesystem::path& out,
                       const haloflow::MpiSession& mpi, haloflow::models::DriverOptions& o,
                       nlohmann::json& results) {
  if (!c.run.vtk && !c.run.png) return;
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

// Rank 0's standard output goes into `log` while it lives (the driver prints its report there);
// console() is the user's standard output as it was, for the progress line. finish() restores
// it and returns what the log holds.
class ReportCapture {
 public:
  ReportCapture(std::filesystem::path log, bool enabled) : log_(std::move(log)) {
    if (!enabled) return;
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    const int copy = saved_ < 0 ? -1 : dup(saved_);
    if (copy >= 0) console_.reset(fdopen(copy, "w"));
    const int file = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved_ < 0 || file < 0 || !console_) {
      if (file >= 0) close(file);
      restore();
      throw haloflow::Error(fmt::format("{}: cannot be written", log_.string()));
    }
    dup2(file, STDOUT_FILENO);
    close(file);
  }
  ~ReportCapture() { restore(); }
  ReportCapture(const ReportCapture&) = delete;
  ReportCapture& operator=(const ReportCapture&) = delete;

  [[nodiscard]] std::FILE* console() const { return console_.get(); }

  std::string finish() {
    if (saved_ < 0) return {};
    restore();
    std::ifstream in(log_);
    std::ostringstream report;
    report << in.rdbuf();
    return report.str();
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stdout);
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
    saved_ = -1;
  }

  std::filesystem::path log_;
  int saved_ = -1;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> console_{nullptr, &std::fclose};
};

// One executor's row of the comparison, from its result line.
nlohmann::json comparison_row(ExecutorKind executor, const nlohmann::json& result) {
  nlohmann::json row = {{"executor", haloflow::to_string(executor)},
                        {"step_time_us", step_percentiles(result)},
                        {"total_s", result.value("total_s", 0.0)}};
  if (result.contains("hidden")) row["overlap"] = overlap_json(result);
  return row;
}

}  // namespace

int run_model(const CaseFile& c, const RunOptions& options,
              const std::vector<ExecutorKind>& executors, const std::filesystem::path& out,
              const haloflow::MpiSession& mpi, nlohmann::json& results) {
  const bool root = mpi.world_rank() == 0;
  // The first executor's run is the run: outputs, dump, checkpoints, restart. The others only
  // time the same steps.
  haloflow::models::DriverOptions first = driver_options(c, executors.front());
  add_field_outputs(c, out, mpi, first, results);
  first.dump = options.dump;
  set_up_checkpoints(c, options, out, mpi, first, results);

  const auto log = out / "model_output.txt";
  std::vector<int> statuses;
  std::vector<double> seconds;
  std::string failure;
  std::string report;
  {
    ReportCapture capture(log, root);
    for (std::size_t i = 0; i < executors.size() && failure.empty(); ++i) {
      haloflow::models::DriverOptions o = i == 0 ? first : driver_options(c, executors[i]);
      const std::string what = executors.size() > 1
                                   ? fmt::format("steps ({})", haloflow::to_string(executors[i]))
                                   : std::string("steps");
      Progress progress(what, c.run.progress_every, root, capture.console(), o.restart_step);
      if (root) {
        o.progress = [&progress](int done, int total) { progress.update(done, total); };
        o.progress_every = c.run.progress_every;
      }
      const auto start = std::chrono::steady_clock::now();
      try {
        statuses.push_back(haloflow::models::run_driver(o, mpi.world_rank(), mpi.world_size()));
      } catch (const std::exception& error) {
        failure = error.what();
      }
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    report = capture.finish();
  }
  if (root) {
    std::fputs(report.c_str(), stdout);
    const std::vector<nlohmann::json> lines = parse_result_lines(report);
    const nlohmann::json result = lines.empty() ? nlohmann::json::object() : lines.front();
    results["model"] = {{"exit_status", statuses.empty() ? 1 : statuses.front()},
                        {"wall_s", seconds.front()},
                        {"result", result},
                        {"report_file", log.filename().string()}};
    if (result.contains("median_step_s")) results["step_time_us"] = step_percentiles(result);
    if (result.contains("hidden")) results["overlap"] = overlap_json(result);
    if (executors.size() > 1 && failure.empty() && lines.size() == executors.size()) {
      nlohmann::json rows = nlohmann::json::array();
      fmt::print("\n{:<9} {:>11} {:>9} {:>9} {:>9}\n", "executor", "median us", "p90 us", "p99 us",
                 "hidden");
      for (std::size_t i = 0; i < executors.size(); ++i) {
        rows.push_back(comparison_row(executors[i], lines[i]));
        const nlohmann::json& t = rows.back()["step_time_us"];
        const nlohmann::json& r = lines[i];
        fmt::print("{:<9} {:>11.1f} {:>9.1f} {:>9.1f} {:>9}\n", haloflow::to_string(executors[i]),
                   t.value("median", 0.0), t.value("p90", 0.0), t.value("p99", 0.0),
                   r.contains("hidden") ? fmt::format("{:.1f} %", 100 * r["hidden"].get<double>())
                                        : std::string("n/a"));
      }
      results["executor_comparison"] = {{"runs", rows}, {"steps", c.run.steps}};
    }
  }
  if (!failure.empty()) throw haloflow::Error(failure);
  for (const int status : statuses) {
    if (status != 0) return status;
  }
  return 0;
}

}  // namespace haloflow::app
