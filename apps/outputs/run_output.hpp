#pragma once
// What `haloflow run` leaves behind and shows while it runs: the run directory (never reused
// without --force), the machine a run was on, and the progress line.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace haloflow::outputs {

//! \throws Error when `directory` exists (or is not a directory) and `force` is false; nothing is
//! written then. Otherwise creates it (and its parents).
void prepare_run_directory(const std::filesystem::path& directory, bool force);

//! The versions of haloflow and the libraries it was built with, for results.json and info.
nlohmann::json versions();

//! hostname, device name (or "none"), date (UTC, ISO 8601), MPI library (the first line of
//! MPI_Get_library_version), each a clean string (clean_text).
nlohmann::json machine_description(const std::string& device_name);

//! The MPI library's version: the first line of MPI_Get_library_version, cleaned.
[[nodiscard]] std::string mpi_library_version();

//! `text` with tabs, newlines and runs of spaces made single spaces, other control characters
//! dropped, and no space at either end: a string a JSON reader or a terminal shows as it is.
[[nodiscard]] std::string clean_text(std::string_view text);

//! Rank 0's progress: on a terminal one line rewritten in place (step, steps/s, time left);
//! otherwise a plain line each time the steps done pass a multiple of `every` (a frame may take
//! several steps, so the line may say 11 where it passed 10), and at the last.
class Progress {
 public:
  //! Writes to `to` (not owned). `first`: the steps already done when the run started (a
  //! restart), left out of the rate.
  Progress(std::string what, int every, bool enabled, std::FILE* to = stdout, long first = 0);
  void update(long done, long total);
  //! Prints `line` (ending in a newline) where the progress line would not garble it.
  void say(std::string_view line);

 private:
  std::string what_;
  int every_;
  bool enabled_;
  std::FILE* to_;
  bool terminal_;
  long first_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;  //!< a terminal's progress line is on screen, unfinished
  long printed_ = 0;    //!< the steps done at the last plain line (or the start)
};

}  // namespace haloflow::outputs
