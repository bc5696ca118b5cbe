// haloflow run and haloflow validate: the case read on every rank, the executors chosen, the run
// directory prepared, the model run with the case's outputs, and the result's views written.

#include "run_case.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>

#include "case_file.hpp"
#include "checkpoints.hpp"
#include "collective.hpp"
#include "executors.hpp"
#include "field_outputs.hpp"
#include "haloflow/device.hpp"
#include "haloflow/ranks.hpp"
#include "output_files.hpp"
#include "raw_field.hpp"
#include "run_output.hpp"

namespace haloflow::cases {
namespace {

double memory_gib(const std::optional<DeviceInfo>& device) {
  return device ? device->memory_gib : 16.0;
}

// The command line's overrides, laid on the case document before it is read, so that the one
// reader checks them as it checks the case. Flags that do not apply to the case's model are left
// out, as they always were (issue 15 makes them errors).
void apply_flags(const RunFlags& flags, nlohmann::json& root) {
  if (!root.is_object() || !root.contains("model") || !root["model"].is_string()) return;
  const auto model = models::make_model(root["model"].get<std::string>());
  if (!model) return;
  if (root.contains("run") && !root["run"].is_object()) return;
  nlohmann::json& run = root["run"];
  if (run.is_null()) run = nlohmann::json::object();
  const int length = flags.steps > 0 ? flags.steps : flags.frames;
  if (length > 0) {
    for (const auto& key : model->length_keys()) run[key] = length;
  }
  if (!flags.executor.empty()) run["executor"] = flags.executor;
  if (!flags.out.empty()) run["output"] = flags.out;
  if (model->steps_in_time()) {
    if (flags.vtk) run["vtk"] = true;
    if (flags.png) run["png"] = true;
    if (flags.checkpoint_every >= 0) run["checkpoint_every"] = flags.checkpoint_every;
    if (flags.output_every >= 0) run["output_every"] = flags.output_every;
  }
  override_exchange(root, flags.handoff, flags.transport);
}

// The default directory is never reused: a later run of the same case gets runs/NAME.2, .3, ...
// Rank 0 looks, every rank takes its answer.
void choose_run_directory(CaseFile& c, bool force, const MpiSession& mpi) {
  if (c.run.output_given || force) return;
  if (mpi.world_rank() == 0) {
    const std::string base = c.run.output;
    for (int n = 2; std::filesystem::exists(c.run.output); ++n) {
      c.run.output = fmt::format("{}.{}", base, n);
    }
  }
  unsigned long long length = c.run.output.size();
  HALOFLOW_MPI(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD),
               "the run directory");
  c.run.output.resize(length);
  HALOFLOW_MPI(
      MPI_Bcast(c.run.output.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD),
      "the run directory");
}

// Writes the plans of every frame a run builds as Graphviz DOT (--dot), rank 0.
class DotWriter final : public models::StepObserver {
 public:
  DotWriter(std::string path, bool force) : path_(std::move(path)), force_(force) {}
  void frames_ready(const std::vector<Frame*>& frames) override {
    std::string text;
    for (const Frame* frame : frames) text += frame->plan().to_dot();
    outputs::write_output_file(path_, text, {.replace = force_});
  }
  void step_begins(int /*step*/) override {}
  void step_ends(int /*step*/) override {}

 private:
  std::string path_;
  bool force_;
};

// The options of the run on the i-th executor: the first is the run (outputs, checkpoints,
// restart, the dump's gather, --dot), the others time the same steps.
struct RunPlan {
  const CaseFile& c;
  const ExecutorChoice& choice;
  const MpiSession& mpi;
  models::RunOptions first;
  std::vector<std::unique_ptr<outputs::Progress>> progress;
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
    const bool root = mpi.world_rank() == 0;
    const std::string what = !c.model->steps_in_time() ? "frames"
                             : choice.executors.size() > 1
                                 ? fmt::format("steps ({})", to_string(executor))
                                 : std::string("steps");
    progress.push_back(std::make_unique<outputs::Progress>(what, c.run.progress_every, root, stdout,
                                                           o.restart_step));
    if (root) {
      outputs::Progress* line = progress.back().get();
      o.progress = [line](int done, int total) { line->update(done, total); };
    }
    if (i == 0 && dot && root) o.observer = dot.get();
    return o;
  }
};

