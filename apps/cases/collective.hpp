#pragma once
// What every rank of a command must agree on: the case (rank 0 reads it and broadcasts the text),
// and whether a step failed anywhere (the lowest failing rank's message, on every rank). An
// error every rank reached alike is a CollectiveError: rank 0 reports it, no rank aborts.

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>

#include "case_file.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"

namespace haloflow::cases {

using Seconds = std::chrono::duration<double>;

//! How long the collectives before a case is read (its broadcast) wait, unless --timeout says.
inline constexpr Seconds kDefaultTimeout{60};

//! An error every rank reached alike (a bad case file): rank 0 reports it, no rank aborts.
class CollectiveError : public Error {
 public:
  using Error::Error;
};

//! Rank 0 reads the case file and broadcasts its text, so that every rank reads the same case;
//! then every rank parses it, lets `adjust` change the document (the command line's overrides)
//! and reads it, naming it `source` in the reader's messages (default: `path`; with overrides,
//! source_with says so). The broadcast waits at most `timeout` for the other ranks.
//! \throws CollectiveError on every rank for an unreadable or bad case; Error naming the ranks
//! that did not take part in time.
[[nodiscard]] CaseFile read_case_everywhere(const std::string& path, const MachineLimits& limits,
                                            const MpiSession& mpi, Seconds timeout,
                                            const std::function<void(nlohmann::json&)>& adjust = {},
                                            const std::string& source = {});

//! The same outcome on every rank: when any rank's `failure` is not empty, the lowest such rank's
//! message is thrown on every rank as a CollectiveError. Collective over MPI_COMM_WORLD, each call
//! bounded by `timeout`; `what` names the agreement in a timeout's message ("the checkpoint of
//! step 100"). \throws Error naming the ranks not heard from on a timeout.
void agree_everywhere(const std::string& failure, const MpiSession& mpi, Seconds timeout,
                      const std::string& what);

//! Runs `step` on rank 0 only, and throws its Error's message on every rank (CollectiveError).
template <class Step>
void on_root_everywhere(const MpiSession& mpi, Seconds timeout, const std::string& what,
                        Step&& step) {
  std::string failure;
  if (mpi.world_rank() == 0) {
    try {
      step();
    } catch (const Error& error) {
      failure = error.what();
    }
  }
  agree_everywhere(failure, mpi, timeout, what);
}

}  // namespace haloflow::cases
