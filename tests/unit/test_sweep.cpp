// haloflow sweep's parts (apps/cases/sweep*.cpp, case_settings.cpp): single-valued --set, the
// figures read from a point's results.json, the tables and the SVG plot's axes.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "case_settings.hpp"
#include "haloflow/error.hpp"
#include "sweep.hpp"
#include "sweep_figures.hpp"
#include "sweep_plot.hpp"

using haloflow::Error;
using namespace haloflow::cases;
using nlohmann::json;

TEST_CASE("--set PATH=VALUE: one value, the whole text after '=', read as JSON where it is") {
  CHECK(parse_override("jacobi2d.nx=4096").values == std::vector<json>{4096});
  CHECK(parse_override("a.b=1,2").values == std::vector<json>{"1,2"});  // a ',' is text here
  CHECK(parse_override("a.b=\"7\"").values == std::vector<json>{"7"});  // quoted: a string
  CHECK(parse_override("a.b=").values == std::vector<json>{""});
  CHECK(parse_override("run.vtk=true").values.front() == true);
  CHECK_THROWS_WITH_AS((void)parse_override("jacobi2d.nx"),
                       "--set jacobi2d.nx: expected PATH=VALUE (e.g. jacobi2d.nx=4096)", Error);
  CHECK_THROWS_WITH_AS((void)parse_overrides({"a.b=1", "a.b=2"}),
                       "--set a.b is given twice; give each path once", Error);
  json document = {{"model", "heat3d"}, {"heat3d", {{"nx", 8}}}};
  apply_overrides(document, parse_overrides({"heat3d.nu=0.5", "run.steps=3"}));
  CHECK(document["heat3d"] == json{{"nx", 8}, {"nu", 0.5}});
  CHECK(document["run"]["steps"] == 3);
  CHECK(overrides_record(parse_overrides({"heat3d.nu=0.5"})) ==
        json::array({{{"path", "heat3d.nu"}, {"pointer", "/heat3d/nu"}, {"value", 0.5}}}));
  CHECK(source_with("case.json", {}) == "case.json");
  CHECK(source_with("case.json", {"a.b=1", "c=x"}) == "case.json with --set a.b=1 --set c=x");
  CHECK_THROWS_WITH_AS((void)series_length({parse_series_setting("a.b=1")}, "a sweep"),
                       "--set a.b gives 1 point; a sweep needs at least 2 (e.g. a.b=100,200,400)",
                       Error);
}

TEST_CASE("sweep: every number of results.json is a figure, named by its path; short names first") {
  const json results = {{"format_version", 1},
                        {"model", "jacobi2d"},
                        {"files", {{"a", 3}}},
                        {"machine", {{"copy_bandwidth_Bps", 5}}},
                        {"step_time_us", {{"median", 12.5}, {"p90", 20}}},
                        {"run", {{"achieved_Bps", 1e9}, {"executor", "host"}}},
                        {"jacobi2d", {{"final_norm", 0.25}, {"norms", {1, 2}}}}};
  const std::vector<Figure> figures = figures_of(results);
  REQUIRE(figures.size() == 6);
  CHECK(figures[0] == Figure{"time_per_step", 12.5});
  CHECK(figures[1] == Figure{"bandwidth", 1e9});
  CHECK(figure_value(figures, "jacobi2d.final_norm") == 0.25);
  CHECK(figure_value(figures, "step_time_us.p90") == 20);
  CHECK(std::isnan(figure_value(figures, "jacobi2d.norms")));  // a series, not a figure
  CHECK(std::isnan(figure_value(figures, "files.a")));         // not a measurement
  CHECK(figure_title("time_per_step") == "time_per_step (us)");
  CHECK(figure_title("jacobi2d.final_norm") == "jacobi2d.final_norm");
  CHECK(choose_figures({}, figures) == std::vector<std::string>{"time_per_step", "bandwidth"});
  CHECK(choose_figures({"jacobi2d.final_norm", "jacobi2d.final_norm"}, figures) ==
        std::vector<std::string>{"jacobi2d.final_norm"});
  CHECK_THROWS_WITH_AS((void)choose_figures({"speed"}, figures),
                       "--figures speed: the points' results.json has no figure speed; expected "
                       "one of time_per_step, bandwidth, jacobi2d.final_norm, run.achieved_Bps, "
                       "step_time_us.median, step_time_us.p90",
                       Error);
}

TEST_CASE("sweep: the table as CSV and Markdown, a row per point") {
  const SweepTable table{
      .setting_names = {"jacobi2d.nx", "euler2d.limiter"},
      .figure_names = {"time_per_step", "x"},
      .rows = {{.label = "", .directory = "00_a", .settings = {"32", "a,b"}, .figures = {1.5, 2}},
               {.label = "",
                .directory = "01_b",
                .settings = {"64", "c|d"},
                .figures = {3, std::nan("")}}}};
  CHECK(table_csv(table) ==
        "point,directory,jacobi2d.nx,euler2d.limiter,time_per_step (us),x\n"
        "0,00_a,32,\"a,b\",1.5,2\n"
        "1,01_b,64,c|d,3,\n");
  CHECK(table_markdown(table) ==
        "| point | jacobi2d.nx | euler2d.limiter | time_per_step (us) | x | run directory |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| 0 | 32 | a,b | 1.5 | 2 | 00_a |\n"
        "| 1 | 64 | c\\|d | 3 |  | 01_b |\n");
  CHECK(point_directory_name(3, "jacobi2d.nx=64 run.steps=10") == "03_jacobi2d.nx=64_run.steps=10");
  CHECK(point_directory_name(0, "a.b=../x/y") == "00_a.b=.._x_y");
}

TEST_CASE("sweep plot: log axes from a 10x span, 1-2-5 ticks, labelled axes, a marker a point") {
  CHECK(wants_log_axis({64, 640}));
  CHECK_FALSE(wants_log_axis({64, 639}));
  CHECK_FALSE(wants_log_axis({0, 1000}));
  CHECK_FALSE(wants_log_axis({}));
  CHECK(axis_ticks(0, 10, false) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(axis_ticks(55, 1200, true) == std::vector<double>{100, 200, 500, 1000});
  CHECK(axis_ticks(1e-9, 1e3, true).size() == 13);  // many decades: powers of ten only
  CHECK(axis_ticks(1, 1, false).empty());
  SweepPlot plot{.title = "a <b>",
                 .x_name = "jacobi2d.nx",
                 .y_name = "time_per_step (us)",
                 .x = {64, 128, 1024},
                 .x_labels = {},
                 .y = {1, std::nan(""), 30}};
  const std::string svg = svg_plot(plot);
  CHECK(svg.find("a &lt;b&gt;") != std::string::npos);
  CHECK(svg.find(">jacobi2d.nx (log scale)<") != std::string::npos);
  CHECK(svg.find(">time_per_step (us) (log scale)<") != std::string::npos);
  std::size_t markers = 0;
  for (auto at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) {
    ++markers;
  }
  CHECK(markers == 2);  // the point without the figure is not drawn
  const SweepPlot named{.title = "t",
                        .x_name = "euler2d.limiter",
                        .y_name = "y",
                        .x = {},
                        .x_labels = {"minmod", "vanleer"},
                        .y = {2, 3}};
  const std::string labelled = svg_plot(named);
  CHECK(labelled.find(">minmod<") != std::string::npos);
  CHECK(labelled.find(">euler2d.limiter<") != std::string::npos);
}