void print_device(const std::optional<DeviceInfo>& device) {
  if (!device) return;
  fmt::print("device {}: {} ({} SMs, {:.0f} GiB, stream priorities {} (low) to {} (high))\n",
             device->ordinal, device->name, device->multiprocessors, device->memory_gib,
             device->priority_lowest, device->priority_highest);
}

}  // namespace

int run_case(const RunFlags& flags, const MpiSession& mpi) {
  const bool root = mpi.world_rank() == 0;
  const RankPlacement placement = place_rank_on_device(MPI_COMM_WORLD);
  const bool have_gpu = placement.device >= 0;
  const auto device = current_device();
  const MachineLimits limits{.ranks = mpi.world_size(), .memory_gib = memory_gib(device)};
  CaseFile c = read_case_everywhere(flags.case_path, limits, mpi, [&](nlohmann::json& root_json) {
    apply_flags(flags, root_json);
  });
  choose_run_directory(c, flags.force, mpi);

  ExecutorChoice choice;
  try {
    choice = choose_executors(c.run.executor, *c.model, have_gpu);
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
  if (root && !choice.note.empty()) std::puts(choice.note.c_str());
  if (c.model->steps_in_time()) {
    if (c.run.warmup < 0) c.run.warmup = models::default_warmup(choice.executors.front());
    if (choice.executors.size() == 1) c.run.executor = to_string(choice.executors.front());
  }

  const std::filesystem::path out = c.run.output;
  on_root_everywhere(mpi, [&] {
    if (!flags.json_path.empty()) outputs::refuse_existing(flags.json_path, flags.force);
    if (!flags.dot_path.empty()) outputs::refuse_existing(flags.dot_path, flags.force);
    outputs::prepare_run_directory(out, flags.force);
  });
  if (root) {
    outputs::write_output_file(out / "case.resolved.json", c.resolved().dump(2) + "\n",
                               {.replace = true});
    print_device(device);
    std::fflush(stdout);
  }
  nlohmann::json results = {
      {"case", c.name},
      {"model", c.model->name()},
      {"ranks", mpi.world_size()},
      {"versions", outputs::versions()},
      {"machine", outputs::machine_description(device ? device->name : "none")}};

  RunPlan plan{.c = c, .choice = choice, .mpi = mpi, .first = {}, .progress = {}, .dot = nullptr};
  if (!flags.dot_path.empty()) plan.dot = std::make_unique<DotWriter>(flags.dot_path, flags.force);
  if (c.model->steps_in_time()) {
    add_field_outputs(c, out, mpi, plan.first, results);
    plan.first.gather = !flags.dump.empty();
    set_up_checkpoints(c, flags.restart, out, mpi, plan.first, results);
  }
  const models::RunRequest request{.executors = choice.executors,
                                   .options = [&plan](std::size_t i) { return plan.options(i); }};
  const auto result = c.model->run(request, MPI_COMM_WORLD);

  const models::ReportOptions report_options;
  if (root) {
    const std::string report = result->report(report_options);
    std::fputs(report.c_str(), stdout);
    result->add_to(results, report_options);
    if (c.model->steps_in_time()) {
      outputs::write_output_file(out / "model_output.txt", report, {.replace = true});
      results["model"]["report_file"] = "model_output.txt";
    }
    if (!flags.dump.empty() && c.model->steps_in_time())
      fmt::print("{}\n", outputs::write_field_dump(flags.dump, result->field()));
    outputs::write_output_file(out / "results.json", results.dump(2) + "\n", {.replace = true});
    fmt::print("wrote {}\n", (out / "results.json").string());
    if (!flags.json_path.empty()) {
      const nlohmann::json& comparison =
          results.contains("executor_comparison") ? results["executor_comparison"] : results;
      outputs::write_output_file(flags.json_path, comparison.dump(2) + "\n",
                                 {.replace = flags.force});
    }
  }
  if (const std::string failure = result->failure(); !failure.empty()) throw Error(failure);
  return 0;
}

int validate_case(const ValidateFlags& flags, const MpiSession& mpi) {
  MachineLimits limits{.ranks = flags.ranks > 0 ? flags.ranks : mpi.world_size(),
                       .memory_gib = flags.memory_gib};
  if (limits.memory_gib <= 0) limits.memory_gib = memory_gib(current_device());
  const CaseFile c = read_case_everywhere(flags.case_path, limits, mpi);
  if (mpi.world_rank() == 0) fmt::print("ok: {}: {}\n", flags.case_path, c.summary(limits));
  return 0;
}

}  // namespace haloflow::cases
