#pragma once
// Where `haloflow run` writes: the run directory chosen and made before the run (rank 0 decides,
// every rank learns it), and, for --force, the rerun written beside the previous run and put in
// its place only after it completed (outputs/run_directory.hpp says what is haloflow's).

#include <filesystem>
#include <string>

#include "case_file.hpp"
#include "collective.hpp"
#include "haloflow/mpi_session.hpp"
#include "run_flags.hpp"

namespace haloflow::cases {

class RunPlace {
 public:
  //! Chooses and makes the run directory on rank 0 and tells every rank; sets c.run.output to
  //! where the run will be found. A case read from inside the directory it names (a run's own
  //! case.resolved.json) runs into the next free numbered directory beside it (never replacing
  //! the run it was read from). \throws CollectiveError on every rank for a refusal: a symbolic
  //! link, something that is not a run directory, an existing one without --force, what
  //! haloflow did not write inside one to replace. Nothing is changed then.
  static RunPlace prepare(CaseFile& c, const RunFlags& flags, const MpiSession& mpi,
                          Seconds timeout);
  //! prepare() for a study of several runs (converge, sweep) of the case at `case_path`, whose
  //! first point is `first`: into `out`, or runs/<command>_<case name> when `out` is empty.
  static RunPlace prepare_study(CaseFile& first, const std::string& command,
                                const std::string& case_path, const std::string& out, bool force,
                                const MpiSession& mpi);

  //! Where the run will be found once it completed (c.run.output).
  [[nodiscard]] const std::filesystem::path& out() const { return out_; }
  //! Where the run writes meanwhile: out(), or for a forced rerun the directory beside it.
  [[nodiscard]] const std::filesystem::path& work() const { return work_; }
  //! Whether the run replaces a previous run once it completed.
  [[nodiscard]] bool replaces() const { return work_ != out_; }
  //! Said once before the run (rank 0), e.g. why the directory is not the one the case names.
  [[nodiscard]] const std::string& note() const { return note_; }

  //! Rank 0, after the run completed: a rerun takes the previous run's place. \returns a note
  //! for the user, "" when there is nothing to say.
  [[nodiscard]] std::string complete() const;
  //! Rank 0, after the run failed: a rerun is removed (the previous run was never touched).
  //! Never throws; \returns what the user should know.
  [[nodiscard]] std::string discard() const;

 private:
  std::filesystem::path out_;
  std::filesystem::path work_;
  std::string note_;
};

}  // namespace haloflow::cases
