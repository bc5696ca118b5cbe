#include "input_files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "haloflow/error.hpp"

namespace haloflow::input {

std::optional<std::string> read_input_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: could not be read", path.string()));
  return bytes.str();
}

}  // namespace haloflow::input
