#pragma once
// Checkpoints of a run and restarts from them: periodic checkpoints into RUN_DIR/checkpoints, and
// --restart, for which every rank reads its file of the newest complete checkpoint; any refusal
// is reported once, before the run starts.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "case_file.hpp"
#include "haloflow/mpi_session.hpp"
#include "run_options.hpp"

namespace haloflow::cases {

//! Sets `o` up for the case's checkpoints into `out` and, unless `restart` is empty, to continue
//! from the newest complete checkpoint of the run directory `restart`; rank 0 notes both in
//! `results`. Collective. \throws CollectiveError (every rank) when the restart is refused.
void set_up_checkpoints(const CaseFile& c, const std::string& restart,
                        const std::filesystem::path& out, const MpiSession& mpi,
                        models::RunOptions& o, nlohmann::json& results);

}  // namespace haloflow::cases
