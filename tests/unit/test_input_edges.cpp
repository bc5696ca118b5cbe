// Edges of the input that `haloflow run` and `validate` must refuse by name, never crash on or pass
// along: grids the halo plan would refuse, NUL characters in names and paths, the memory of a
// machine without a GPU, thousands of problems, characters that steer a terminal, a diffusivity
// too small to bound the time step, a byte-order mark, checkpoints refused for their real cause.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "haloflow/error.hpp"
#include "json_fields.hpp"
#include "json_input.hpp"
#include "machine_memory.hpp"
#include "model.hpp"
#include "printable.hpp"
#include "written_files.hpp"

using namespace haloflow;

namespace {

// Every problem the model's reader and checks report for `section` on `ranks` ranks.
std::vector<std::string> model_problems(const char* name, const nlohmann::json& section,
                                        int ranks = 1, double memory_gib = 16) {
  auto model = models::make_model(name);
  input::JsonFields fields("test");
  model->read_section(fields, section, name);
  if (fields.count() == 0) model->check_rules(fields);
  if (fields.count() == 0) model->check_machine(fields, {.ranks = ranks, .memory_gib = memory_gib});
  return fields.problems();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::filesystem::path scratch(const std::string& name) {
  const auto directory = std::filesystem::path(HALOFLOW_TEST_OUTPUT_DIR) / "input_edges";
  std::filesystem::create_directories(directory);
  const auto path = directory / name;
  std::filesystem::remove(path);
  return path;
}

std::string error_of(const std::function<void()>& step) {
  try {
    step();
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE(
    "heat3d's steps_per_frame: ghosts k deep must fit every rank's share, all axes periodic") {
  // 4 x 4 x 3 on one rank: z is its own neighbour, 3 cells deep, so 3 steps a frame and no more.
  CHECK(
      model_problems("heat3d", {{"nx", 4}, {"ny", 4}, {"nz", 3}, {"steps_per_frame", 3}}).empty());
  const std::string deep =
      joined(model_problems("heat3d", {{"nx", 4}, {"ny", 4}, {"nz", 3}, {"steps_per_frame", 4}}));
  CAPTURE(deep);
  CHECK(has(deep,
            "/heat3d/steps_per_frame: 4 is not allowed on 1 rank: the process grid 1 x 1 x 1 "
            "leaves a rank 3 cells along z (3 cells over 1 rank, periodic: its own neighbour), "
            "fewer than the 4 ghost layers its halo exchange fills; expected at most 3, or "
            "/heat3d/nz at least 4"));
  // 10 cells along x over 4 ranks (2 x 2 x 1): shares of 5, so 4 fits; 5 cells along y over 2
  // ranks leave one 2: the thinnest share decides.
  CHECK(model_problems("heat3d", {{"nx", 10}, {"steps_per_frame", 4}}, 4).empty());
  const std::string split = joined(
      model_problems("heat3d", {{"nx", 16}, {"ny", 5}, {"nz", 16}, {"steps_per_frame", 3}}, 4));
  CAPTURE(split);
  CHECK(has(split,
            "/heat3d/steps_per_frame: 3 is not allowed on 4 ranks: the process grid 2 x "
            "2 x 1 leaves a rank 2 cells along y"));
  CHECK(has(split, "expected at most 2, or /heat3d/ny at least 6"));
  // Outside 1..4, and one step a frame on a grid of one cell per axis, as before.
  CHECK(has(joined(model_problems("heat3d", {{"nx", 8}, {"steps_per_frame", 0}})),
            "/heat3d/steps_per_frame: 0 is not allowed; expected an integer from 1 to 4"));
  CHECK(has(joined(model_problems("heat3d", {{"nx", 8}, {"steps_per_frame", "fast"}})),
            "/heat3d/steps_per_frame: \"fast\" is not allowed; expected an integer from 1 to 4 "
            "or \"auto\""));
  // auto is never refused for depth: it measures the k that fit, one at least.
  CHECK(model_problems("heat3d", {{"nx", 8}, {"steps_per_frame", "auto"}}).empty());
  CHECK(model_problems("heat3d", {{"nx", 2}, {"steps_per_frame", "auto"}}, 2).empty());
  CHECK(model_problems("heat3d", {{"nx", 1}}).empty());
  // A checkpoint's case leaves the steps a frame out: a restart may take them differently.
  auto model = models::make_model("heat3d");
  input::JsonFields fields("test");
  model->read_section(fields, {{"nx", 8}, {"steps_per_frame", 2}}, "heat3d");
  CHECK(model->resolved_section()["steps_per_frame"] == 2);
  CHECK_FALSE(model->checkpoint_section().contains("steps_per_frame"));
}

TEST_CASE("jacobi2d's checks refuse every grid its halo plan would refuse, and only those") {
  // 3 x 3 on one rank: one computed row, periodic, and two steps a frame (asked for) exchange two
  // layers: refused at the setting, naming the ways out.
  const std::string small =
      joined(model_problems("jacobi2d", {{"nx", 3}, {"ny", 3}, {"steps_per_frame", 2}}));
  CAPTURE(small);
  CHECK(has(small,
            "/jacobi2d/steps_per_frame: 2 is not allowed on 1 rank: the process grid 1 x 1 "
            "leaves a rank 1 computed row along y"));
  CHECK(has(small,
            "fewer than the 2 ghost layers its halo exchange fills; expected 1 (one ghost layer) "
            "or \"auto\""));
  CHECK(has(small, ", or /jacobi2d/ny at least 4"));
  CHECK(!has(small, "ghost_width"));
  // 8 x 5 on 2 ranks: 3 computed rows over 2 ranks leave one a single row.
  const std::string split =
      joined(model_problems("jacobi2d", {{"nx", 8}, {"ny", 5}, {"steps_per_frame", 2}}, 2));
  CAPTURE(split);
  CHECK(has(split, "/jacobi2d/steps_per_frame: 2 is not allowed on 2 ranks"));
  CHECK(has(split, ", or /jacobi2d/ny at least 6"));
  // The x axis with a 2D split: 3 columns over 2 ranks.
  const std::string columns = joined(model_problems(
      "jacobi2d", {{"nx", 3}, {"ny", 10}, {"split", "2d"}, {"steps_per_frame", 2}}, 4));
  CAPTURE(columns);
  CHECK(has(columns, "/jacobi2d/steps_per_frame: 2 is not allowed on 4 ranks"));
  CHECK(has(columns, "along x"));
  // auto (the default) takes one step a frame on all three.
  CHECK(model_problems("jacobi2d", {{"nx", 3}, {"ny", 3}}).empty());
  CHECK(model_problems("jacobi2d", {{"nx", 8}, {"ny", 5}}, 2).empty());
  CHECK(model_problems("jacobi2d", {{"nx", 3}, {"ny", 10}, {"split", "2d"}}, 4).empty());
  // Just fitting: two rows a rank; one step a frame needs one; x without neighbours on 1 rank.
  CHECK(model_problems("jacobi2d", {{"nx", 8}, {"ny", 6}}, 2).empty());
  CHECK(model_problems("jacobi2d", {{"nx", 3}, {"ny", 4}}).empty());
  CHECK(model_problems("jacobi2d", {{"nx", 3}, {"ny", 3}, {"steps_per_frame", 1}}).empty());
  CHECK(model_problems("jacobi2d", {{"nx", 8}, {"ny", 5}, {"steps_per_frame", 1}}, 2).empty());
  CHECK(model_problems("jacobi2d", {{"nx", 4}, {"ny", 10}, {"split", "2d"}}, 4).empty());
}

TEST_CASE("a NUL character in a string that becomes a path or a name is refused by its pointer") {
  input::JsonFields fields("case.json");
  const auto run = nlohmann::json::parse(R"({"output": "runs/a\u0000b"})");
  CHECK(fields.text(run, "/run/output", "x") == "x");
  REQUIRE(fields.problems().size() == 1);
  CHECK(fields.problems()[0] ==
        "/run/output: \"runs/a\\u0000b\" is not allowed: it holds a NUL character (\\u0000); "
        "expected a string without one");
}

TEST_CASE("a size std::filesystem could not take is never recorded") {
  outputs::WrittenFiles written("run");
  written.add({.path = "run/a.txt", .bytes = 10});
  written.add({.path = "run/b.ckpt", .bytes = static_cast<std::uintmax_t>(-1)});
  REQUIRE(written.files().size() == 1);
  CHECK(written.total_bytes() == 10);
  CHECK(written.json().dump().find("18446744073709551615") == std::string::npos);
}

TEST_CASE("without a GPU a rank's memory budget is the machine's memory over the ranks on it") {
  constexpr std::uint64_t k23_5GiB = 47ull << 29;  // 23.5 GiB
  CHECK(cases::memory_gib_per_rank(k23_5GiB, 1) == doctest::Approx(23.5));
  CHECK(cases::memory_gib_per_rank(k23_5GiB, 2) == doctest::Approx(11.75));
  CHECK(cases::memory_gib_per_rank(k23_5GiB, 0) == doctest::Approx(23.5));
  CHECK(cases::memory_gib_per_rank(0, 2) == doctest::Approx(16));  // the system does not say
  // This machine: what sysconf says, shared.
  const double whole = static_cast<double>(cases::physical_memory_bytes()) / (1024.0 * 1024 * 1024);
  CHECK(whole > 0);
  CHECK(cases::host_memory_gib_per_rank(4) == doctest::Approx(whole / 4));
  // 2 ranks x 12 GiB on a 23.5 GiB machine: refused, saying what is needed and what is given.
  const std::string refusal =
      joined(model_problems("heat3d", {{"nx", 1170}, {"ny", 1170}, {"nz", 1170}}, 2,
                            cases::memory_gib_per_rank(k23_5GiB, 2)));
  CAPTURE(refusal);
  CHECK(has(refusal, "/heat3d: needs about 12.01 GiB per rank"));
  CHECK(has(refusal,
            "the memory budget is 11.75 GiB per rank (--memory-gib; by default the GPU's "
            "memory or, without a GPU, this machine's physical memory over the ranks "
            "that share it)"));
}

TEST_CASE("a list of problems is cut after the first few, with a count of the rest") {
  nlohmann::json run = nlohmann::json::object();
  for (int i = 0; i < 40000; ++i) run["unknown_" + std::to_string(i)] = i;
  input::JsonFields fields("case.json");
  fields.only_keys(run, "/run", {"steps"});
  CHECK(fields.count() == 40000);
  CHECK(fields.problems().size() == input::kShownProblems);
  const std::string message = error_of([&] { fields.throw_if_any(); });
  CHECK(message.starts_with("case.json: 40000 problems:\n  /run/unknown_"));
  CHECK(message.ends_with("\n  ... and 39980 more problems"));
  CHECK(message.size() < 8000);
  // One problem more than shown says "1 more problem".
  input::JsonFields one_more("case.json");
  for (std::size_t i = 0; i <= input::kShownProblems; ++i) one_more.report("/x", "bad");
  CHECK(error_of([&] { one_more.throw_if_any(); }).ends_with("\n  ... and 1 more problem"));
}

TEST_CASE("characters that reorder or steer the terminal are escaped wherever input is echoed") {
  // The bidirectional controls, each as UTF-8.
  CHECK(input::printable("a\u202eb") == "a\\u202eb");
  CHECK(input::printable("\u202a\u202b\u202c\u202d") == "\\u202a\\u202b\\u202c\\u202d");
  CHECK(input::printable("\u2066\u2067\u2068\u2069") == "\\u2066\\u2067\\u2068\\u2069");
  CHECK(input::printable("\u200e\u200f\u061c") == "\\u200e\\u200f\\u061c");
  // ESC, other C0 controls, DEL and C1 controls.
  CHECK(input::printable("\x1b[31mred\x07\x7f") == "\\u001b[31mred\\u0007\\u007f");
  CHECK(input::printable("\xc2\x9b"
                         "2J") == "\\u009b2J");
  // Neighbours of the ranges are ordinary text.
  CHECK(input::printable("\u2029\u202f\u2065\u206a\u061b") == "\u2029\u202f\u2065\u206a\u061b");
  // In a message: every line escaped, the lines kept.
  CHECK(input::printable_message("one \u202e\nand\x1b two") == "one \\u202e\nand\\u001b two");
  // A value echoed by the reader.
  input::JsonFields fields("case\u202e.json");
  (void)fields.choice(nlohmann::json("jacobi2d\u202e\u2066"), "/model", {"jacobi2d"});
  const std::string message = error_of([&] { fields.throw_if_any(); });
  CHECK(message.find("\u202e") == std::string::npos);
  CHECK(message.find("\u2066") == std::string::npos);
  CHECK(has(message, "case\\u202e.json: 1 problem:"));
}

TEST_CASE("a diffusivity too small to bound the time step is refused in finite terms") {
  for (const double nu : {1e-320, 1e-315}) {
    const std::string refusal = joined(model_problems("heat3d", {{"nu", nu}}));
    CAPTURE(refusal);
    CHECK(has(refusal, "/heat3d/nu: "));
    CHECK(has(refusal, "is not allowed: too small to bound the time step"));
    CHECK(has(refusal, "expected a diffusivity from "));
    CHECK(!has(refusal, "inf"));
    CHECK(!has(refusal, "nan"));
  }
  // With its own dt as well.
  const std::string with_dt = joined(model_problems("heat3d", {{"nu", 1e-320}, {"dt", 0.001}}));
  CHECK(has(with_dt, "/heat3d/nu: "));
  CHECK(!has(with_dt, "inf"));
  // Small but finite bounds still work as before.
  CHECK(model_problems("heat3d", {{"nu", 1e-200}}).empty());
  CHECK(has(joined(model_problems("heat3d", {{"nu", 1}, {"dt", 0.01}, {"nx", 32}})),
            "/heat3d/dt: 0.01 is not allowed: the explicit scheme is stable for dt <= 0.000"));
}

TEST_CASE("a byte-order mark before a document is skipped; before blanks it is an empty file") {
  const std::string mark = "\xEF\xBB\xBF";
  CHECK(input::parse_json(mark + R"({"model": "heat3d"})", "case.json")["model"] == "heat3d");
  const auto with_document = scratch("bom_document.json");
  std::ofstream(with_document) << mark << "{\"model\": \"heat3d\"}\n";
  CHECK(input::parse_json(input::read_json_text(with_document, "a JSON case file", ""),
                          with_document.string())["model"] == "heat3d");
  const auto blanks = scratch("bom_blanks.json");
  std::ofstream(blanks) << mark << "  \n\t\n";
  const auto empty = scratch("empty.json");
  std::ofstream(empty) << "";
  const auto message_of = [](const std::filesystem::path& path) {
    return error_of([&] { (void)input::read_json_text(path, "a JSON case file", ""); });
  };
  CHECK(message_of(blanks) == blanks.string() + ": is empty; expected a JSON case file");
  CHECK(message_of(empty) == empty.string() + ": is empty; expected a JSON case file");
  // A mark anywhere else is no blank.
  CHECK(error_of([&] { (void)input::parse_json("{}" + mark, "case.json"); }) != "accepted");
}
