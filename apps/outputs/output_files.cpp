#include "output_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "haloflow/error.hpp"

namespace haloflow::outputs {
namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// Writes the parts to `path`, flushed (and with `sync`, on disk); false on any failure.
bool write_parts(const std::filesystem::path& path, const std::vector<std::string_view>& parts,
                 bool sync) {
  std::FILE* raw = std::fopen(path.c_str(), "wb");
  if (raw == nullptr) return false;
  File file(raw, &std::fclose);
  for (const std::string_view part : parts) {
    if (std::fwrite(part.data(), 1, part.size(), file.get()) != part.size()) return false;
  }
  if (std::fflush(file.get()) != 0) return false;
  if (sync && fsync(fileno(file.get())) != 0) return false;
  return std::fclose(file.release()) == 0;
}

}  // namespace

void refuse_existing(const std::filesystem::path& path, bool replace) {
  if (!replace && std::filesystem::exists(path)) {
    throw Error(fmt::format("{} exists; pass --force to overwrite it", path.string()));
  }
}

void write_output_file(const std::filesystem::path& path,
                       const std::vector<std::string_view>& parts, const WriteOptions& options) {
  refuse_existing(path, options.replace);
  if (!options.durable) {
    if (!write_parts(path, parts, false)) {
      throw Error(fmt::format("{}: cannot be written: {}", path.string(), std::strerror(errno)));
    }
    return;
  }
  const std::filesystem::path temporary = path.string() + ".tmp";
  if (!write_parts(temporary, parts, true)) {
    const int cause = errno;
    std::remove(temporary.c_str());
    throw Error(fmt::format("{}: could not be written and flushed to disk: {}", temporary.string(),
                            std::strerror(cause)));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    throw Error(fmt::format("{}: cannot be renamed to {}: {}", temporary.string(), path.string(),
                            std::strerror(errno)));
  }
}

}  // namespace haloflow::outputs
