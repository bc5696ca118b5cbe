#include "checkpoints.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <optional>

#include "checkpoint.hpp"
#include "collective.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/error.hpp"
#include "json_fields.hpp"
#include "json_input.hpp"
#include "output_files.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

// What a checkpoint must match: the model and its section (not the run section: a restart may run
// more steps or write other outputs).
std::uint64_t case_hash(const CaseFile& c) {
  const std::string text =
      std::string(c.model->name()) + "\n" + c.model->checkpoint_section().dump();
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

// The steps of a message, the first kShownProblems of them.
std::string steps_text(const std::vector<int>& steps) {
  const std::size_t shown = std::min(steps.size(), input::kShownProblems);
  std::string text = fmt::format("{}", fmt::join(steps.begin(), steps.begin() + shown, ", "));
  if (steps.size() > shown) text += fmt::format(" and {} more", steps.size() - shown);
  return text;
}

// A rank's refusal of its checkpoint file: none (problem empty), or why.
struct Refusal {
  std::optional<outputs::CheckpointProblem> problem;
  std::string message;
};

Refusal read_refusal(const std::filesystem::path& from, const outputs::CheckpointKey& key,
                     std::vector<unsigned char>* state) {
  try {
    auto payload = outputs::read_checkpoint(from, key);
    if (state != nullptr) *state = std::move(payload);
  } catch (const outputs::CheckpointError& error) {
    return {.problem = error.problem(), .message = error.what()};
  } catch (const Error& error) {
    return {.problem = outputs::CheckpointProblem::unreadable, .message = error.what()};
  }
  return {};
}

// The refusal of the lowest rank that refused, on every rank (none when every rank accepted);
// collective, each call bounded by `timeout`.
Refusal first_refusal(const Refusal& mine, const MpiSession& mpi, Seconds timeout,
                      const std::string& what) {
  if (mpi.world_size() == 1) return mine;
  const BoundedCollectives world(MPI_COMM_WORLD, timeout);
  const int me = mine.problem ? mpi.world_rank() : mpi.world_size();
  int first = me;
  world.allreduce(&me, &first, 1, MPI_INT, MPI_MIN, what + " (the ranks' verdicts)");
  if (first == mpi.world_size()) return {};
  int problem = mine.problem ? static_cast<int>(*mine.problem) : 0;
  world.broadcast(&problem, 1, MPI_INT, first, what + " (the refusal's cause)");
  std::string message = mine.message;
  unsigned long long length = message.size();
  world.broadcast(&length, 1, MPI_UNSIGNED_LONG_LONG, first, what + " (the refusal's length)");
  message.resize(length);
  world.broadcast(message.data(), static_cast<int>(length), MPI_CHAR, first,
                  what + " (the refusal)");
  return {.problem = static_cast<outputs::CheckpointProblem>(problem), .message = message};
}

bool is_mismatch(const Refusal& refusal) {
  return refusal.problem == outputs::CheckpointProblem::mismatch;
}

// After the checkpoint of `refused` was refused (`why`): what the older complete checkpoints
// offer, as advice. The newest older one that is intact and fits this run is named; otherwise
// what keeps the older ones out, by its real cause: intact ones of another case or rank count
// are said to be that, never "not intact". Collective.
std::string older_advice(const CaseFile& c, const std::string& restart,
                         const std::vector<int>& steps, int refused, const Refusal& why,
                         const outputs::CheckpointKey& key, const MpiSession& mpi) {
  std::vector<int> older;
  for (const int step : steps) {
    if (step < refused) older.push_back(step);
  }
  if (older.empty()) return is_mismatch(why) ? "" : "; there is no older complete checkpoint";
  std::vector<int> misfits;
  std::string misfit;
  for (const int step : older) {
    outputs::CheckpointKey older_key = key;
    older_key.step = step;
    const Refusal refusal = first_refusal(
        read_refusal(std::filesystem::path(restart) / "checkpoints", older_key, nullptr), mpi,
        timeout_of(c), fmt::format("checking the checkpoint of step {}", step));
    if (!refusal.problem) {
      return fmt::format(
          "; the older checkpoint of step {} is complete and intact: continue from it with "
          "--restart {} --step {}",
          step, input::printable(restart, 300), step);
    }
    if (is_mismatch(refusal)) {
      if (misfits.empty()) misfit = refusal.message;
      misfits.push_back(step);
    }
  }
  if (misfits.empty()) return "; no older complete checkpoint is intact either";
  if (is_mismatch(why)) {
    return fmt::format(
        "; the older complete checkpoint{} of step{} {} do{} not fit this run either",
        misfits.size() == 1 ? "" : "s", misfits.size() == 1 ? "" : "s", steps_text(misfits),
        misfits.size() == 1 ? "es" : "");
  }
  return fmt::format(
      "; the older complete checkpoint{} of step{} {} {} intact but do{} not fit this run: {}",
      misfits.size() == 1 ? "" : "s", misfits.size() == 1 ? "" : "s", steps_text(misfits),
      misfits.size() == 1 ? "is" : "are", misfits.size() == 1 ? "es" : "", misfit);
}

// For a checkpoint of another case: the fields of the model's section in which the restart
// directory's case.resolved.json (the case the checkpoints were written for) differs from this
// case; empty when that file cannot be read or tells nothing.
std::string section_differences(const CaseFile& c, const std::string& restart) {
  nlohmann::json before;
  try {
    const auto path = std::filesystem::path(restart) / "case.resolved.json";
    before = input::parse_json(input::read_json_text(path, "a resolved case", ""), path.string());
  } catch (const Error&) {
    return {};
  }
  const std::string model(c.model->name());
  if (!before.is_object() || !before.contains("model")) return {};
  if (before["model"] != model) {
    return fmt::format(
        " (its run directory's case.resolved.json is of model {}; this case's is {})",
        input::shown(before["model"]), model);
  }
  if (!before.contains(model) || !before[model].is_object()) return {};
  const nlohmann::json now = c.model->checkpoint_section();
  std::vector<std::string> differences;
  std::size_t count = 0;
  for (const auto& [field, value] : now.items()) {
    const auto there = before[model].find(field);
    if (there != before[model].end() && *there == value) continue;
    if (++count > input::kShownProblems) continue;
    differences.push_back(
        fmt::format("{} is {} there and {} here", input::pointer_to("/" + model, field),
                    there == before[model].end() ? std::string("unset") : input::shown(*there),
                    input::shown(value)));
  }
  if (differences.empty()) return {};
  std::string text = fmt::format(" (its run directory's case.resolved.json differs: {}",
                                 fmt::join(differences, "; "));
  if (count > differences.size()) text += "; " + input::more_problems(count - differences.size());
  return text + ")";
}

}  // namespace

