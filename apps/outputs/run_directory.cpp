#include "run_directory.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <vector>

#include "haloflow/error.hpp"
#include "output_files.hpp"
#include "printable.hpp"
#include "run_output.hpp"

namespace haloflow::outputs {
namespace fs = std::filesystem;
namespace {

using input::printable;

// How many of the entries a refusal names before it only counts the rest.
constexpr std::size_t kNamedEntries = 8;

std::string shown(const fs::path& path) {
  return printable(path.string(), 300);
}

// A host name as part of a file name: letters, digits, '.' and '-' only.
std::string file_name_part(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-';
    out += plain ? c : '_';
  }
  return out.empty() ? std::string("host") : out.substr(0, 64);
}

std::string manifest_name() {
  return fmt::format("{}{}-{}", kManifestPrefix, file_name_part(host_name()), ::getpid());
}

// The directory's name without a trailing separator ("runs/a/" -> "runs/a").
fs::path without_trailing_separator(const fs::path& directory) {
  fs::path normal = directory.lexically_normal();
  if (!normal.has_filename() && normal.has_parent_path()) normal = normal.parent_path();
  return normal;
}

// Writes the marker into the directory just made; the directory is removed again on failure.
void mark(const fs::path& directory) {
  const nlohmann::json marker = {{"haloflow_run_directory", 1},
                                 {"created", utc_date_now()},
                                 {"host", host_name()},
                                 {"pid", static_cast<long>(::getpid())}};
  const std::string text = marker.dump() + "\n";
  const fs::path path = directory / kRunMarker;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool written =
      fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int cause = errno;
  if (fd >= 0 && ::close(fd) != 0) written = false;
  if (!written) {
    if (fd >= 0) ::unlink(path.c_str());
    throw Error(fmt::format("run directory {}: cannot be marked as haloflow's ({}): {}",
                            shown(directory), shown(path.filename()), std::strerror(cause)));
  }
}

bool is_regular_here(const fs::path& path) {
  struct stat status {};
  return ::lstat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// What the manifests of `directory` list: files, and folders (noted with a trailing '/').
struct Listed {
  std::set<std::string> files;
  std::set<std::string> folders;
};

Listed read_manifests(const fs::path& directory) {
  Listed listed;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kManifestPrefix) || !is_regular_here(entry.path())) continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      // A process killed while it noted a path leaves a torn last line: it names nothing.
      const nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
      if (!value.is_string()) continue;
      std::string path = value.get<std::string>();
      if (path.ends_with('/')) {
        path.pop_back();
        listed.folders.insert(fs::path(path).lexically_normal().generic_string());
      } else {
        listed.files.insert(fs::path(path).lexically_normal().generic_string());
      }
    }
  }
  return listed;
}

std::string kind_of(const fs::file_status& status) {
  switch (status.type()) {
    case fs::file_type::symlink:
      return " (a symbolic link)";
    case fs::file_type::directory:
      return "/ (a folder)";
    case fs::file_type::character:
      return " (a character device)";
    case fs::file_type::block:
      return " (a block device)";
    case fs::file_type::fifo:
      return " (a named pipe)";
    case fs::file_type::socket:
      return " (a socket)";
    default:
      return "";
  }
}

// What a run directory holds, sorted into haloflow's (to remove) and anything else.
struct Survey {
  std::vector<fs::path> files;    // listed files and haloflow temporaries
  std::vector<fs::path> folders;  // listed folders
  std::vector<std::string> foreign;
};

