#pragma once
// A case file for any model: read once (the reader `haloflow run`, `validate` and `replay`
// share), checked against the schema's rules (json/schema/case.schema.json) and against the
// machine it is to run on (ranks, memory), with every problem reported at once, each naming its
// JSON pointer, the bad value and what is allowed. The model reads its own section
// (apps/models/NAME); this reader reads the rest: name, description, model, run and exchange.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "haloflow/frame.hpp"
#include "haloflow/halo_exchange.hpp"
#include "machine_memory.hpp"  // the memory budget of MachineLimits without a GPU
#include "model.hpp"

namespace haloflow::cases {

using models::MachineLimits;

//! The "run" section, defaults filled in (the seed's own keys are read by the seed model).
struct RunSection {
  std::string executor;       //!< all, auto, graph, streams, serial, host
  std::string output;         //!< the run directory; default runs/<name>
  bool output_given = false;  //!< named by --out or run.output (the default never refuses)
  int progress_every = 10;
  // Models that step in time (Model::steps_in_time):
  int steps = 0;     //!< timed steps
  int warmup = -1;   //!< -1: default_warmup() of the executor
  bool vtk = false;  //!< VTK image data (.vti per rank, .pvti) in RUN_DIR/vtk, RUN_DIR/NAME.pvd
  std::string vtk_precision = "float32";  //!< float32 or float64
  std::string vtk_compression = "zlib";   //!< zlib (VTK's own writer's default) or none
  //! VTK and PNG at step 0, every this many steps and after the last; 0: step 0 and the last.
  int output_every = 0;
  int checkpoint_every = 0;  //!< a checkpoint every this many steps; 0: none
  //! The most frames one launch runs (RunOptions::frames_per_launch); 1: a launch a frame.
  int frames_per_launch = 1;
  bool png = false;    //!< RUN_DIR/png/NAME_STEP.png of the field at each output
  int png_slice = -1;  //!< the z layer a 3D field's picture shows; -1: auto
  //! Seconds any halo exchange or collective may wait for the other ranks before the run ends
  //! naming them (--timeout overrides it).
  double timeout_s = 60;
};

//! The most /run/frames_per_launch allows: a launch's repetitions are counted in 32 bits on the
//! device, and a million frames a launch is already seconds of GPU work between two looks.
inline constexpr std::int64_t kMostFramesPerLaunch = 1000000;

//! The bounds of /run/timeout_s and --timeout, seconds.
inline constexpr double kMinTimeout = 0.1;
inline constexpr double kMaxTimeout = 86400;

//! The "exchange" section: how the frames' halo exchanges run. Whether a transport is available
//! is the engine's to say when the exchange is built; the reader checks the spelling.
struct ExchangeSection {
  Handoff handoff = Handoff::automatic;
  Transport transport = Transport::automatic;
};

struct CaseFile {
  std::string name;
  std::string description;
  std::unique_ptr<models::Model> model;
  RunSection run;
  ExchangeSection exchange;

  //! The case with every default filled in, as case.resolved.json holds it.
  [[nodiscard]] nlohmann::json resolved() const;
  //! One line: model, sizes, length, ranks, memory.
  [[nodiscard]] std::string summary(const MachineLimits& limits) const;
  //! The run section's steps and warm-up, as the models take them.
  [[nodiscard]] models::Stepping stepping() const { return {run.steps, run.warmup}; }
};

//! Lays the command line's --handoff and --transport (empty: not given) on a case document's
//! exchange section, before the reader reads it (which then checks them as it checks the case).
void override_exchange(nlohmann::json& root, const std::string& handoff,
                       const std::string& transport);

//! The text of a case file. \throws Error for a directory, a missing or unreadable file, an
//! empty one.
[[nodiscard]] std::string read_case_text(const std::filesystem::path& path);

//! Parses and checks a case. \throws Error listing every problem ("SOURCE: N problems:" and one
//! line each), or naming the JSON syntax error.
[[nodiscard]] CaseFile parse_case(const std::string& text, const std::string& source,
                                  const MachineLimits& limits);
[[nodiscard]] CaseFile parse_case(const nlohmann::json& root, const std::string& source,
                                  const MachineLimits& limits);

}  // namespace haloflow::cases
