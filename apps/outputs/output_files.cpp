#include "output_files.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "haloflow/error.hpp"

namespace haloflow::app {

void refuse_existing(const std::string& path, bool force) {
  if (!force && std::filesystem::exists(path)) {
    throw Error(fmt::format("{} exists; pass --force to overwrite it", path));
  }
}

void write_output_file(const std::string& path, const std::string& text, bool force) {
  refuse_existing(path, force);
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw Error(fmt::format("{}: could not be written", path));
}

}  // namespace haloflow::app
