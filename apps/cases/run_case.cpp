// haloflow run and haloflow validate: the case read on every rank, the executors chosen, the run
// directory prepared, the model run with the case's outputs, and the result's views written.

#include "run_case.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "checkpoints.hpp"
#include "collective.hpp"
#include "copy_bandwidth.hpp"
#include "dot_files.hpp"
#include "executors.hpp"
#include "field_outputs.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/device.hpp"
#include "haloflow/ranks.hpp"
#include "output_files.hpp"
#include "printable.hpp"
#include "raw_field.hpp"
#include "run_flags.hpp"
#include "run_output.hpp"
#include "run_place.hpp"
#include "run_record.hpp"
#include "stop_signals.hpp"
#include "written_files.hpp"

namespace haloflow::cases {
namespace {

// results.json's layout (json/schema/results.schema.json): 1 is the first that says so
// (format_version, "run", the models' own sections, "files"); 2 has "model" an object for every
// model (the seed's was its name) and the seed's hidden_fraction null where the console says n/a.
constexpr int kResultsFormatVersion = 2;

// Whether two paths name the same directory (either may not exist yet).
bool same_directory(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code error;
  const auto left = std::filesystem::weakly_canonical(a, error);
  if (error) return false;
  const auto right = std::filesystem::weakly_canonical(b, error);
  return !error && left == right;
}

// Writes the plan of every frame a run builds as Graphviz DOT (--dot DIR), rank 0.
class DotWriter {
 public:
  DotWriter(std::string path, bool force, outputs::WrittenFiles& written)
      : path_(std::move(path)), force_(force), written_(written) {}
  void write(const std::vector<Frame*>& frames) const {
    written_.add(write_dot_files(frames, path_, force_, false));
  }

 private:
  std::string path_;
  bool force_;
  outputs::WrittenFiles& written_;
};

// What `haloflow run` does with what a run on one executor tells: the progress line (rank 0), the
// header and per-step lines (said on every rank, printed by rank 0), and for the first run the
// frames' DOT, the field outputs and the checkpoints. Each part is null where this run has none.
class CaseRunListener final : public models::RunListener {
 public:
  struct Parts {
    bool root = false;
    outputs::Progress* progress = nullptr;  // the run's progress line (it also prints the lines)
    bool lines = false;                     // the model's header and per-step lines
    const DotWriter* dot = nullptr;
    FieldOutputs* fields = nullptr;
    const CheckpointWriter* checkpoints = nullptr;
  };
  explicit CaseRunListener(Parts parts) : parts_(parts) {}

  [[nodiscard]] Wants wants() const override {
    return {.fields = parts_.fields != nullptr,
            .lines = parts_.lines,
            .checkpoints = parts_.checkpoints != nullptr,
            .progress = parts_.root};
  }
  void frames_built(const std::vector<Frame*>& frames) override {
    if (parts_.dot != nullptr) parts_.dot->write(frames);
  }
  void field(const models::OwnedField& field) override {
    if (parts_.fields != nullptr) parts_.fields->write(field);
  }
  void say(const std::string& line) override {
    if (parts_.root && parts_.lines) parts_.progress->say(line);
  }
  void checkpoint(int done, const std::vector<unsigned char>& state) override {
    if (parts_.checkpoints != nullptr) parts_.checkpoints->write(done, state);
  }
  void progress(int done, int steps) override {
    if (parts_.root) parts_.progress->update(done, steps);
  }

 private:
  Parts parts_;
};

// The options of the run on the i-th executor: the first is the run (outputs, checkpoints,
// restart, the dump's gather, --dot), the others time the same steps.
struct RunPlan {
  const CaseFile& c;
  const models::RunShape& shape;
  const ExecutorChoice& choice;
  const MpiSession& mpi;
  models::RunOptions first;
  FieldOutputs* fields = nullptr;
  const CheckpointWriter* checkpoints = nullptr;
  std::vector<std::unique_ptr<outputs::Progress>> progress;
  std::vector<std::unique_ptr<CaseRunListener>> listeners;
  std::unique_ptr<DotWriter> dot;

