#include "json_input.hpp"

#include <fmt/format.h>

#include "haloflow/error.hpp"
#include "input_files.hpp"
#include "json_document.hpp"
#include "printable.hpp"

namespace haloflow::input {

std::string read_json_text(const std::filesystem::path& path, const std::string& expected,
                           const std::string& hint, const JsonLimits& limits) {
  std::optional<std::string> text = read_input_file(path, expected, limits.file_bytes);
  if (!text) {
    throw Error(fmt::format("{}: cannot be opened for reading: no such file",
                            printable(path.string(), 300)));
  }
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error(
        fmt::format("{}: is empty; expected {}{}", printable(path.string(), 300), expected, hint));
  }
  return std::move(*text);
}

nlohmann::json parse_json(const std::string& text, const std::string& source,
                          const JsonLimits& limits) {
  const std::string name = printable(source, 300);
  // nlohmann_json takes a NUL byte for the end of the text and would ignore what follows.
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < nul; ++i) {
      if (text[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    throw Error(
        fmt::format("{}: not valid JSON: a NUL byte at line {}, column {} (byte {} of {}); "
                    "a JSON text holds none",
                    name, line, nul - line_start + 1, nul + 1, text.size()));
  }
  nlohmann::json document;
  JsonProblem problem;
  if (!read_document(text, limits, document, problem)) {
    if (problem.syntax) throw Error(fmt::format("{}: not valid JSON: {}", name, problem.problem));
    throw Error(fmt::format("{}: {}: {}", name,
                            problem.pointer.empty() ? "/" : printable(problem.pointer, 200),
                            problem.problem));
  }
  return document;
}

}  // namespace haloflow::input
