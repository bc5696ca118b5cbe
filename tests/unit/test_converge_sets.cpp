// haloflow converge's series (apps/cases/converge.cpp): --set PATH=V1,V2,... read, checked
// together and laid on the case document point by point; the norms of a field difference.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "converge.hpp"
#include "haloflow/error.hpp"

using haloflow::Error;
using haloflow::cases::apply_point;
using haloflow::cases::difference_norms;
using haloflow::cases::parse_series_setting;
using haloflow::cases::point_label;
using haloflow::cases::series_length;
using nlohmann::json;

TEST_CASE("converge --set: a path and its values, each read as JSON where it is JSON") {
  const auto s = parse_series_setting("euler2d.nx=100,200,400");
  CHECK(s.path == "euler2d.nx");
  CHECK(s.pointer == "/euler2d/nx");
  REQUIRE(s.values.size() == 3);
  CHECK(s.values[0] == 100);
  CHECK(s.values[2].is_number_integer());
  const auto mixed = parse_series_setting("a.b=0.5,1e-3,true,minmod,\"quoted\"");
  REQUIRE(mixed.values.size() == 5);
  CHECK(mixed.values[0] == 0.5);
  CHECK(mixed.values[1] == 1e-3);
  CHECK(mixed.values[2] == true);
  CHECK(mixed.values[3] == "minmod");
  CHECK(mixed.values[4] == "quoted");
  // A key holding '/' or '~' is escaped in the pointer.
  CHECK(parse_series_setting("a/b.c~d=1,2").pointer == "/a~1b/c~0d");
}

TEST_CASE("converge --set: malformed flags are refused, naming the flag") {
  CHECK_THROWS_WITH_AS((void)parse_series_setting("euler2d.nx"),
                       "--set euler2d.nx: expected PATH=V1,V2,... (e.g. euler2d.nx=100,200,400)",
                       Error);
  CHECK_THROWS_WITH_AS(
      (void)parse_series_setting("=1,2"),
      "--set =1,2: the path before '=' is empty; expected SECTION.KEY (e.g. euler2d.nx)", Error);
  CHECK_THROWS_WITH_AS((void)parse_series_setting("euler2d..nx=1,2"),
                       "--set euler2d..nx=1,2: the path euler2d..nx has an empty key; expected "
                       "keys joined by '.' (e.g. euler2d.nx)",
                       Error);
  CHECK_THROWS_WITH_AS((void)parse_series_setting("euler2d.nx=1,,2"),
                       "--set euler2d.nx=1,,2: an empty value in 1,,2; expected values separated "
                       "by ','",
                       Error);
}

TEST_CASE("converge --set: settings vary together, as many values each, at least 2 points") {
  const auto nx = parse_series_setting("euler2d.nx=100,200,400");
  const auto ny = parse_series_setting("euler2d.ny=50,100,200");
  CHECK(series_length({nx, ny}) == 3);
  // One value: the same at every point, whichever comes first.
  CHECK(series_length({parse_series_setting("euler2d.case=sod-x"), nx}) == 3);
  CHECK_THROWS_WITH_AS((void)series_length({}),
                       "no --set given; expected at least one, e.g. --set euler2d.nx=100,200,400",
                       Error);
  CHECK_THROWS_WITH_AS((void)series_length({nx, parse_series_setting("run.steps=10,20")}),
                       "--set euler2d.nx has 3 values and --set run.steps has 2: settings varied "
                       "together need as many values each (or one, the same at every point)",
                       Error);
  CHECK_THROWS_WITH_AS((void)series_length({parse_series_setting("euler2d.nx=100")}),
                       "--set euler2d.nx gives 1 point; a convergence study needs at least 2 "
                       "(e.g. euler2d.nx=100,200,400)",
                       Error);
  CHECK_THROWS_WITH_AS((void)series_length({nx, parse_series_setting("euler2d.nx=1,2,3")}),
                       "--set euler2d.nx is given twice; give each path once", Error);
}

TEST_CASE("converge --set: each point's values laid on the case document") {
  const std::vector settings{parse_series_setting("euler2d.nx=100,200"),
                             parse_series_setting("run.steps=10,20")};
  json document = {{"model", "euler2d"}, {"euler2d", {{"nx", 64}, {"cfl", 0.4}}}};
  apply_point(document, settings, 1);
  CHECK(document["euler2d"]["nx"] == 200);
  CHECK(document["euler2d"]["cfl"] == 0.4);  // the rest as it was
  CHECK(document["run"]["steps"] == 20);     // a missing section is made
  CHECK(point_label(settings, 0) == "euler2d.nx=100 run.steps=10");
  // A setting of one value is laid on every point, and left out of the labels.
  const std::vector constant{parse_series_setting("euler2d.case=sod-x"),
                             parse_series_setting("euler2d.nx=100,200")};
  json sod = {{"model", "euler2d"}};
  apply_point(sod, constant, 1);
  CHECK(sod["euler2d"]["case"] == "sod-x");
  CHECK(sod["euler2d"]["nx"] == 200);
  CHECK(point_label(constant, 1) == "euler2d.nx=200");
  // A path through a value that is not an object.
  json flat = {{"model", "euler2d"}, {"euler2d", 3}};
  CHECK_THROWS_WITH_AS(
      apply_point(flat, settings, 0),
      "--set euler2d.nx: /euler2d is a number in the case, not an object with keys", Error);
}

TEST_CASE("converge: L1, L2 and Linf of a difference") {
  const auto norms = difference_norms({1, 2, 3, 4}, {1, 2, 3, 0});
  REQUIRE(norms.size() == 3);
  CHECK(norms[0] == doctest::Approx(1.0));  // mean |d|: 4 / 4
  CHECK(norms[1] == doctest::Approx(2.0));  // sqrt(16 / 4)
  CHECK(norms[2] == doctest::Approx(4.0));
  CHECK_THROWS_AS((void)difference_norms({1, 2}, {1}), Error);
  CHECK_THROWS_AS((void)difference_norms({}, {}), Error);
}
