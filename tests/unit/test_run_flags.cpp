// haloflow run's overrides laid on the case document (apps/cases/run_flags.cpp): what each flag
// sets, and the flags refused for a model that does not step in time.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "haloflow/error.hpp"
#include "run_flags.hpp"

using haloflow::Error;
using haloflow::cases::apply_flags;
using haloflow::cases::RunFlags;
using nlohmann::json;

TEST_CASE("run flags: a stepping model's overrides land in its run section and exchange") {
  json root = {{"model", "jacobi2d"}, {"run", {{"steps", 100}, {"vtk", false}}}};
  RunFlags flags;
  flags.steps = 7;
  flags.executor = "host";
  flags.out = "somewhere";
  flags.vtk = true;
  flags.output_every = 0;  // given as 0: still an override
  flags.timeout_s = 3.5;
  flags.handoff = "proxy";
  apply_flags(flags, root);
  CHECK(root["run"]["steps"] == 7);
  CHECK(root["run"]["executor"] == "host");
  CHECK(root["run"]["output"] == "somewhere");
  CHECK(root["run"]["vtk"] == true);
  CHECK(root["run"]["output_every"] == 0);
  CHECK(root["run"]["timeout_s"] == 3.5);
  CHECK(!root["run"].contains("png"));
  CHECK(!root["run"].contains("checkpoint_every"));
  CHECK(root["exchange"]["handoff"] == "proxy");
  CHECK(!root["exchange"].contains("transport"));
}

TEST_CASE("run flags: the seed's length is its frames; stepping flags are refused by name") {
  json root = {{"model", "seed"}};
  RunFlags frames;
  frames.frames = 12;
  apply_flags(frames, root);
  CHECK(root["run"]["frames"] == 12);
  CHECK(root["run"]["host_frames"] == 12);

  RunFlags stepping;
  stepping.vtk = true;
  stepping.timeout_s = 2;
  json seed = {{"model", "seed"}};
  CHECK_THROWS_WITH_AS(apply_flags(stepping, seed),
                       doctest::Contains("--vtk and --timeout: apply only to the models that "
                                         "step in time (jacobi2d, heat3d and euler2d)"),
                       Error);
  CHECK(!seed.contains("run"));  // refused before anything was laid on the document
}

TEST_CASE("run flags: a document the reader will refuse is left for the reader to name") {
  RunFlags flags;
  flags.steps = 3;
  json no_model = {{"run", {{"steps", 1}}}};
  apply_flags(flags, no_model);
  CHECK(no_model["run"]["steps"] == 1);
  json unknown = {{"model", "no such model"}};
  apply_flags(flags, unknown);
  CHECK(!unknown.contains("run"));
  json run_not_object = {{"model", "jacobi2d"}, {"run", 5}};
  apply_flags(flags, run_not_object);
  CHECK(run_not_object["run"] == 5);
}
