#pragma once
// results.json of a run directory through the run's life, kept by rank 0: "running" from the
// start (what a run killed outright leaves behind), then "complete" (a rerun put in place of the
// previous run, the files announced), "failed" (with the error; a failed rerun is removed
// instead, the previous run untouched) or "interrupted". `haloflow run` and `haloflow converge`
// keep theirs through it.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <string_view>

#include "run_place.hpp"
#include "written_files.hpp"

namespace haloflow::cases {

class RunRecord {
 public:
  //! `results`: the command's own fields; "status" ("running") and "started" (date, host,
  //! process) are added. Nothing is written yet.
  RunRecord(const RunPlace& place, nlohmann::json results);

  [[nodiscard]] nlohmann::json& results() { return results_; }
  [[nodiscard]] outputs::WrittenFiles& written() { return written_; }

  //! Writes `text` as the run directory's file `name` and lists it.
  void write_file(const std::string& name, std::string_view text);
  //! Writes results.json as it stands (at the start: status running).
  void save();
  //! Status complete: results.json written and listed, a rerun put in place of the previous run,
  //! every file announced on standard output (under the run directory's final name).
  void complete();
  //! Status interrupted, with `details` (the signal, the steps done): results.json written and
  //! listed, as far as it can be (never throws: the interruption is what the user is told).
  void interrupted(nlohmann::json details) noexcept;
  //! After a failure: status failed with `error`, or a rerun removed (the previous run untouched,
  //! said on standard error). Never throws: the failure is what the user is told.
  void failed(const std::string& error) noexcept;

 private:
  void write_results(bool listed);

  const RunPlace& place_;
  nlohmann::json results_;
  outputs::WrittenFiles written_;
};

}  // namespace haloflow::cases
