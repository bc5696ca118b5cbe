#include "written_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "printable.hpp"

namespace haloflow::outputs {

std::string size_text(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  for (; value >= 1024 && unit + 1 < std::size(units); ++unit) value /= 1024;
  return fmt::format("{:.{}f} {}", value, value < 10 ? 2 : 1, units[unit]);
}

void WrittenFiles::add(const WrittenFile& file) {
  // std::filesystem::file_size's answer on an error ((uintmax_t)-1) is no size: such a file is
  // left out rather than listed with 16 EiB.
  if (file.bytes == kUnknownSize) return;
  const auto [at, added] = index_.try_emplace(file.path.string(), files_.size());
  if (added) {
    files_.push_back(file);
  } else {
    files_[at->second].bytes = file.bytes;
  }
}

void WrittenFiles::add(const std::vector<WrittenFile>& files) {
  for (const WrittenFile& file : files) add(file);
}

std::uint64_t WrittenFiles::total_bytes() const {
  std::uint64_t total = 0;
  for (const WrittenFile& file : files_) total += file.bytes;
  return total;
}

void WrittenFiles::relocate(const std::filesystem::path& run_directory) {
  index_.clear();
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (const auto within = inside(files_[i].path)) files_[i].path = run_directory / *within;
    index_[files_[i].path.string()] = i;
  }
  run_directory_ = run_directory;
}

std::optional<std::filesystem::path> WrittenFiles::inside(const std::filesystem::path& path) const {
  std::filesystem::path within =
      path.lexically_normal().lexically_relative(run_directory_.lexically_normal());
  if (within.empty() || *within.begin() == "..") return std::nullopt;
  return within;
}

std::string WrittenFiles::announcement(std::size_t most) const {
  std::string text = fmt::format("wrote {} file{} ({} in all):\n", files_.size(),
                                 files_.size() == 1 ? "" : "s", size_text(total_bytes()));
  const auto line = [](const std::string& name, std::uint64_t bytes) {
    return fmt::format("  {:<56} {:>10}\n", input::printable(name, 300), size_text(bytes));
  };
  if (files_.size() <= most) {
    for (const WrittenFile& file : files_) text += line(file.path.string(), file.bytes);
    return text;
  }
  // Each subdirectory of the run directory (vtk/, png/, checkpoints/) as one line.
  struct Folder {
    std::size_t count = 0;
    std::uint64_t bytes = 0;
    std::string first, last;
  };
  std::map<std::string, Folder> folders;
  for (const WrittenFile& file : files_) {
    const auto within = inside(file.path);
    if (!within || std::distance(within->begin(), within->end()) < 2) {
      text += line(file.path.string(), file.bytes);
      continue;
    }
    Folder& folder = folders[(run_directory_ / *within->begin()).string()];
    const std::string name = within->filename().string();
    if (folder.count == 0 || name < folder.first) folder.first = name;
    if (folder.count == 0 || name > folder.last) folder.last = name;
    ++folder.count;
    folder.bytes += file.bytes;
  }
  for (const auto& [name, folder] : folders) {
    text += line(
        fmt::format("{}/ ({} files: {} ... {})", name, folder.count, folder.first, folder.last),
        folder.bytes);
  }
  return text;
}

nlohmann::json WrittenFiles::json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const WrittenFile& file : files_) {
    const auto within = inside(file.path);
    // A file outside the run directory (--json, --dot, --dump) by its absolute path: the run
    // directory's reader cannot know the directory the command ran in.
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(file.path, error);
    out.push_back({{"file", within ? within->string() : (error ? file.path : absolute).string()},
                   {"bytes", file.bytes}});
  }
  return out;
}

}  // namespace haloflow::outputs