// \throws Error when `directory` is a link, not a directory, or not a run directory.
Survey survey(const fs::path& directory) {
  std::error_code error;
  const auto status = fs::symlink_status(directory, error);
  if (fs::is_symlink(status)) {
    throw Error(fmt::format(
        "{}: is a symbolic link; haloflow neither writes through nor removes a link it did not "
        "make: name the directory itself (nothing was written or removed)",
        shown(directory)));
  }
  if (!fs::is_directory(status)) {
    throw Error(fmt::format("{}: exists and is not a directory (nothing was written or removed)",
                            shown(directory)));
  }
  if (!is_regular_here(directory / kRunMarker)) {
    throw Error(fmt::format(
        "{}: not a run directory haloflow made (it has no {}), so --force does not replace it: "
        "choose another --out, or remove it yourself (nothing was written or removed)",
        shown(directory), kRunMarker));
  }
  const Listed listed = read_manifests(directory);
  Survey found;
  for (auto it = fs::recursive_directory_iterator(directory, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path relative = it->path().lexically_relative(directory);
    const std::string name = relative.generic_string();
    const std::string leaf = it->path().filename().string();
    const fs::file_status entry = it->symlink_status(error);
    if (error) break;
    const bool top = relative.has_parent_path() == false;
    if (fs::is_directory(entry)) {
      if (listed.folders.contains(name)) {
        found.folders.push_back(it->path());
      } else {
        found.foreign.push_back(name + kind_of(entry));
        it.disable_recursion_pending();  // its contents are not haloflow's either
      }
    } else if (fs::is_regular_file(entry)) {
      if (top && (leaf == kRunMarker || leaf.starts_with(kManifestPrefix))) continue;
      if (listed.files.contains(name) || is_temporary_name(leaf)) {
        found.files.push_back(it->path());
      } else {
        found.foreign.push_back(name);
      }
    } else {
      found.foreign.push_back(name + kind_of(entry));
    }
  }
  if (error) {
    throw Error(fmt::format("run directory {}: cannot be read: {} (nothing was written or removed)",
                            shown(directory), error.message()));
  }
  std::sort(found.foreign.begin(), found.foreign.end());
  return found;
}

std::string named_entries(const std::vector<std::string>& entries) {
  std::string text;
  for (std::size_t i = 0; i < entries.size() && i < kNamedEntries; ++i) {
    text += (i == 0 ? "" : ", ") + printable(entries[i], 200);
  }
  if (entries.size() > kNamedEntries) {
    text += fmt::format(" and {} more", entries.size() - kNamedEntries);
  }
  return text;
}

void refuse_foreign(const fs::path& directory, const std::vector<std::string>& foreign) {
  throw Error(fmt::format(
      "run directory {}: holds what haloflow did not write: {}; --force replaces only a run "
      "directory that holds nothing else (haloflow neither writes through nor removes what it "
      "did not make): move those out or choose another --out (nothing was written or removed)",
      shown(directory), named_entries(foreign)));
}

}  // namespace

bool make_run_directory(const fs::path& directory) {
  const fs::path target = without_trailing_separator(directory);
  std::error_code error;
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), error);
    if (error) {
      throw Error(fmt::format("run directory {}: its folder {} cannot be made: {}", shown(target),
                              shown(target.parent_path()), error.message()));
    }
  }
  if (::mkdir(target.c_str(), 0755) != 0) {
    if (errno == EEXIST) return false;
    throw Error(
        fmt::format("run directory {}: cannot be made: {}", shown(target), std::strerror(errno)));
  }
  try {
    mark(target);
  } catch (const Error&) {
    ::rmdir(target.c_str());
    throw;
  }
  return true;
}

void adopt_empty_directory(const fs::path& directory) {
  std::error_code error;
  if (!fs::is_empty(directory, error) || error) {
    throw Error(fmt::format("run directory {}: is not empty", shown(directory)));
  }
  mark(directory);
}

fs::path make_numbered_run_directory(const fs::path& base) {
  const fs::path first = without_trailing_separator(base);
  if (make_run_directory(first)) return first;
  for (int n = 2; n < 1000000; ++n) {
    const fs::path next = first.string() + fmt::format(".{}", n);
    if (make_run_directory(next)) return next;
  }
  throw Error(fmt::format("run directory {}: {}.2 to {}.999999 all exist; choose --out",
                          shown(first), shown(first), shown(first)));
}

