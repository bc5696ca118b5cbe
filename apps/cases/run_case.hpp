#pragma once
// `haloflow run` and `haloflow validate`: the one path from a case file to results, for every
// model. case -> model (read once, apps/models) -> executors (chosen in one place) -> the model's
// frames and steps, with outputs and checkpoints -> a typed result -> its views (the report,
// results.json, the benchmark line).

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "haloflow/mpi_session.hpp"
#include "run_flags.hpp"

namespace haloflow::cases {

//! Runs a case into a run directory, on every rank, and ends the MPI session (MpiSession::finish,
//! bounded by the case's timeout). \returns the exit status: 0, or 128 + the signal when
//! SIGINT/SIGTERM stopped it between frames (results.json says "interrupted").
//! \throws CollectiveError for a bad case or a refused output (every rank alike), Error for a
//! failed run.
int run_case(const RunFlags& flags, MpiSession& mpi);

//! What one run left: its exit status (0, or 128 + a signal), the bound its ending collectives
//! take, its run directory and (rank 0, status 0) its results.json.
struct CaseRun {
  int status = 0;
  std::chrono::duration<double> timeout{60};
  std::filesystem::path out;
  nlohmann::json results;
};

//! run_case without ending the MPI session, for a command that runs several cases in one
//! (`haloflow sweep`). An interrupted run's status is 128 + the signal, as run_case's.
[[nodiscard]] CaseRun run_case_in_session(const RunFlags& flags, MpiSession& mpi);

struct ValidateFlags {
  std::string case_path;
  std::vector<std::string> sets;  //!< each --set PATH=VALUE as given
  int ranks = 0;                  //!< 0: the MPI world size
  double memory_gib = 0;          //!< 0: the device's, or this machine's memory over --ranks
};

//! Checks a case file, every problem at once; 0 when valid.
int validate_case(const ValidateFlags& flags, MpiSession& mpi);

}  // namespace haloflow::cases
