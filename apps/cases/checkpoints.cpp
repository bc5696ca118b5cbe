#include "checkpoints.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>

#include "checkpoint.hpp"
#include "collective.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "output_files.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

// What a checkpoint must match: the model and its section (not the run section: a restart may run
// more steps or write other outputs).
std::uint64_t case_hash(const CaseFile& c) {
  const std::string text = std::string(c.model->name()) + "\n" + c.model->resolved_section().dump();
  return outputs::fnv1a64(text.data(), text.size());
}

Seconds timeout_of(const CaseFile& c) {
  return Seconds(c.run.timeout_s);
}

// Rank 0's list of complete checkpoints (newest first), on every rank; rank 0 also checks that
// `restart` is a directory. \throws CollectiveError when it is not.
std::vector<int> complete_steps_everywhere(const CaseFile& c, const std::string& restart,
                                           const std::filesystem::path& from,
                                           const MpiSession& mpi) {
  std::vector<int> steps;
  on_root_everywhere(mpi, timeout_of(c), "the restart directory", [&] {
    std::error_code error;
    const auto status = std::filesystem::status(restart, error);
    if (!std::filesystem::exists(status)) {
      throw Error(fmt::format("--restart {}: no such directory", input::printable(restart, 300)));
    }
    if (!std::filesystem::is_directory(status)) {
      throw Error(
          fmt::format("--restart {}: is not a directory; expected a run directory (with "
                      "checkpoints/ in it)",
                      input::printable(restart, 300)));
    }
    steps = outputs::complete_checkpoints(from);
  });
  const BoundedCollectives world(MPI_COMM_WORLD, timeout_of(c));
  int count = static_cast<int>(steps.size());
  world.broadcast(&count, 1, MPI_INT, 0, "the complete checkpoints (how many)");
  steps.resize(static_cast<std::size_t>(count));
  world.broadcast(steps.data(), count, MPI_INT, 0, "the complete checkpoints");
  return steps;
}

// After the checkpoint of `refused` was refused: the newest other complete checkpoint older than
// it whose every rank file is intact, as advice; collective.
std::string older_intact(const CaseFile& c, const std::string& restart,
                         const std::vector<int>& steps, int refused,
                         const outputs::CheckpointKey& key) {
  const BoundedCollectives world(MPI_COMM_WORLD, timeout_of(c));
  for (const int step : steps) {
    if (step >= refused) continue;
    int mine = 1;
    try {
      outputs::CheckpointKey older = key;
      older.step = step;
      (void)outputs::read_checkpoint(std::filesystem::path(restart) / "checkpoints", older);
    } catch (const Error&) {
      mine = 0;
    }
    int all = 0;
    world.allreduce(&mine, &all, 1, MPI_INT, MPI_MIN,
                    fmt::format("checking the checkpoint of step {}", step));
    if (all == 1) {
      return fmt::format(
          "; the older checkpoint of step {} is complete and intact: continue from it with "
          "--restart {} --step {}",
          step, input::printable(restart, 300), step);
    }
  }
  return "; no older complete checkpoint is intact either";
}

}  // namespace

Restart choose_restart(const CaseFile& c, const std::string& restart, int step,
                       const MpiSession& mpi) {
  const std::string shown = input::printable(restart, 300);
  Restart chosen{.from = std::filesystem::path(restart) / "checkpoints"};
  const std::vector<int> steps = complete_steps_everywhere(c, restart, chosen.from, mpi);
  if (steps.empty()) {
    throw CollectiveError(
        fmt::format("--restart {}: no complete checkpoint in {} (run with run.checkpoint_every or "
                    "--checkpoint-every first)",
                    shown, input::printable(chosen.from.string(), 300)));
  }
  if (step >= 0 && std::find(steps.begin(), steps.end(), step) == steps.end()) {
    throw CollectiveError(
        fmt::format("--restart {} --step {}: no complete checkpoint of step {}; "
                    "the complete ones are of steps {}",
                    shown, step, step, fmt::join(steps, ", ")));
  }
  chosen.step = step >= 0 ? step : steps.front();
  if (chosen.step > c.run.steps) {
    throw CollectiveError(fmt::format(
        "--restart {}: its checkpoint is of step {}, after this run's last ({} steps; raise "
        "--steps)",
        shown, chosen.step, c.run.steps));
  }
  if (chosen.step == c.run.steps) {
    throw CollectiveError(fmt::format(
        "--restart {}: nothing to do: its checkpoint of step {} is this run's last step ({} "
        "steps); raise --steps to continue",
        shown, chosen.step, c.run.steps));
  }
  const outputs::CheckpointKey key{.case_hash = case_hash(c),
                                   .rank = mpi.world_rank(),
                                   .ranks = mpi.world_size(),
                                   .step = chosen.step};
  std::string failure;
  try {
    chosen.state = outputs::read_checkpoint(chosen.from, key);
  } catch (const Error& error) {
    failure = error.what();
  }
  try {
    agree_everywhere(failure, mpi, timeout_of(c),
                     fmt::format("the checkpoint files of step {}", chosen.step));
  } catch (const CollectiveError& refusal) {
    const std::string advice = older_intact(c, restart, steps, chosen.step, key);
    throw CollectiveError(fmt::format("--restart {}: {}{}", shown, refusal.what(), advice));
  }
  return chosen;
}

void set_up_checkpoints(const CaseFile& c, const Restart* restart, const std::filesystem::path& out,
                        const MpiSession& mpi, models::RunOptions& o, nlohmann::json& results) {
  const int rank = mpi.world_rank();
  const int ranks = mpi.world_size();
  if (restart != nullptr) {
    o.restart_state = restart->state;
    o.restart_step = restart->step;
    if (rank == 0) {
      fmt::print("haloflow: restarting from the checkpoint of step {} in {}\n", restart->step,
                 restart->from.string());
      results["restart"] = {{"from", restart->from.string()}, {"step", restart->step}};
    }
  }
  if (c.run.checkpoint_every <= 0) return;
  const auto directory = out / "checkpoints";
  on_root_everywhere(mpi, timeout_of(c), "the checkpoint directory",
                     [&] { outputs::make_run_subdirectory(out, "checkpoints"); });
  o.checkpoint_every = c.run.checkpoint_every;
  const std::uint64_t hash = case_hash(c);
  const Seconds timeout = timeout_of(c);
  o.checkpoint = [directory, out, hash, rank, ranks, timeout, &mpi](
                     int done, const std::vector<unsigned char>& state) {
    std::string failure;
    try {
      outputs::write_checkpoint(
          directory, out, {.case_hash = hash, .rank = rank, .ranks = ranks, .step = done}, state);
    } catch (const Error& write_error) {
      failure = write_error.what();
    }
    // Every rank's file is on disk before the marker.
    agree_everywhere(failure, mpi, timeout, fmt::format("the checkpoint of step {}", done));
    if (rank == 0) outputs::mark_checkpoint_complete(directory, out, done, ranks);
  };
  if (rank == 0) {
    results["checkpoints"] = {{"directory", "checkpoints"}, {"every", c.run.checkpoint_every}};
  }
}

}  // namespace haloflow::cases
