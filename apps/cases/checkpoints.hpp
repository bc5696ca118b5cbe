#pragma once
// Checkpoints of a run and restarts from them: periodic checkpoints into RUN_DIR/checkpoints, and
// --restart DIR [--step N], for which every rank reads and checks its file of the chosen complete
// checkpoint before any rank starts; any refusal is reported once, before the run starts, and a
// damaged checkpoint's refusal names an older one that is intact.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "collective.hpp"
#include "haloflow/mpi_session.hpp"
#include "run_options.hpp"

namespace haloflow::cases {

//! The checkpoint a run continues from.
struct Restart {
  std::filesystem::path from;        //!< RUN_DIR/checkpoints of --restart
  int step = 0;                      //!< the timed steps it holds
  std::vector<unsigned char> state;  //!< this rank's state
};

//! Chooses the checkpoint of the run directory `restart` to continue from: the newest complete
//! one, or the one of step `step` (>= 0, --step). Every rank reads and checks its file (header,
//! CRC-32, case, ranks) before any starts. Collective, each call bounded by the case's timeout.
//! \throws CollectiveError (every rank) when there is none, it is damaged (naming an older
//! intact one), it is past the run's last step, or it is the last step (nothing to do).
[[nodiscard]] Restart choose_restart(const CaseFile& c, const std::string& restart, int step,
                                     const MpiSession& mpi);

//! Writes a run's periodic checkpoints into RUN_DIR/checkpoints: every rank its file, then rank 0
//! the marker that says the checkpoint is complete, once every rank's file is on disk.
class CheckpointWriter {
 public:
  CheckpointWriter(const CaseFile& c, const std::filesystem::path& out, const MpiSession& mpi);
  //! This rank's `state` after `done` timed steps. Collective.
  //! \throws CollectiveError (every rank) when any rank could not write its file.
  void write(int done, const std::vector<unsigned char>& state) const;

 private:
  std::filesystem::path directory_;
  std::filesystem::path out_;
  std::uint64_t hash_;
  int rank_;
  int ranks_;
  Seconds timeout_;
  const MpiSession* mpi_;
};

//! Sets `o` up for the case's periodic checkpoints into `out` (the run directory) and to continue
//! from `restart` (when not null); rank 0 notes both in `results`. Collective. \returns the writer
//! of the checkpoints, none when the case takes none.
[[nodiscard]] std::optional<CheckpointWriter> set_up_checkpoints(
    const CaseFile& c, const Restart* restart, const std::filesystem::path& out,
    const MpiSession& mpi, models::RunOptions& o, nlohmann::json& results);

}  // namespace haloflow::cases
