#pragma once
// The haloflow command's subcommands: run, validate, replay, info. main.cpp parses the command
// line into these options and calls one of them, on every rank.

#include <nlohmann/json.hpp>

#include <string>

#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "replay.hpp"

namespace haloflow::app {

struct RunOptions {
  std::string case_path;
  std::string executor;  // empty: the case's
  int frames = 0;
  int steps = 0;
  std::string out;
  std::string json_path;
  std::string dot_path;
  bool force = false;
  bool vtk = false;
  bool png = false;
  int checkpoint_every = -1;  // -1: the case's
  std::string restart;        // a run directory whose newest complete checkpoint to continue
  std::string dump;           // rank 0 writes the final global field here (raw)
  int output_every = -1;      // -1: the case's
};

struct ValidateOptions {
  std::string case_path;
  int ranks = 0;          // 0: the MPI world size
  double memory_gib = 0;  // 0: the device's, or 16 GiB without one
};

// An error every rank reached alike (a bad case file): rank 0 reports it, no rank aborts.
class CollectiveError : public haloflow::Error {
 public:
  using haloflow::Error::Error;
};

//! Runs a case into a run directory (seed: each executor compared; models: the model).
int run_case(const RunOptions& options, const MpiSession& mpi);
//! Checks a case file, every problem at once; 0 when valid.
int validate_case(const ValidateOptions& options, const MpiSession& mpi);
//! Replays the seed case's frame with every node recorded.
int replay_case(const ReplayOptions& options, const MpiSession& mpi);
//! Describes the device, MPI and this build (rank 0 prints).
int show_info(const MpiSession& mpi);
//! The versions of haloflow and the libraries it was built with, for results.json and info.
nlohmann::json versions();

}  // namespace haloflow::app
