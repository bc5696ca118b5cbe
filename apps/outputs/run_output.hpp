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

//! The versions of haloflow and the libraries it was built with, for results.json and info.
nlohmann::json versions();

//! hostname, device name (or "none"), date (UTC, ISO 8601), MPI library (the first line of
//! MPI_Get_library_version), each a clean string (clean_text).
nlohmann::json machine_description(const std::string& device_name);

//! This machine's host name, cleaned (clean_text); "" when it has none.
[[nodiscard]] std::string host_name();

//! The date and time now, UTC, ISO 8601 ("2026-12-01T23:40:00Z").
[[nodiscard]] std::string utc_date_now();

//! The MPI library's version: the first line of MPI_Get_library_version, cleaned.
[[nodiscard]] std::string mpi_library_version();

//! `text` with tabs, newlines and runs of spaces made single spaces, other control characters
//! dropped, and no space at either end: a string a JSON reader or a terminal shows as it is.
[[nodiscard]] std::string clean_text(std::string_view text);

//! Writes `text` to standard output and flushes it, never throwing: a closed pipe (`| head -1`)
//! or a full device must not end a run and lose its results. After the first failure nothing more
//! is written there; console_failure() says what happened.
void print_out(std::string_view text);

//! "" while standard output took everything; else what failed, e.g. "standard output could not be
//! written (Broken pipe)".
[[nodiscard]] std::string console_failure();

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
  void emit(std::string_view text);  //!< never throws: see print_out

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
