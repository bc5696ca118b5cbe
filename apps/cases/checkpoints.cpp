#include "checkpoints.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include "checkpoint.hpp"
#include "collective.hpp"
#include "haloflow/error.hpp"

namespace haloflow::cases {
namespace {

// What a checkpoint must match: the model and its section (not the run section: a restart may run
// more steps or write other outputs).
std::uint64_t case_hash(const CaseFile& c) {
  const std::string text = std::string(c.model->name()) + "\n" + c.model->resolved_section().dump();
  return outputs::fnv1a64(text.data(), text.size());
}

}  // namespace

void set_up_checkpoints(const CaseFile& c, const std::string& restart,
                        const std::filesystem::path& out, const MpiSession& mpi,
                        models::RunOptions& o, nlohmann::json& results) {
  const std::uint64_t hash = case_hash(c);
  const int rank = mpi.world_rank();
  const int ranks = mpi.world_size();
  if (!restart.empty()) {
    const std::filesystem::path from = std::filesystem::path(restart) / "checkpoints";
    int step = -1;
    if (rank == 0) step = outputs::newest_complete_checkpoint(from);
    HALOFLOW_MPI(MPI_Bcast(&step, 1, MPI_INT, 0, MPI_COMM_WORLD), "the restart step");
    if (step < 0) {
      throw CollectiveError(fmt::format(
          "--restart {}: no complete checkpoint in {} (run with run.checkpoint_every or "
          "--checkpoint-every first)",
          restart, from.string()));
    }
    std::string failure;
    try {
      o.restart_state = outputs::read_checkpoint(
          from, {.case_hash = hash, .rank = rank, .ranks = ranks, .step = step});
      if (step > c.run.steps) {
        failure = fmt::format(
            "--restart {}: its newest checkpoint is of step {}, after this run's "
            "last ({} steps; raise --steps)",
            restart, step, c.run.steps);
      }
    } catch (const Error& error) {
      failure = fmt::format("--restart {}: {}", restart, error.what());
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
      outputs::write_checkpoint(
          directory, {.case_hash = hash, .rank = rank, .ranks = ranks, .step = done}, state);
    } catch (const Error& write_error) {
      failure = write_error.what();
    }
    agree_everywhere(failure, mpi);  // every rank's file is on disk before the marker
    if (rank == 0) outputs::mark_checkpoint_complete(directory, done, ranks);
  };
  if (rank == 0) {
    results["checkpoints"] = {{"directory", "checkpoints"}, {"every", c.run.checkpoint_every}};
  }
}

}  // namespace haloflow::cases
