#pragma once
// The files a run wrote, with their sizes: what `haloflow run` announces at the end and lists in
// results.json. The writers report what they wrote (their bytes), so nothing is looked up on disk
// that another rank or an earlier run left there.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace haloflow::outputs {

//! What std::filesystem::file_size returns on an error: never a size (WrittenFiles::add drops it).
inline constexpr std::uint64_t kUnknownSize = static_cast<std::uint64_t>(-1);

struct WrittenFile {
  std::filesystem::path path;  //!< as the run named it (the run directory's path in front)
  std::uint64_t bytes = 0;
};

//! "596 B", "1.2 KiB", "3.40 MiB", "1.05 GiB".
[[nodiscard]] std::string size_text(std::uint64_t bytes);

class WrittenFiles {
 public:
  //! Files under `run_directory` are listed relative to it in results.json.
  explicit WrittenFiles(std::filesystem::path run_directory)
      : run_directory_(std::move(run_directory)) {}

  //! Notes a file; one written again (the .pvd after each output) keeps its newest size. A file
  //! of kUnknownSize bytes (a failed file_size) is not noted.
  void add(const WrittenFile& file);
  void add(const std::vector<WrittenFile>& files);

  //! The run directory's files are now under `run_directory` (a rerun put in place of the
  //! previous run): their paths say so from now on.
  void relocate(const std::filesystem::path& run_directory);

  [[nodiscard]] const std::vector<WrittenFile>& files() const { return files_; }
  [[nodiscard]] std::uint64_t total_bytes() const;

  //! The lines the command prints: a heading with the count and total, then a line per file;
  //! with more than `most` files, the files of each subdirectory of the run directory as one line
  //! (count, total, first and last name) and the others a line each.
  [[nodiscard]] std::string announcement(std::size_t most = 40) const;

  //! [{"file": path relative to the run directory (absolute, outside it), "bytes": n}, ...].
  [[nodiscard]] nlohmann::json json() const;

 private:
  //! The path relative to the run directory; nothing for a file outside it.
  [[nodiscard]] std::optional<std::filesystem::path> inside(
      const std::filesystem::path& path) const;

  std::filesystem::path run_directory_;
  std::vector<WrittenFile> files_;
  std::map<std::string, std::size_t> index_;  //!< path -> its entry in files_
};

}  // namespace haloflow::outputs
