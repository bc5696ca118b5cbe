#include "dot_files.hpp"

#include <fmt/format.h>

#include <map>

#include "haloflow/error.hpp"
#include "haloflow/graph_dot.hpp"
#include "output_files.hpp"
#include "printable.hpp"

namespace haloflow::cases {

std::string dot_file_stem(const std::string& plan_name) {
  std::string stem;
  for (const char c : plan_name) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    stem += kept ? c : '_';
  }
  if (stem.find_first_not_of('_') == std::string::npos) return "frame";
  if (stem.front() == '.') stem.front() = '_';  // never a hidden file, nor "." or ".."
  return stem;
}

std::vector<std::string> dot_file_stems(const std::vector<std::string>& plan_names) {
  std::vector<std::string> stems;
  std::map<std::string, int> seen;
  for (const std::string& name : plan_names) {
    const std::string stem = dot_file_stem(name);
    const int times = ++seen[stem];
    stems.push_back(times == 1 ? stem : fmt::format("{}.{}", stem, times));
  }
  return stems;
}

void check_dot_directory(const std::filesystem::path& dir, bool force) {
  const std::string shown = input::printable(dir.string(), 300);
  std::error_code error;
  const auto status = std::filesystem::symlink_status(dir, error);
  if (std::filesystem::is_symlink(status)) {
    throw Error(fmt::format("--dot {}: is a symbolic link; name the directory itself", shown));
  }
  if (!std::filesystem::exists(status)) {
    const std::filesystem::path parent =
        dir.has_parent_path() ? dir.parent_path() : std::filesystem::path(".");
    if (!std::filesystem::is_directory(parent, error)) {
      throw Error(fmt::format("--dot {}: its folder {} does not exist", shown,
                              input::printable(parent.string(), 300)));
    }
    return;
  }
  if (!std::filesystem::is_directory(status)) {
    throw Error(fmt::format(
        "--dot {}: exists and is not a directory; --dot names a directory that gets a .dot "
        "file per frame",
        shown));
  }
  if (force) return;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".dot") {
      throw Error(fmt::format("--dot {}: already holds {}; pass --force to overwrite it", shown,
                              input::printable(entry.path().filename().string(), 300)));
    }
  }
}

std::vector<outputs::WrittenFile> write_dot_files(const std::vector<Frame*>& frames,
                                                  const std::filesystem::path& dir, bool force,
                                                  bool cuda) {
  std::error_code error;
  std::filesystem::create_directory(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw Error(fmt::format("--dot {}: the directory could not be made{}",
                            input::printable(dir.string(), 300),
                            error ? " (" + error.message() + ")" : std::string()));
  }
  std::vector<std::string> names;
  for (const Frame* frame : frames) names.push_back(frame->plan().name());
  const std::vector<std::string> stems = dot_file_stems(names);
  std::vector<outputs::WrittenFile> written;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::filesystem::path path = dir / (stems[i] + ".dot");
    const std::string text = frames[i]->plan().to_dot();
    outputs::write_output_file(path, text, {.replace = force});
    written.push_back({.path = path, .bytes = text.size()});
    if (!cuda) continue;
    // CUDA writes this one itself (cudaGraphDebugDotPrint): refused here unless forced.
    const std::filesystem::path cuda_path = dir / (stems[i] + ".cuda.dot");
    outputs::check_output_file(cuda_path, force);
    write_cuda_graph_dot(*frames[i], cuda_path.string());
    written.push_back({.path = cuda_path, .bytes = std::filesystem::file_size(cuda_path, error)});
    if (error) written.back().bytes = outputs::kUnknownSize;
  }
  return written;
}

}  // namespace haloflow::cases
