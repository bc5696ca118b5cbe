#pragma once
// `haloflow run` and `haloflow validate`: the one path from a case file to results, for every
// model. case -> model (read once, apps/models) -> executors (chosen in one place) -> the model's
// frames and steps, with outputs and checkpoints -> a typed result -> its views (the report,
// results.json, the benchmark line).

#include <string>

#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {

//! What the command line asks of `haloflow run` beyond the case; empty or negative: the case's.
struct RunFlags {
  std::string case_path;
  std::string executor;
  int frames = 0;  //!< the seed's frames per executor, or a model's steps
  int steps = 0;   //!< a model's steps, or the seed's frames
  std::string out;
  std::string json_path;  //!< also write the executor comparison here
  std::string dot_path;   //!< also write the plans of the frames as Graphviz DOT
  bool force = false;
  bool vtk = false;
  bool png = false;
  int checkpoint_every = -1;
  std::string restart;    //!< a run directory whose newest complete checkpoint to continue
  int restart_step = -1;  //!< --step: continue from this complete checkpoint instead
  std::string dump;       //!< rank 0 writes the final global field here (raw)
  int output_every = -1;
  std::string handoff;    //!< the exchange's handoff (auto, host-node, proxy)
  std::string transport;  //!< the exchange's transport (auto, mpi, nccl)
  double timeout_s = 0;   //!< every exchange's and collective's bound; 0: the case's
};

//! Runs a case into a run directory, on every rank. \returns the exit status.
//! \throws CollectiveError for a bad case or a refused output (every rank alike), Error for a
//! failed run.
int run_case(const RunFlags& flags, const MpiSession& mpi);

struct ValidateFlags {
  std::string case_path;
  int ranks = 0;          //!< 0: the MPI world size
  double memory_gib = 0;  //!< 0: the device's, or 16 GiB without one
};

//! Checks a case file, every problem at once; 0 when valid.
int validate_case(const ValidateFlags& flags, const MpiSession& mpi);

}  // namespace haloflow::cases
