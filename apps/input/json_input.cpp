#include "json_input.hpp"

#include <fmt/format.h>

#include "haloflow/error.hpp"
#include "input_files.hpp"

namespace haloflow::input {

std::string read_json_text(const std::filesystem::path& path, const std::string& expected,
                           const std::string& hint) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw Error(fmt::format("{}: is a directory; expected {}", path.string(), expected));
  }
  std::optional<std::string> text = read_input_file(path);
  if (!text) throw Error(fmt::format("{}: cannot be opened for reading", path.string()));
  std::string content = std::move(*text);
  if (content.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error(fmt::format("{}: is empty; expected {}{}", path.string(), expected, hint));
  }
  return content;
}

nlohmann::json parse_json(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& parse) {
    throw Error(fmt::format("{}: not valid JSON: {}", source, parse.what()));
  }
}

}  // namespace haloflow::input
