#include "json_input.hpp"

#include <fmt/format.h>

#include "haloflow/error.hpp"
#include "input_files.hpp"
#include "json_document.hpp"
#include "printable.hpp"

namespace haloflow::input {
namespace {

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

}  // namespace

std::string read_json_text(const std::filesystem::path& path, const std::string& expected,
                           const std::string& hint, const JsonLimits& limits) {
  std::optional<std::string> text = read_input_file(path, expected, limits.file_bytes);
  if (!text) {
    throw Error(fmt::format("{}: cannot be opened for reading: no such file",
                            printable(path.string(), 300)));
  }
  // A UTF-8 byte-order mark (editors on Windows write one) is not part of the document.
  if (text->starts_with(kByteOrderMark)) text->erase(0, kByteOrderMark.size());
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error(
        fmt::format("{}: is empty; expected {}{}", printable(path.string(), 300), expected, hint));
  }
  return std::move(*text);
}

nlohmann::json parse_json(const std::string& text_with_mark, const std::string& source,
                          const JsonLimits& limits) {
  const std::string name = printable(source, 300);
  // A leading byte-order mark is skipped (RFC 8259 lets a parser ignore it); one anywhere else
  // is text after or inside the document, for the parser to name.
  const std::size_t skipped =
      std::string_view(text_with_mark).starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0;
  const std::string_view text = std::string_view(text_with_mark).substr(skipped);
  // nlohmann_json takes a NUL byte for the end of the text and would ignore what follows.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
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
                    name, line, nul - line_start + 1, skipped + nul + 1, text_with_mark.size()));
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
