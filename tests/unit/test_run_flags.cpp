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

TEST_CASE("run flags: each --set is laid on the document after the flags, a clash refused") {
  json root = {{"model", "jacobi2d"}, {"jacobi2d", {{"nx", 256}}}};
  RunFlags flags;
  flags.steps = 5;
  flags.sets = {"jacobi2d.nx=4096", "jacobi2d.precision=double", "run.vtk=true"};
  apply_flags(flags, root);
  CHECK(root["jacobi2d"]["nx"] == 4096);
  CHECK(root["jacobi2d"]["precision"] == "double");
  CHECK(root["run"]["vtk"] == true);
  CHECK(root["run"]["steps"] == 5);
  flags.sets = {"run.steps=6"};
  json clash = {{"model", "jacobi2d"}};
  CHECK_THROWS_WITH_AS(apply_flags(flags, clash),
                       "--set run.steps sets /run/steps, which a flag of the command line also "
                       "sets; give one of them",
                       Error);
  // Without a model the flags have nothing to say; the overrides still land (the reader then
  // names what is missing).
  RunFlags only_sets;
  only_sets.sets = {"name=x"};
  json bare = json::object();
  apply_flags(only_sets, bare);
  CHECK(bare["name"] == "x");
}
