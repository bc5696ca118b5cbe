// The model library: the registry, each model's reader (defaults in one place, problems named by
// their JSON pointer), figures shown two ways from one typed value, and jacobi2d's two-step launch.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "figures.hpp"
#include "haloflow/error.hpp"
#include "jacobi2d/jacobi_kernels.hpp"
#include "json_fields.hpp"
#include "model.hpp"

using namespace haloflow;

namespace {

nlohmann::json resolved_defaults(const char* name) {
  auto model = models::make_model(name);
  input::JsonFields fields("test");
  model->read_section(fields, nlohmann::json::object(), name);
  fields.throw_if_any();
  return model->resolved_section();
}

}  // namespace

TEST_CASE("the registry lists every model once, in the order messages use") {
  CHECK(models::model_names() == std::vector<std::string>{"seed", "jacobi2d", "heat3d", "euler2d"});
  for (const auto& name : models::model_names()) {
    const auto model = models::make_model(name);
    REQUIRE(model != nullptr);
    CHECK(model->name() == name);
  }
  CHECK(models::make_model("euler3d") == nullptr);
}

TEST_CASE("each model's defaults live in its reader") {
  CHECK(resolved_defaults("jacobi2d") == nlohmann::json{{"nx", 16384},
                                                        {"ny", 16384},
                                                        {"precision", "float"},
                                                        {"split", "1d"},
                                                        {"norm_every", 100},
                                                        {"print_every", 100},
                                                        {"rows_per_thread", 8},
                                                        {"steps_per_frame", "auto"}});
  const auto heat = resolved_defaults("heat3d");
  CHECK(heat["nx"] == 256);
  CHECK(heat["nz"] == 256);
  CHECK(heat["precision"] == "double");
  CHECK(heat["steps_per_frame"] == 1);
  const auto euler = resolved_defaults("euler2d");
  CHECK(euler["case"] == "vortex");
  CHECK(euler["limiter"] == "vanleer");
  CHECK(euler["riemann"] == "hllc");
  CHECK(euler["rk"] == 3);
  CHECK(models::make_model("jacobi2d")->run_shape().default_steps == 1000);
  CHECK(models::make_model("seed")->run_shape().length_keys ==
        std::vector<std::string>{"frames", "host_frames"});
}

TEST_CASE("a model's reader names each bad key and value by its pointer") {
  auto model = models::make_model("euler2d");
  input::JsonFields fields("flags");
  model->read_section(fields, nlohmann::json{{"rk", 4}, {"limiter", "superbe"}, {"nz", 2}},
                      "euler2d");
  REQUIRE(fields.problems().size() == 3);
  CHECK(fields.problems()[0].find("/euler2d/nz: unknown key") == 0);
  CHECK(fields.problems()[1] == "/euler2d/rk: 4 is not allowed; expected an integer from 2 to 3");
  CHECK(fields.problems()[2].find("/euler2d/limiter: \"superbe\" is not allowed; expected one of "
                                  "minmod, vanleer") == 0);
}

TEST_CASE("a figure is one number, shown on the benchmark line and kept in the JSON") {
  models::Figures figures;
  figures.add("model", std::string("jacobi2d"))
      .add("steps", 20LL)
      .add("median_step_s", 0.0001234567891, "{:.9f}");
  CHECK(figures.line() == "result: model=jacobi2d steps=20 median_step_s=0.000123457");
  const nlohmann::json json = figures.json();
  CHECK(json["model"] == "jacobi2d");
  CHECK(json["steps"] == 20);
  CHECK(json["median_step_s"].get<double>() == 0.0001234567891);  // not the rounded text
}

TEST_CASE("the two-step sweep's launch covers its box, 120 columns a block") {
  const CellBox box{
      .x0 = 3, .y0 = 2, .z0 = 0, .nx = 4094, .ny = 4096, .nz = 1, .stride_y = 4100, .stride_z = 0};
  const LaunchShape shape = kernels::two_step_launch(box, 8);
  CHECK(shape.block == Extent3{128, 2, 1});
  CHECK(shape.grid == Extent3{35, 256, 1});  // ceil(4094 / 120), 4096 / (2 * 8)
  CHECK(shape.grid.x * 4 * kernels::kTwoStepColumnsPerWarp >= box.nx);
  CHECK(kernels::two_step_launch({.nx = 1, .ny = 1, .nz = 1}, 8).grid == Extent3{1, 1, 1});
  CHECK_THROWS_WITH_AS((void)kernels::two_step_launch({.nx = 0, .ny = 4, .nz = 1}, 8),
                       "two_step_launch: a box of 0 x 4 cells with 8 rows per thread is not "
                       "allowed; expected at least one cell per axis and one row per thread",
                       Error);
}
