#pragma once
// What `haloflow run` leaves behind and shows while it runs: the run directory (never reused
// without --force), the machine a run was on, and the progress line.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace haloflow::outputs {

//! \throws Error when `directory` exists (or is not a directory) and `force` is false; nothing is
//! written then. Otherwise creates it (and its parents).
void prepare_run_directory(const std::filesystem::path& directory, bool force);

//! The versions of haloflow and the libraries it was built with, for results.json and info.
nlohmann::json versions();

//! hostname, device name (or "none"), date (UTC, ISO 8601), MPI library.
nlohmann::json machine_description(const std::string& device_name);

//! Rank 0's progress: on a terminal one line rewritten in place (step, steps/s, time left);
//! otherwise a plain line every `every` steps and at the last.
class Progress {
 public:
  //! Writes to `to` (not owned). `first`: the steps already done when the run started (a
  //! restart), left out of the rate.
  Progress(std::string what, int every, bool enabled, std::FILE* to = stdout, long first = 0);
  void update(long done, long total);

 private:
  std::string what_;
  int every_;
  bool enabled_;
  std::FILE* to_;
  bool terminal_;
  long first_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace haloflow::outputs
