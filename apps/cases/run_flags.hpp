#pragma once
// What the command line of `haloflow run` asks beyond the case file, and how it is laid on the
// case document before the one case reader reads it (so that an override is checked as the case
// is, and a flag that does not apply to the case's model is an error).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace haloflow::cases {

//! What the command line asks of `haloflow run` beyond the case; empty or negative: the case's.
struct RunFlags {
  std::string case_path;
  std::string executor;
  int frames = 0;  //!< the seed's frames per executor, or a model's steps
  int steps = 0;   //!< a model's steps, or the seed's frames
  std::string out;
  //! Where the run will be found once the study it belongs to is in place (a point of a sweep
  //! replaced with --force, written into the sweep's rerun directory first): what the resolved
  //! case names as its output. Empty: where the run is found (`out` or the directory chosen).
  std::string found_at;
  std::string json_path;  //!< also write the executor comparison here
  std::string dot_path;   //!< a directory: a Graphviz DOT file per frame
  bool force = false;
  bool vtk = false;
  bool png = false;
  int checkpoint_every = -1;
  std::string restart;    //!< a run directory whose newest complete checkpoint to continue
  int restart_step = -1;  //!< --step: continue from this complete checkpoint instead
  std::string dump;       //!< rank 0 writes the final global field here (raw)
  int output_every = -1;
  std::string handoff;            //!< the exchange's handoff (auto, host-node, proxy)
  std::string transport;          //!< the exchange's transport (auto, mpi, nccl)
  double timeout_s = 0;           //!< every exchange's and collective's bound; 0: the case's
  std::vector<std::string> sets;  //!< each --set PATH=VALUE as given (case_settings.hpp)
};

//! Lays `flags`' overrides on the case document `root` (its run section, the exchange's handoff
//! and transport), then each --set. \throws Error naming the flags given that do not apply to the
//! case's model (the seed takes none of the stepping models' flags), a malformed --set, or a
//! --set of a field a flag also sets (--steps and --set run.steps: give one).
void apply_flags(const RunFlags& flags, nlohmann::json& root);

}  // namespace haloflow::cases
