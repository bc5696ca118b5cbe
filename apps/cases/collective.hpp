#pragma once
// What every rank of a command must agree on: the case (rank 0 reads it and broadcasts the text),
// and whether a step failed anywhere (the lowest failing rank's message, on every rank). An
// error every rank reached alike is a CollectiveError: rank 0 reports it, no rank aborts.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

#include "case_file.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {

//! An error every rank reached alike (a bad case file): rank 0 reports it, no rank aborts.
class CollectiveError : public Error {
 public:
  using Error::Error;
};

//! Rank 0 reads the case file and broadcasts its text, so that every rank reads the same case;
//! then every rank parses it, lets `adjust` change the document (the command line's overrides)
//! and reads it. \throws CollectiveError on every rank for an unreadable or bad case.
[[nodiscard]] CaseFile read_case_everywhere(
    const std::string& path, const MachineLimits& limits, const MpiSession& mpi,
    const std::function<void(nlohmann::json&)>& adjust = {});

//! The same outcome on every rank: when any rank's `failure` is not empty, the lowest such rank's
//! message is thrown on every rank as a CollectiveError. Collective over MPI_COMM_WORLD.
void agree_everywhere(const std::string& failure, const MpiSession& mpi);

//! Runs `step` on rank 0 only, and throws its Error's message on every rank (CollectiveError).
template <class Step>
void on_root_everywhere(const MpiSession& mpi, Step&& step) {
  std::string failure;
  if (mpi.world_rank() == 0) {
    try {
      step();
    } catch (const Error& error) {
      failure = error.what();
    }
  }
  agree_everywhere(failure, mpi);
}

}  // namespace haloflow::cases
