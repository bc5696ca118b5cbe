#pragma once
// A case file for any model (seed, jacobi2d, heat3d, euler2d): read, checked against the schema's
// rules (json/schema/case.schema.json) and against the machine it is to run on (ranks, memory),
// with every problem reported at once, each naming its JSON pointer, the bad value and what is
// allowed.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "seed_case.hpp"

namespace haloflow::app {

//! What the case must fit: how many ranks run it and how much memory each rank's device has.
struct CaseLimits {
  int ranks = 1;
  double memory_gib = 16;
};

//! The models a case may name, in the order messages list them.
const std::vector<std::string>& case_models();

//! The grid and physics of a jacobi2d, heat3d or euler2d case (docs/models.md), defaults filled in.
struct ModelSettings {
  std::int64_t nx = 0;
  std::int64_t ny = 0;
  std::int64_t nz = 1;
  int norm_every = 100;   // jacobi2d
  int print_every = 100;  // jacobi2d
  std::string precision;  // float or double
  std::string split;      // jacobi2d: 1d or 2d; heat3d: 3d
  double nu = 1.0;        // heat3d
  int mode = 1;           // heat3d
  double dt = 0;          // heat3d; 0: h^2 / (8 nu)
  // euler2d (docs/models.md; the options of haloflow_model)
  std::string euler_case = "vortex";  // vortex, sod-x, sod-y or kh
  double cfl = 0.4;
  double t_end = 0;  // 0: run run.steps steps
  int rk = 3;        // SSP Runge-Kutta stages: 2 or 3
  std::string limiter = "vanleer";
  std::string riemann = "hllc";
};

//! The "run" section, defaults filled in.
struct RunSettings {
  std::string executor;       // all, auto, graph, streams, serial, host
  int steps = 0;              // models: timed steps
  int warmup = -1;            // models: -1 = 10 on GPU executors, 0 on the host
  std::string output;         // the run directory; default runs/<name>
  bool output_given = false;  // named by --out or run.output (the default never refuses)
  int progress_every = 10;
  bool vtk = false;          // models: VTK image data (.vti per rank, .pvti) in RUN_DIR/vtk
  int output_every = 0;      // models: VTK every this many steps; 0: only after the last
  int checkpoint_every = 0;  // models: a checkpoint every this many steps; 0: none
  bool png = false;  // models: RUN_DIR/<name>.png of the field (heat3d: z = nz/2) at the end
};

struct CaseFile {
  std::string name;
  std::string description;
  std::string model;   // seed, jacobi2d, heat3d or euler2d
  SeedCase seed;       // model == "seed"
  ModelSettings grid;  // model == "jacobi2d", "heat3d" or "euler2d"
  RunSettings run;
  double bytes_per_rank = 0;  // estimated memory one rank needs

  //! The case with every default filled in, as case.resolved.json holds it.
  [[nodiscard]] nlohmann::json resolved() const;
  //! One line: model, sizes, steps, ranks, memory.
  [[nodiscard]] std::string summary(const CaseLimits& limits) const;
};

//! The text of a case file. \throws Error for a directory, a missing or unreadable file, an empty
//! one.
std::string read_case_text(const std::filesystem::path& path);

//! Parses and checks a case. \throws Error listing every problem ("SOURCE: N problems:" and one
//! line each), or naming the JSON syntax error.
CaseFile parse_case(const std::string& text, const std::string& source, const CaseLimits& limits);
CaseFile parse_case(const nlohmann::json& root, const std::string& source,
                    const CaseLimits& limits);

}  // namespace haloflow::app
