#pragma once
// `haloflow run` and `haloflow validate`: the one path from a case file to results, for every
// model. case -> model (read once, apps/models) -> executors (chosen in one place) -> the model's
// frames and steps, with outputs and checkpoints -> a typed result -> its views (the report,
// results.json, the benchmark line).

#include <string>

#include "haloflow/mpi_session.hpp"
#include "run_flags.hpp"

namespace haloflow::cases {

//! Runs a case into a run directory, on every rank, and ends the MPI session (MpiSession::finish,
//! bounded by the case's timeout). \returns the exit status: 0, or 128 + the signal when
//! SIGINT/SIGTERM stopped it between frames (results.json says "interrupted").
//! \throws CollectiveError for a bad case or a refused output (every rank alike), Error for a
//! failed run.
int run_case(const RunFlags& flags, MpiSession& mpi);

struct ValidateFlags {
  std::string case_path;
  int ranks = 0;          //!< 0: the MPI world size
  double memory_gib = 0;  //!< 0: the device's, or this machine's memory over --ranks
};

//! Checks a case file, every problem at once; 0 when valid.
int validate_case(const ValidateFlags& flags, MpiSession& mpi);

}  // namespace haloflow::cases
