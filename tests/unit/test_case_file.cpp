// Reading cases with the one reader `haloflow run`, `validate` and `replay` share: defaults, the
// seed case's sizes, every bad field named with its value and what is allowed, the exchange
// section, and files that are not cases.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "case_file.hpp"
#include "haloflow/error.hpp"
#include "seed/seed_case.hpp"

using namespace haloflow;

namespace {

const models::MachineLimits kOneRank{.ranks = 1, .memory_gib = 16};

cases::CaseFile parsed(const char* text) {
  return cases::parse_case(std::string(text), "case.json", kOneRank);
}

std::string errors_of(const char* text) {
  try {
    (void)parsed(text);
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("the repository's seed case has the seed answer's sizes") {
  const std::string path = HALOFLOW_SOURCE_DIR "/json/cases/seed.json";
  const auto c = cases::parse_case(cases::read_case_text(path), path, kOneRank);
  const auto resolved = c.resolved();
  CHECK(resolved["seed"]["cells"] == 100ULL * 1048576);
  CHECK(resolved["seed"]["halo_cells"] == 1048576);
  CHECK(resolved["seed"]["intensity"] == 1);
  CHECK(resolved["seed"]["host_work_us"] == 100);
  CHECK(resolved["run"]["executors"].size() == 4);
}

TEST_CASE("a seed case with nothing but its model gives the defaults") {
  const auto resolved = parsed(R"({"model": "seed"})").resolved();
  CHECK(resolved["seed"]["cells"] == models::SeedCase{}.cells);
  CHECK(resolved["seed"]["block_size"] == 512);
  CHECK(resolved["run"]["executor"] == "all");
  CHECK(resolved["exchange"]["handoff"] == "auto");
  CHECK(resolved["exchange"]["transport"] == "auto");
}

TEST_CASE("the seed case takes what the schema allows: $schema, run.executor, progress_every") {
  const auto c = parsed(R"({"$schema": "../schema/case.schema.json", "model": "seed",
    "run": {"executor": "host", "progress_every": 2, "frames": 3}})");
  CHECK(c.run.executor == "host");
  CHECK(c.run.progress_every == 2);
  CHECK(c.resolved()["run"]["frames"] == 3);
}

TEST_CASE("every bad field is reported at once, each with its value and what is allowed") {
  const std::string message = errors_of(R"({"model": "seed",
    "seed": {"cells": -5, "halo_cell": 10, "block_size": 100, "intensity": "high"},
    "run": {"executors": ["graf"]},
    "colour": 1})");
  CHECK(message.find("case.json: 6 problems:") == 0);
  CHECK(message.find("/colour: unknown key; allowed here: $schema, name, description, model, run, "
                     "exchange, seed") != std::string::npos);
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
  CHECK(errors_of(R"({"model": "seed", "seed": {"cells": 10, "halo_cells": 10}})")
            .find("/seed/halo_cells: 10 is not allowed; expected fewer than /seed/cells (10)") !=
        std::string::npos);
}

TEST_CASE("the exchange section chooses the handoff and the transport, by their names") {
  const auto c = parsed(R"({"model": "jacobi2d", "jacobi2d": {"nx": 16, "ny": 16},
    "exchange": {"handoff": "proxy", "transport": "nccl"}})");
  CHECK(c.exchange.handoff == Handoff::proxy);
  CHECK(c.exchange.transport == Transport::nccl);
  CHECK(c.resolved()["exchange"] == nlohmann::json{{"handoff", "proxy"}, {"transport", "nccl"}});
  const std::string message = errors_of(R"({"model": "heat3d",
    "exchange": {"handoff": "host_node", "transport": "shmem", "via": 1}})");
  CHECK(message.find("3 problems:") != std::string::npos);
  CHECK(message.find("/exchange/via: unknown key; allowed here: handoff, transport") !=
        std::string::npos);
  CHECK(message.find("/exchange/handoff: \"host_node\" is not allowed; expected one of auto, "
                     "host-node, proxy (did you mean 'host-node'?)") != std::string::npos);
  CHECK(message.find("/exchange/transport: \"shmem\" is not allowed; expected one of auto, mpi, "
                     "nccl") != std::string::npos);
}

TEST_CASE("a model's run keys belong to it: the seed counts frames, the others steps") {
  CHECK(errors_of(R"({"model": "seed", "run": {"steps": 5}})")
            .find("/run/steps: applies to the jacobi2d, heat3d and euler2d models; the seed model "
                  "counts frames (/run/frames) and writes no fields") != std::string::npos);
  CHECK(errors_of(R"({"model": "euler2d", "run": {"frames": 5}})")
            .find("/run/frames: applies to the seed model; euler2d counts steps (/run/steps)") !=
        std::string::npos);
}

TEST_CASE("run.frames_per_launch: 1 by default, a count of frames, refused below 1 by name") {
  CHECK(parsed(R"({"model": "jacobi2d"})").run.frames_per_launch == 1);
  const auto c = parsed(R"({"model": "heat3d", "run": {"frames_per_launch": 8}})");
  CHECK(c.run.frames_per_launch == 8);
  CHECK(c.resolved()["run"]["frames_per_launch"] == 8);
  CHECK(errors_of(R"({"model": "jacobi2d", "run": {"frames_per_launch": 0}})") ==
        "case.json: 1 problem:\n  /run/frames_per_launch: 0 is not allowed; expected an integer "
        "from 1 to 1000000");
  CHECK(errors_of(R"({"model": "euler2d", "run": {"frames_per_launch": "many"}})")
            .find("/run/frames_per_launch: \"many\" is not allowed") != std::string::npos);
  CHECK(errors_of(R"({"model": "seed", "run": {"frames_per_launch": 2}})")
            .find("/run/frames_per_launch: applies to the jacobi2d, heat3d and euler2d models") !=
        std::string::npos);
}

TEST_CASE("files that are not cases are refused with the reason") {
  CHECK_THROWS_WITH_AS((void)cases::read_case_text(HALOFLOW_SOURCE_DIR "/json"),
                       HALOFLOW_SOURCE_DIR "/json: is a directory; expected a JSON case file",
                       Error);
  CHECK_THROWS_WITH_AS(
      (void)cases::read_case_text(HALOFLOW_SOURCE_DIR "/no/such.json"),
      HALOFLOW_SOURCE_DIR "/no/such.json: cannot be opened for reading: no such file", Error);
  CHECK(errors_of("[1, 2]") ==
        "case.json: 1 problem:\n  /: the case is array; expected a JSON "
        "object");
}
