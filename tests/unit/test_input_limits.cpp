// The limits on what haloflow reads: files that are regular and bounded, JSON whose
// depth, strings, keys and numbers are checked as it is parsed, and messages whose echoed input
// is escaped and cut.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "haloflow/error.hpp"
#include "input_files.hpp"
#include "json_fields.hpp"
#include "json_input.hpp"
#include "printable.hpp"

using namespace haloflow;

namespace {

std::string parse_error(const std::string& text) {
  try {
    (void)input::parse_json(text, "case.json");
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

std::filesystem::path scratch(const std::string& name) {
  const auto directory = std::filesystem::path(HALOFLOW_TEST_OUTPUT_DIR) / "input_limits";
  std::filesystem::create_directories(directory);
  const auto path = directory / name;
  std::filesystem::remove(path);
  return path;
}

}  // namespace

TEST_CASE("a document nested deeper than the limit is refused before anything recurses") {
  // 100 000 levels: the stack overflow on every rank. The parser is iterative and stops at
  // the limit, so neither the reader nor a message walks the whole value.
  const std::string deep =
      "{\"model\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const std::string message = parse_error(deep);
  CHECK(message.starts_with("case.json: /model/0/0/0/"));
  CHECK(message.find("is nested deeper than 32 levels of arrays and objects") != std::string::npos);
  CHECK(parse_error("[[[[1]]]]") == "accepted");
}

TEST_CASE("a duplicate key is refused naming both places") {
  CHECK(parse_error("{\"run\": {\"steps\": 1,\n  \"steps\": 100000000}}") ==
        "case.json: /run/steps: duplicate key \"steps\": at line 1, column 10 and again at line "
        "2, column 3; a key may appear once in an object");
  // The same key in different objects is fine.
  CHECK(parse_error("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}") == "accepted");
  // An escaped quote inside an earlier key does not confuse where the key starts.
  CHECK(parse_error("{\"a\\\"b\": 1, \"a\\\"b\": 2}")
            .find("at line 1, column 2 and again at line "
                  "1, column 13") != std::string::npos);
}

TEST_CASE("a NUL byte and text after the document are refused") {
  CHECK(parse_error(std::string("{\"model\": \"seed\"}\0{\"x\": 1}", 26)) ==
        "case.json: not valid JSON: a NUL byte at line 1, column 18 (byte 18 of 26); a JSON text "
        "holds none");
  CHECK(parse_error("{\"model\": \"seed\"} {}")
            .find("not valid JSON: parse error at line 1, "
                  "column 19") != std::string::npos);
}

TEST_CASE("a number out of a double's range is named by its pointer") {
  CHECK(parse_error("{\"run\": {\"steps\": 1e400}}") ==
        "case.json: /run/steps: 1e400 is out of range: a number must lie within -1.8e308 to "
        "1.8e308");
  CHECK(parse_error("{\"a\": [1, -1e999]}").starts_with("case.json: /a/1: -1e999 is out of range"));
}

TEST_CASE("strings and keys longer than the limit are refused, shown cut") {
  const std::string long_value = "{\"description\": \"" + std::string(5000, 'x') + "\"}";
  CHECK(parse_error(long_value) ==
        "case.json: /description: a string of 5000 bytes (xxxxxxxxxxxxxxxxxxxx...); a string "
        "holds at most 4096 bytes");
  const std::string long_key = "{\"" + std::string(5000, 'k') + "\": 1}";
  const std::string message = parse_error(long_key);
  CHECK(message.find(": a key of 5000 bytes") != std::string::npos);
  CHECK(message.size() < 400);
}

TEST_CASE("a number with no fractional part is an integer, as JSON Schema has it") {
  const auto document = input::parse_json(
      "{\"a\": 32.0, \"b\": 32.5, \"c\": 1e300, \"d\": -0.0, \"e\": 9.3e18, \"f\": 4096}",
      "case.json");
  input::JsonFields fields("case.json");
  CHECK(fields.integer(document, "/a", 7, 1, 100) == 32);
  CHECK(fields.integer(document, "/d", 7, -5, 5) == 0);
  CHECK(fields.integer(document, "/f", 7, 1, 100000) == 4096);
  CHECK(fields.problems().empty());
  CHECK(fields.integer(document, "/b", 7, 1, 100) == 7);
  CHECK(fields.integer(document, "/c", 7, 1, std::numeric_limits<std::int64_t>::max()) == 7);
  CHECK(fields.integer(document, "/e", 7, 1, std::numeric_limits<std::int64_t>::max()) == 7);
  CHECK(fields.integer(document, "/a", 7, 1, 31) == 7);
  REQUIRE(fields.problems().size() == 4);
  CHECK(fields.problems()[0] == "/b: 32.5 is not allowed; expected an integer from 1 to 100");
  CHECK(fields.problems()[1].starts_with("/c: 1e+300 is not allowed; expected an integer"));
  CHECK(fields.problems()[2].starts_with("/e: 9.3e+18 is not allowed; expected an integer"));
  CHECK(fields.problems()[3] == "/a: 32.0 is not allowed; expected an integer from 1 to 31");
}

TEST_CASE("keys with control characters and slashes are escaped in pointers and messages") {
  input::JsonFields fields("case.json");
  const auto document =
      input::parse_json("{\"st\\neps\\u001b[31m\": 1, \"a/b~c\": 2}", "case.json");
  fields.only_keys(document, "/run", {"steps"});
  REQUIRE(fields.problems().size() == 2);
  CHECK(fields.problems()[0].starts_with("/run/a~1b~0c: unknown key"));
  CHECK(fields.problems()[1].starts_with("/run/st\\neps\\u001b[31m: unknown key"));
  for (const auto& problem : fields.problems()) {
    for (const char c : problem) CHECK(static_cast<unsigned char>(c) >= 0x20);
  }
}

TEST_CASE("printable escapes control characters, C1 controls and bad UTF-8, and cuts") {
  CHECK(input::printable("a\nb\tc\x1b[0m") == "a\\nb\\tc\\u001b[0m");
  CHECK(input::printable("\xc2\x9b"
                         "31m") == "\\u009b31m");
  CHECK(input::printable("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(input::printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(input::printable(std::string(100, 'a'), 10) == std::string(10, 'a') + "...");
  // A multi-byte character is never split by the cut.
  CHECK(input::printable("aaaaaaaaa\xc3\xa9", 10) == "aaaaaaaaa\xc3\xa9");
  CHECK(input::printable_message("line one\nline \x1b two") == "line one\nline \\u001b two");
}

TEST_CASE("shown previews a large value without serialising it all") {
  nlohmann::json big = nlohmann::json::array();
  for (int i = 0; i < 100000; ++i) big.push_back(i);
  const std::string text = input::shown(big);
  CHECK(text.starts_with("[0,1,2,3"));
  CHECK(text.ends_with("..."));
  CHECK(text.size() <= input::kShownBytes + 3);
  CHECK(input::shown(nlohmann::json(std::nan(""))) == "nan");
  CHECK(input::shown(nlohmann::json("a\nb")) == "\"a\\nb\"");
}

TEST_CASE("a NaN from a command line is refused by name, not let through") {
  input::JsonFields fields("flags");
  const nlohmann::json section = {{"cfl", std::nan("")}};
  (void)fields.number(section, "/euler2d/cfl", 0.4, 0.01, 4);
  REQUIRE(fields.problems().size() == 1);
  CHECK(fields.problems()[0] ==
        "/euler2d/cfl: nan is not allowed; expected a number from 0.01 to 4");
}

TEST_CASE("input files must be regular files of bounded size") {
  const auto fifo = scratch("case.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS((void)input::read_input_file(fifo, "a JSON case file"),
                       (fifo.string() + ": is a FIFO (named pipe), not a regular file; expected a "
                                        "JSON case file")
                           .c_str(),
                       Error);
  CHECK_THROWS_WITH_AS((void)input::read_input_file("/dev/zero", "a JSON case file"),
                       "/dev/zero: is a character device, not a regular file; expected a JSON "
                       "case file",
                       Error);
  const auto big = scratch("big.json");
  std::ofstream(big) << std::string(2000, ' ');
  CHECK_THROWS_WITH_AS((void)input::read_input_file(big, "a JSON case file", 1000),
                       (big.string() + ": holds 2000 bytes; a JSON case file holds at most 1000 "
                                       "bytes")
                           .c_str(),
                       Error);
  CHECK(input::read_input_file(big, "a JSON case file", 2000)->size() == 2000);
  CHECK_FALSE(input::read_input_file(scratch("missing.json"), "a JSON case file").has_value());
}