  models::RunOptions options(std::size_t i) {
    const ExecutorKind executor = choice.executors[i];
    models::RunOptions o = i == 0 ? first : models::RunOptions{};
    o.executor = executor;
    o.steps = c.run.steps;
    o.warmup = c.run.warmup;
    o.handoff = c.exchange.handoff;
    o.transport = c.exchange.transport;
    // The hidden fraction costs a few dozen extra frames before the warm-up; GPU executors only.
    o.measure_overlap = executor != ExecutorKind::host;
    o.progress_every = c.run.progress_every;
    o.frames_per_launch = c.run.frames_per_launch;
    o.exchange_timeout = Seconds(c.run.timeout_s);
    o.stop_on_signal = true;
    const bool root = mpi.world_rank() == 0;
    const std::string what = !shape.steps_in_time ? "frames"
                             : choice.executors.size() > 1
                                 ? fmt::format("steps ({})", to_string(executor))
                                 : std::string("steps");
    progress.push_back(std::make_unique<outputs::Progress>(what, c.run.progress_every, root, stdout,
                                                           o.restart_step));
    // The header and the per-step lines as the run goes; every rank samples, rank 0 prints.
    const bool lines = i == 0 && shape.steps_in_time;
    if (lines) o.sample_every = c.run.progress_every;
    // A model's frames are only shown (nothing waits for them).
    listeners.push_back(std::make_unique<CaseRunListener>(
        CaseRunListener::Parts{.root = root,
                               .progress = progress.back().get(),
                               .lines = lines,
                               .dot = i == 0 && root ? dot.get() : nullptr,
                               .fields = i == 0 ? fields : nullptr,
                               .checkpoints = i == 0 ? checkpoints : nullptr}));
    o.listener = listeners.back().get();
    return o;
  }
};

// The files that set_up_checkpoints' writer left in RUN_DIR/checkpoints during this run (rank 0
// sees the ranks' files on a shared file system; elsewhere only its own).
void add_checkpoints(const std::filesystem::path& out, std::filesystem::file_time_type started,
                     outputs::WrittenFiles& written) {
  std::error_code error;
  const auto directory = out / "checkpoints";
  std::vector<outputs::WrittenFile> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    std::error_code file_error;
    if (!entry.is_regular_file(file_error) || entry.last_write_time(file_error) < started) continue;
    const auto bytes = entry.file_size(file_error);  // (uintmax_t)-1 on an error: no size
    if (!file_error) files.push_back({.path = entry.path(), .bytes = bytes});
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  written.add(files);
}

// The copy rates (DRAM and L2) a GPU run's fractions and floors are taken against, measured on
// rank 0's device after the run (its memory free again); none on a machine without a GPU.
models::CopyRates copy_rates(bool have_gpu) {
  if (!have_gpu) return {};
  try {
    return models::measure_copy_rates();
  } catch (const Error& error) {
    outputs::print_out(fmt::format(
        "haloflow: the copy bandwidth could not be measured ({}); no fraction is shown\n",
        error.what()));
    return {};
  }
}

void print_device(const std::optional<DeviceInfo>& device) {
  if (!device) return;
  outputs::print_out(
      fmt::format("device {}: {} ({} SMs, {:.0f} GiB, stream priorities {} (low) to {} (high))\n",
                  device->ordinal, device->name, device->multiprocessors, device->memory_gib,
                  device->priority_lowest, device->priority_highest));
}

}  // namespace

CaseRun run_case_in_session(const RunFlags& flags, MpiSession& mpi) {
  const bool root = mpi.world_rank() == 0;
  const RankPlacement placement = place_rank_on_device(MPI_COMM_WORLD);
  const bool have_gpu = placement.device >= 0;
  const auto device = current_device();
  const MachineLimits limits{.ranks = mpi.world_size(),
                             .memory_gib = rank_memory_gib(device, placement.local_size)};
  // Before the case is read only --timeout can bound its broadcast.
  const Seconds case_timeout = flags.timeout_s > 0 ? Seconds(flags.timeout_s) : kDefaultTimeout;
  CaseFile c = read_case_everywhere(
      flags.case_path, limits, mpi, case_timeout,
      [&](nlohmann::json& root_json) { apply_flags(flags, root_json); },
      source_with(flags.case_path, flags.sets));
  const Seconds timeout(c.run.timeout_s);

  ExecutorChoice choice;
  try {
    choice = choose_executors(c.run.executor, *c.model, have_gpu);
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
  if (root && !choice.note.empty()) outputs::print_out(choice.note + "\n");
  const models::RunShape shape = c.model->run_shape();
  if (shape.steps_in_time) {
    if (c.run.warmup < 0) c.run.warmup = models::default_warmup(choice.executors.front());
    if (choice.executors.size() == 1) c.run.executor = to_string(choice.executors.front());
  }

  // Every file the user named is checked before anything is made or run.
  on_root_everywhere(mpi, timeout, "checking the outputs", [&] {
    if (!flags.json_path.empty()) outputs::check_output_file(flags.json_path, flags.force);
    if (!flags.dot_path.empty()) check_dot_directory(flags.dot_path, flags.force);
    if (!flags.dump.empty()) outputs::check_output_file(flags.dump, flags.force);
    if (!flags.restart.empty() && same_directory(flags.restart, c.run.output) &&
        (c.run.output_given || flags.force)) {
      throw Error(
          fmt::format("--restart {} is also the run directory: the new run would replace "
                      "the checkpoints it continues from; choose another --out",
                      input::printable(flags.restart, 300)));
    }
  });
  // A refused restart is reported before anything is written.
  std::optional<Restart> restart;
  if (!flags.restart.empty()) restart = choose_restart(c, flags.restart, flags.restart_step, mpi);
  const RunPlace place = RunPlace::prepare(c, flags, mpi, timeout);
  const std::filesystem::path out = place.work();
  RunRecord record(place,
                   {{"format_version", kResultsFormatVersion},
                    {"case", c.name},
                    {"model", {{"name", c.model->name()}}},
                    {"ranks", mpi.world_size()},
                    {"versions", outputs::versions()},
                    {"machine", outputs::machine_description(device ? device->name : "none")},
                    // Each --set, also one that left the case as it was (case.resolved.json
                    // holds the values; this says which came from the command line).
                    {"overrides", overrides_record(parse_overrides(flags.sets))}});
  nlohmann::json& results = record.results();
  outputs::WrittenFiles& written = record.written();
  on_root_everywhere(mpi, timeout, "starting the run directory", [&] {
    outputs::print_out(place.note());
    record.write_file("case.resolved.json", c.resolved().dump(2) + "\n");
    record.save();
  });
  if (root) print_device(device);

  try {
    RunPlan plan{.c = c, .shape = shape, .choice = choice, .mpi = mpi, .first = {}};
    if (!flags.dot_path.empty()) {
      plan.dot = std::make_unique<DotWriter>(flags.dot_path, flags.force, written);
    }
    FieldOutputs fields(c, out, mpi, written);
    std::optional<CheckpointWriter> checkpoints;
    const auto started = std::filesystem::file_time_type::clock::now();
    try {
      if (shape.steps_in_time) {
        fields.attach(plan.first);
        if (fields.any()) plan.fields = &fields;
        plan.first.gather = !flags.dump.empty();
        checkpoints =
            set_up_checkpoints(c, restart ? &*restart : nullptr, out, mpi, plan.first, results);
        if (checkpoints) plan.checkpoints = &*checkpoints;
      }
      const models::RunRequest request{
          .executors = choice.executors,
          .options = [&plan](std::size_t i) { return plan.options(i); }};
      const auto result = c.model->run(request, MPI_COMM_WORLD);
      const std::string failure = result->failure();
      if (root) {
        const models::CopyRates rates = copy_rates(have_gpu);
        const models::ReportOptions report_options{.copy_bandwidth = rates.dram_Bps,
                                                   .l2_copy_bandwidth = rates.l2_Bps,
                                                   .l2_bytes = rates.l2_bytes};
        results["machine"]["copy_bandwidth_Bps"] =
            report_options.copy_bandwidth > 0 ? nlohmann::json(report_options.copy_bandwidth)
                                              : nlohmann::json();
        const std::string report = result->report(report_options);
        // A model said its header and per-step lines as it ran: the rest now.
        outputs::print_out(shape.steps_in_time ? result->closing(report_options) : report);
        result->add_to(results, report_options);
        results["model"]["name"] = c.model->name();  // an object for every model, seed included
        fields.add_to(results);
        if (shape.steps_in_time) {
          record.write_file("model_output.txt", report);
          results["model"]["report_file"] = "model_output.txt";
          add_checkpoints(out, started, written);
        }
        if (!flags.dump.empty() && shape.steps_in_time) {
          outputs::print_out(outputs::write_field_dump(flags.dump, result->field(), flags.force) +
                             "\n");
          written.add({.path = flags.dump, .bytes = outputs::field_bytes(result->field())});
        }
        if (!flags.json_path.empty()) {
          const nlohmann::json& comparison =
              results.contains("executor_comparison") ? results["executor_comparison"] : results;
          const std::string text = comparison.dump(2) + "\n";
          outputs::write_output_file(flags.json_path, text, {.replace = flags.force});
          written.add({.path = flags.json_path, .bytes = text.size()});
        }
      }
      if (!failure.empty()) throw Error(failure);
      if (root) record.complete();
    } catch (const models::Interrupted& stop) {
      // Every rank stopped after the same frame: the run so far is whole, and says so.
      if (root) {
        add_checkpoints(out, started, written);
        record.interrupted({{"signal", models::signal_name(stop.signal())},
                            {"steps_done", stop.steps_done()},
                            {"steps", stop.steps()}});
        std::fprintf(stderr,
                     "haloflow: %s; %s holds the run so far (results.json: interrupted)%s\n",
                     stop.what(), input::printable(out.string(), 300).c_str(),
                     place.replaces() ? fmt::format("; the previous run in {} is untouched",
                                                    input::printable(place.out().string(), 300))
                                            .c_str()
                                      : "");
      }
      return {.status = 128 + stop.signal(), .timeout = timeout, .out = place.out(), .results = {}};
    }
  } catch (const std::exception& error) {
    // Local work only (no collective: a silent rank must not be waited for again).
    if (root) record.failed(error.what());
    throw;
  }
  if (root && !outputs::console_failure().empty()) {
    std::fprintf(stderr, "haloflow: %s; the run is complete: %s holds its results\n",
                 outputs::console_failure().c_str(),
                 input::printable(place.out().string(), 300).c_str());
  }
  return {.status = 0, .timeout = timeout, .out = place.out(), .results = results};
}

int run_case(const RunFlags& flags, MpiSession& mpi) {
  const CaseRun run = run_case_in_session(flags, mpi);
  mpi.finish(run.timeout);
  if (run.status != 0) models::keep_output_open_for_launcher();
  return run.status;
}

int validate_case(const ValidateFlags& flags, MpiSession& mpi) {
  MachineLimits limits{.ranks = flags.ranks > 0 ? flags.ranks : mpi.world_size(),
                       .memory_gib = flags.memory_gib};
  if (limits.memory_gib <= 0) {
    limits.memory_gib = rank_memory_gib(current_device(), limits.ranks);
  }
  const CaseFile c = read_case_everywhere(
      flags.case_path, limits, mpi, kDefaultTimeout,
      [&](nlohmann::json& root_json) { apply_overrides(root_json, parse_overrides(flags.sets)); },
      source_with(flags.case_path, flags.sets));
  if (mpi.world_rank() == 0) {
    outputs::print_out(
        fmt::format("ok: {}: {}\n", input::printable(flags.case_path, 300), c.summary(limits)));
  }
  mpi.finish(kDefaultTimeout);
  return 0;
}

}  // namespace haloflow::cases