Restart choose_restart(const CaseFile& c, const std::string& restart, int step,
                       const MpiSession& mpi) {
  const std::string shown = input::printable(restart, 300);
  Restart chosen{.from = std::filesystem::path(restart) / "checkpoints"};
  const std::vector<int> steps = complete_steps_everywhere(c, restart, chosen.from, mpi);
  // Rank files without their marker: a checkpoint the run stopped writing (the marker comes
  // after every rank's file), not a missing one. Rank 0 looks, as for the markers.
  const auto incomplete = [&](int only) {
    std::vector<int> found;
    if (mpi.world_rank() != 0) return found;
    for (const int with_files : outputs::checkpoint_steps_with_files(chosen.from)) {
      if (std::find(steps.begin(), steps.end(), with_files) != steps.end()) continue;
      if (only < 0 || with_files == only) found.push_back(with_files);
    }
    return found;
  };
  if (steps.empty()) {
    const std::vector<int> partial = incomplete(-1);
    throw CollectiveError(
        partial.empty()
            ? fmt::format("--restart {}: no complete checkpoint in {} (run with "
                          "run.checkpoint_every or --checkpoint-every first)",
                          shown, input::printable(chosen.from.string(), 300))
            : fmt::format("--restart {}: no complete checkpoint in {}: it holds rank files of "
                          "step{} {}, but no marker (step_N.complete) says that every rank wrote "
                          "its file (the run stopped while writing them)",
                          shown, input::printable(chosen.from.string(), 300),
                          partial.size() == 1 ? "" : "s", steps_text(partial)));
  }
  if (step >= 0 && std::find(steps.begin(), steps.end(), step) == steps.end()) {
    const bool partial = !incomplete(step).empty();
    throw CollectiveError(fmt::format(
        "--restart {} --step {}: no complete checkpoint of step {}{}; the complete ones are of "
        "steps {}",
        shown, step, step,
        partial ? " (its rank files are there, but no marker step_N.complete says that every rank "
                  "wrote its file: the run stopped while writing them)"
                : "",
        steps_text(steps)));
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
  const Refusal refusal =
      first_refusal(read_refusal(chosen.from, key, &chosen.state), mpi, timeout_of(c),
                    fmt::format("the checkpoint files of step {}", chosen.step));
  if (refusal.problem) {
    // Only rank 0's message is shown: it alone reads the restart directory's case.
    const bool other_case = is_mismatch(refusal) &&
                            refusal.message.find("written for another case") != std::string::npos;
    const std::string differences =
        other_case && mpi.world_rank() == 0 ? section_differences(c, restart) : std::string();
    const std::string advice = older_advice(c, restart, steps, chosen.step, refusal, key, mpi);
    throw CollectiveError(
        fmt::format("--restart {}: {}{}{}", shown, refusal.message, differences, advice));
  }
  return chosen;
}

CheckpointWriter::CheckpointWriter(const CaseFile& c, const std::filesystem::path& out,
                                   const MpiSession& mpi)
    : directory_(out / "checkpoints"),
      out_(out),
      hash_(case_hash(c)),
      rank_(mpi.world_rank()),
      ranks_(mpi.world_size()),
      timeout_(timeout_of(c)),
      mpi_(&mpi) {}

void CheckpointWriter::write(int done, const std::vector<unsigned char>& state) const {
  std::string failure;
  try {
    outputs::write_checkpoint(directory_, out_,
                              {.case_hash = hash_, .rank = rank_, .ranks = ranks_, .step = done},
                              state);
  } catch (const Error& write_error) {
    failure = write_error.what();
  }
  // Every rank's file is on disk before the marker.
  agree_everywhere(failure, *mpi_, timeout_, fmt::format("the checkpoint of step {}", done));
  if (rank_ == 0) outputs::mark_checkpoint_complete(directory_, out_, done, ranks_);
}

std::optional<CheckpointWriter> set_up_checkpoints(const CaseFile& c, const Restart* restart,
                                                   const std::filesystem::path& out,
                                                   const MpiSession& mpi, models::RunOptions& o,
                                                   nlohmann::json& results) {
  const int rank = mpi.world_rank();
  if (restart != nullptr) {
    o.restart_state = restart->state;
    o.restart_step = restart->step;
    if (rank == 0) {
      fmt::print("haloflow: restarting from the checkpoint of step {} in {}\n", restart->step,
                 input::printable(restart->from.string(), 300));
      results["restart"] = {{"from", restart->from.string()}, {"step", restart->step}};
    }
  }
  if (c.run.checkpoint_every <= 0) return std::nullopt;
  on_root_everywhere(mpi, timeout_of(c), "the checkpoint directory",
                     [&] { outputs::make_run_subdirectory(out, "checkpoints"); });
  o.checkpoint_every = c.run.checkpoint_every;
  if (rank == 0) {
    results["checkpoints"] = {{"directory", "checkpoints"}, {"every", c.run.checkpoint_every}};
  }
  return CheckpointWriter(c, out, mpi);
}

}  // namespace haloflow::cases