void note_written(const fs::path& directory, const fs::path& relative, bool folder) {
  static std::mutex mutex;
  static std::set<std::string> noted;
  std::string entry = relative.lexically_normal().generic_string();
  while (entry.ends_with('/')) entry.pop_back();
  if (folder) entry += '/';
  const std::lock_guard lock(mutex);
  const std::string key = directory.lexically_normal().string() + '\n' + entry;
  if (noted.contains(key)) return;
  const fs::path manifest = directory / manifest_name();
  const std::string line = nlohmann::json(entry).dump() + "\n";
  const int fd =
      ::open(manifest.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool written =
      fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  const int cause = errno;
  if (fd >= 0 && ::close(fd) != 0) written = false;
  if (!written) {
    throw Error(fmt::format(
        "{}: cannot be written: the run directory's list of what haloflow wrote ({}): {} "
        "(nothing was written)",
        shown(directory / relative), shown(manifest.filename()), std::strerror(cause)));
  }
  noted.insert(key);
}

bool is_run_directory(const fs::path& directory) {
  std::error_code error;
  return fs::is_directory(fs::symlink_status(directory, error)) &&
         is_regular_here(directory / kRunMarker);
}

std::string run_status(const fs::path& directory) {
  const fs::path path = directory / "results.json";
  std::error_code error;
  if (!is_regular_here(path) || fs::file_size(path, error) > (64u << 20) || error) return "";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json results = nlohmann::json::parse(text.str(), nullptr, false);
  if (!results.is_object() || !results.contains("status") || !results["status"].is_string()) {
    return "";
  }
  return results["status"].get<std::string>();
}

std::string describe_run_directory(const fs::path& directory) {
  if (!is_run_directory(directory)) return "";
  const std::string status = run_status(directory);
  if (status == "running") {
    std::string started;
    std::ifstream in(directory / "results.json");
    const nlohmann::json results = nlohmann::json::parse(in, nullptr, false);
    if (results.is_object() && results.contains("started") && results["started"].is_object()) {
      const auto& s = results["started"];
      started = fmt::format(", started {} by process {} on {}", s.value("date", "?"),
                            s.value("pid", 0L), printable(s.value("host", "?"), 100));
    }
    return fmt::format(
        "it holds a run that never finished (results.json says running{}): it was stopped or "
        "killed",
        started);
  }
  if (status == "interrupted") return "it holds an interrupted run";
  if (status == "failed") return "it holds a run that failed";
  return "";
}

void check_replaceable(const fs::path& directory) {
  const Survey found = survey(directory);
  if (!found.foreign.empty()) refuse_foreign(directory, found.foreign);
}

void remove_run_directory(const fs::path& directory) {
  Survey found = survey(directory);
  if (!found.foreign.empty()) refuse_foreign(directory, found.foreign);
  std::error_code error;
  for (const fs::path& file : found.files) fs::remove(file, error);
  // Deepest folders first: each is empty once what is below it is gone.
  std::sort(found.folders.begin(), found.folders.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  for (const fs::path& folder : found.folders) ::rmdir(folder.c_str());
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kManifestPrefix)) fs::remove(entry.path(), error);
  }
  fs::remove(directory / kRunMarker, error);
  if (::rmdir(directory.c_str()) != 0) {
    const int cause = errno;
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(directory, error)) {
      left.push_back(entry.path().filename().string());
    }
    throw Error(fmt::format("run directory {}: cannot be removed entirely ({}){}{}",
                            shown(directory), std::strerror(cause),
                            left.empty() ? "" : "; left: ", named_entries(left)));
  }
}

fs::path make_rerun_directory(const fs::path& directory) {
  const fs::path target = without_trailing_separator(directory);
  const std::string base = target.string() + fmt::format(".rerun-{}", ::getpid());
  for (int n = 1; n < 1000; ++n) {
    const fs::path candidate = n == 1 ? fs::path(base) : fs::path(fmt::format("{}-{}", base, n));
    if (make_run_directory(candidate)) return candidate;
  }
  throw Error(
      fmt::format("run directory {}: no name beside it is free for the rerun", shown(target)));
}

std::string replace_run_directory(const fs::path& rerun, const fs::path& directory) {
  const fs::path target = without_trailing_separator(directory);
  fs::path previous = rerun;  // where the previous run is after the exchange
  if (::renameat2(AT_FDCWD, rerun.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) {
      throw Error(fmt::format("run directory {}: the rerun in {} cannot be put in its place: {}",
                              shown(target), shown(rerun), std::strerror(errno)));
    }
    // No atomic exchange on this file system: two renames, with a moment between them when
    // the directory's name is free.
    previous = target.string() + fmt::format(".previous-{}", ::getpid());
    if (::rename(target.c_str(), previous.c_str()) != 0) {
      throw Error(fmt::format("run directory {}: cannot be moved aside for the rerun: {}",
                              shown(target), std::strerror(errno)));
    }
    if (::rename(rerun.c_str(), target.c_str()) != 0) {
      const int cause = errno;
      ::rename(previous.c_str(), target.c_str());
      throw Error(fmt::format("run directory {}: the rerun in {} cannot be put in its place: {}",
                              shown(target), shown(rerun), std::strerror(cause)));
    }
  }
  try {
    remove_run_directory(previous);
  } catch (const Error& error) {
    return fmt::format(
        "haloflow: the previous run could not be removed entirely and is left in "
        "{}: {}",
        shown(previous), error.what());
  }
  return "";
}

}  // namespace haloflow::outputs
