// Reading the seed case: defaults, and every bad field named with its value and what is allowed.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "haloflow/error.hpp"
#include "seed_case.hpp"

using namespace haloflow;

namespace {

std::string errors_of(const char* text) {
  try {
    (void)app::parse_seed_case(nlohmann::json::parse(text), "case.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("the repository's seed case has the seed answer's sizes") {
  const auto seed = app::read_seed_case(HALOFLOW_SOURCE_DIR "/json/cases/seed.json");
  CHECK(seed.cells == 100ULL * 1048576);
  CHECK(seed.halo_cells == 1048576);
  CHECK(seed.intensity == 1);
  CHECK(seed.host_work_us == 100);
  CHECK(seed.executors.size() == 4);
}

TEST_CASE("an empty object gives the defaults") {
  const auto seed = app::parse_seed_case(nlohmann::json::object(), "case.json");
  CHECK(seed.cells == app::SeedCase{}.cells);
  CHECK(seed.block_size == 512);
}

TEST_CASE("every bad field is reported at once, each with its value and what is allowed") {
  const std::string message = errors_of(R"({
    "seed": {"cells": -5, "halo_cell": 10, "block_size": 100, "intensity": "high"},
    "run": {"executors": ["graf"]},
    "colour": 1})");
  CHECK(message.find("case.json: 6 problems:") == 0);
  CHECK(message.find("/colour: unknown key; allowed here: name, description, model, seed, run") !=
        std::string::npos);
  CHECK(message.find("/seed/halo_cell: unknown key (did you mean 'halo_cells'?)") !=
        std::string::npos);
  CHECK(message.find("/seed/cells: -5 is not allowed; expected an integer from 2 to") !=
        std::string::npos);
  CHECK(message.find("/seed/intensity: \"high\" is not allowed; expected an integer") !=
        std::string::npos);
  CHECK(message.find("/seed/block_size: 100 is not allowed; expected a multiple of 32") !=
        std::string::npos);
  CHECK(message.find("/run/executors/0: \"graf\" is not allowed; expected one of graph, streams, "
                     "serial, host (did you mean 'graph'?)") != std::string::npos);
}

TEST_CASE("a halo as large as the grid is refused") {
  CHECK(errors_of(R"({"seed": {"cells": 10, "halo_cells": 10}})")
            .find("/seed/halo_cells: 10 is not allowed; expected fewer than /seed/cells (10)") !=
        std::string::npos);
}

TEST_CASE("files that are not cases are refused with the reason") {
  CHECK_THROWS_WITH_AS((void)app::read_seed_case(HALOFLOW_SOURCE_DIR "/json"),
                       HALOFLOW_SOURCE_DIR "/json: is a directory; expected a JSON case file",
                       Error);
  CHECK_THROWS_WITH_AS((void)app::read_seed_case(HALOFLOW_SOURCE_DIR "/no/such.json"),
                       HALOFLOW_SOURCE_DIR "/no/such.json: cannot be opened for reading", Error);
  CHECK(errors_of("[1, 2]") ==
        "case.json: 1 problem:\n  /: the case is array; expected a JSON "
        "object");
}
