#pragma once
// A case model behind one interface: the seed, jacobi2d, heat3d and euler2d each implement it once,
// in their own folder (apps/models/NAME), and are registered by one line of model_list.hpp.
//
// A model reads and checks its section of a case (the one reader `haloflow run`, `validate` and
// `replay` share, defaults next to the reader), says what it needs of the machine, builds its
// frames and steps them, and returns a typed result. Printing, results.json and the benchmark
// line are views of that result; nothing a model prints is read back.

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "haloflow/frame.hpp"
#include "json_fields.hpp"
#include "run_options.hpp"
#include "run_shape.hpp"

namespace haloflow::models {

using input::JsonFields;

//! What a case must fit: how many ranks run it and how much memory each rank has.
struct MachineLimits {
  int ranks = 1;
  double memory_gib = 16;
};

//! How a result is shown: the copy kernel's rates the achieved bandwidth and the floors are
//! taken against (bandwidth_floors.hpp).
struct ReportOptions {
  //! Bytes/s read + written by the copy kernel over buffers far larger than the L2 on this
  //! machine (measured: see copy_bandwidth.hpp); 0: none, and no fraction is shown (a CPU run, or
  //! not measured).
  double copy_bandwidth = 0;
  //! The same kernel over two buffers that fit in the L2 together; 0: not measured.
  double l2_copy_bandwidth = 0;
  //! The L2's size in bytes; 0: unknown (no step is taken to be L2-resident).
  double l2_bytes = 0;
};

//! The global field rank 0 gathered (RunOptions::gather): float or double values, x fastest.
using GlobalField = std::variant<std::span<const float>, std::span<const double>>;

//! What a run found, as typed values; the views below are all the command shows of it.
class ModelResult {
 public:
  virtual ~ModelResult() = default;
  //! What rank 0 prints: the model's own lines, its times and the benchmark line.
  [[nodiscard]] virtual std::string report(const ReportOptions& options) const = 0;
  //! The report less what was said as the run went (RunListener::say: the header and the
  //! per-step lines), for a command that printed those already.
  [[nodiscard]] virtual std::string closing(const ReportOptions& options) const {
    return report(options);
  }
  //! Adds the model's entries to results.json (rank 0).
  virtual void add_to(nlohmann::json& results, const ReportOptions& options) const = 0;
  //! The timed steps (for the comparison of executors); null when the run did not step in time.
  [[nodiscard]] virtual const StepTimes* times() const = 0;
  //! The field rank 0 gathered; empty spans when none was asked for (or on other ranks).
  [[nodiscard]] virtual GlobalField field() const { return std::span<const double>(); }
  //! Why the result is wrong (the seed: a grid that differs from the host reference); empty when
  //! it is right.
  [[nodiscard]] virtual std::string failure() const { return {}; }
};

//! The case's run.steps and run.warmup (-1: the executor's default, default_warmup()).
struct Stepping {
  int steps = 0;
  int warmup = -1;
};

//! What `haloflow run` asks of a model: run on each of `executors` (one; or several compared,
//! --executor all). `options(i)` gives the options of the run on executors[i]: the first run is
//! the run (outputs, checkpoints, restart, progress), the others are timed only.
struct RunRequest {
  std::vector<ExecutorKind> executors;
  std::function<RunOptions(std::size_t index)> options;
};

//! One case model. Read first (read_section, read_run, check_rules, check_machine), then run.
class Model {
 public:
  virtual ~Model() = default;
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  Model(Model&&) = delete;
  Model& operator=(Model&&) = delete;

  //! The model's name: a case's "model", and its section's key.
  [[nodiscard]] virtual std::string_view name() const = 0;

  // --- The case. Each reader reports its problems into `fields`, naming the JSON pointer.
  //! Reads the model's section (at /NAME; an empty object when the case has none) of the case
  //! named `case_name`.
  virtual void read_section(JsonFields& fields, const nlohmann::json& section,
                            const std::string& case_name) = 0;
  //! Rules across the section's fields (heat3d's stable time step); only when it read cleanly.
  virtual void check_rules(JsonFields& /*fields*/) {}
  //! The kind of run the model makes (whether it steps in time, its run keys and defaults, the
  //! field it writes), its section as read so far (a fresh model's: its defaults).
  [[nodiscard]] virtual RunShape run_shape() const = 0;
  //! Reads the model's own keys of the run section (RunShape::own_run_keys).
  virtual void read_run(JsonFields& /*fields*/, const nlohmann::json& /*run*/) {}
  //! Whether the case fits the machine (ranks per axis, memory per rank); sets bytes_per_rank().
  virtual void check_machine(JsonFields& fields, const MachineLimits& limits) = 0;
  //! The memory one rank needs, estimated by check_machine().
  [[nodiscard]] virtual double bytes_per_rank() const = 0;
  //! The section with every default filled in, as case.resolved.json holds it.
  [[nodiscard]] virtual nlohmann::json resolved_section() const = 0;
  //! The part of the resolved section a checkpoint must agree with to restart from it (hashed
  //! into the checkpoint's header): by default all of it; a model leaves out the settings that
  //! change how it steps but not the state it saves.
  [[nodiscard]] virtual nlohmann::json checkpoint_section() const { return resolved_section(); }
  //! The model's own run keys, resolved (added to the resolved case's run section).
  virtual void resolve_run(nlohmann::json& /*run*/) const {}
  //! Sizes for validate's summary ("256 x 256 float").
  [[nodiscard]] virtual std::string sizes() const = 0;
  //! How long the case runs, for validate's summary ("100 steps").
  [[nodiscard]] virtual std::string length(int steps) const;

  // --- Running, on every rank of the communicator.
  //! `--executor all` on this machine: the executors compared, in order.
  [[nodiscard]] virtual std::vector<ExecutorKind> all_executors(bool have_gpu) const;
  //! What `haloflow run` does with the case. The default runs run_steps() on each executor in
  //! turn and adds the comparison; the seed measures its executors frame by frame instead.
  [[nodiscard]] virtual std::unique_ptr<ModelResult> run(const RunRequest& request,
                                                         MPI_Comm communicator) const;
  //! Builds the model's frames on `options.executor` and runs `options.steps` steps (after
  //! `options.warmup`); `options.listener` is told of every frame and step (replay records them).
  [[nodiscard]] virtual std::unique_ptr<ModelResult> run_steps(const RunOptions& options,
                                                               MPI_Comm communicator) const = 0;
  //! The steps (frames) a replay records unless told, and the warm-up before them, on
  //! `executor`: by default the case's run.steps and run.warmup (`stepping`).
  [[nodiscard]] virtual Stepping replay_length(ExecutorKind executor,
                                               const Stepping& stepping) const;
};

//! The registered models' names, in the order messages list them (seed, jacobi2d, heat3d,
//! euler2d).
[[nodiscard]] const std::vector<std::string>& model_names();

//! A fresh model of that name, defaults in place; null for a name no model has.
[[nodiscard]] std::unique_ptr<Model> make_model(std::string_view name);

}  // namespace haloflow::models
