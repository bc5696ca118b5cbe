#include "output_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "haloflow/error.hpp"
#include "printable.hpp"
#include "run_directory.hpp"

namespace haloflow::outputs {
namespace {

using input::printable;

constexpr std::string_view kTemporaryMark = ".haloflow-tmp-";

// An open file descriptor, closed when it goes out of scope (close() reports the error of the
// last write on some file systems, so commit() closes and checks).
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor(Descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool open() const { return fd_ >= 0; }
  //! Closes now; \returns false (errno set) when close reports an error.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

std::string name_of(const std::filesystem::path& path) {
  return printable(path.string(), 300);
}

// A file size limit (ulimit -f) must be a write error haloflow reports, not SIGXFSZ killing the
// process with the partial file left behind.
void report_file_size_limits_as_errors() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGXFSZ, SIG_IGN); });
}

std::string link_target(int directory, const std::string& name) {
  char target[4096] = {};
  const ssize_t length = ::readlinkat(directory, name.c_str(), target, sizeof target - 1);
  return length < 0 ? std::string("?") : printable(std::string_view(target, length), 200);
}

bool is_link(int directory, const std::string& name) {
  struct stat status {};
  return ::fstatat(directory, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISLNK(status.st_mode);
}

[[noreturn]] void refuse_link(const std::filesystem::path& shown, int directory,
                              const std::string& name, const std::string& where) {
  throw Error(
      fmt::format("{}: is a symbolic link (to {}); haloflow writes nothing through a "
                  "link{}: remove it (nothing was written)",
                  name_of(shown), link_target(directory, name), where));
}

// The directory `path` goes into, opened: below `run_directory` one component at a time without
// following a link; otherwise as the user named it.
Descriptor open_directory_of(const std::filesystem::path& path,
                             const std::filesystem::path& run_directory) {
  const std::filesystem::path parent = path.parent_path();
  if (run_directory.empty()) {
    Descriptor directory(
        ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!directory.open()) {
      throw Error(fmt::format("{}: cannot be written: its directory {}: {}", name_of(path),
                              name_of(parent), std::strerror(errno)));
    }
    return directory;
  }
  const std::filesystem::path below = parent.lexically_relative(run_directory);
  if (below.empty() || *below.begin() == "..") {
    throw Error(fmt::format("{}: is not inside the run directory {}", name_of(path),
                            name_of(run_directory)));
  }
  Descriptor directory(::open(run_directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!directory.open()) {
    throw Error(fmt::format("{}: cannot be written: the run directory {}: {}", name_of(path),
                            name_of(run_directory), std::strerror(errno)));
  }
  std::filesystem::path reached = run_directory;
  for (const auto& part : below) {
    if (part == ".") continue;
    reached /= part;
    Descriptor next(
        ::openat(directory.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.open()) {
      const int cause = errno;
      if (is_link(directory.get(), part.string())) {
        refuse_link(reached, directory.get(), part.string(),
                    fmt::format(" inside the run directory {}", name_of(run_directory)));
      }
      throw Error(fmt::format("{}: cannot be written: {}: {}", name_of(path), name_of(reached),
                              std::strerror(cause)));
    }
    directory = std::move(next);
  }
  return directory;
}

// What kind of file `mode` is, for a refusal ("a character device").
std::string file_kind(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a named pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse_kind(const std::filesystem::path& path, mode_t mode) {
  throw Error(fmt::format(
      "{}: is {}; haloflow writes and replaces only regular files: name a file (nothing was "
      "written)",
      name_of(path), file_kind(mode)));
}

// Refuses what is at `name` in `directory` when it must not be replaced: a link, a directory,
// anything but a regular file, or (without `replace`) anything.
void check_target(const std::filesystem::path& path, int directory, const std::string& name,
                  bool replace) {
  struct stat status {};
  if (::fstatat(directory, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) != 0) return;
  if (S_ISLNK(status.st_mode)) refuse_link(path, directory, name, "");
  if (S_ISDIR(status.st_mode)) {
    throw Error(fmt::format("{}: is a directory; expected a file to write", name_of(path)));
  }
  if (!S_ISREG(status.st_mode)) refuse_kind(path, status.st_mode);
  if (!replace) {
    throw Error(fmt::format("{} exists; pass --force to overwrite it", name_of(path)));
  }
}

bool write_all(int fd, const std::vector<std::string_view>& parts) {
  for (const std::string_view part : parts) {
    std::size_t done = 0;
    while (done < part.size()) {
      const ssize_t wrote = ::write(fd, part.data() + done, part.size() - done);
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) {
        if (wrote == 0) errno = ENOSPC;
        return false;
      }
      done += static_cast<std::size_t>(wrote);
    }
  }
  return true;
}

// Renames the temporary over `name`; without `replace`, never over a file that appeared meanwhile
// (RENAME_NOREPLACE where the file system has it). \returns false with errno set on failure.
bool put_in_place(int directory, const std::string& temporary, const std::string& name,
                  bool replace) {
  if (!replace) {
    if (::renameat2(directory, temporary.c_str(), directory, name.c_str(), RENAME_NOREPLACE) == 0) {
      return true;
    }
    if (errno != EINVAL && errno != ENOSYS) return false;
  }
  return ::renameat(directory, temporary.c_str(), directory, name.c_str()) == 0;
}

std::string temporary_name(const std::string& name) {
  static std::atomic<unsigned long> made{0};
  return fmt::format(".{}{}{}-{}", name, kTemporaryMark, ::getpid(), made++);
}

}  // namespace

void prepare_process_for_outputs() {
  std::signal(SIGXFSZ, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  constexpr rlim_t kEnough = rlim_t{256} << 20;
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur >= kEnough) {
    return;
  }
  ::setenv("UCX_TLS", "^posix", 0);
  ::setenv("MPIR_CVAR_NOLOCAL", "1", 0);
}

bool is_temporary_name(std::string_view name) {
  return name.starts_with('.') && name.find(kTemporaryMark) != std::string_view::npos;
}

void check_output_file(const std::filesystem::path& path, bool replace) {
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw Error(fmt::format("{}: names a directory; expected a file to write", name_of(path)));
  }
  struct stat status {};
  if (::lstat(path.c_str(), &status) == 0) {
    if (S_ISLNK(status.st_mode)) {
      throw Error(
          fmt::format("{}: is a symbolic link; haloflow writes nothing through a link: "
                      "remove it (nothing was written)",
                      name_of(path)));
    }
    if (S_ISDIR(status.st_mode)) {
      throw Error(fmt::format("{}: is a directory; expected a file to write", name_of(path)));
    }
    if (!S_ISREG(status.st_mode)) refuse_kind(path, status.st_mode);
    if (!replace) {
      throw Error(fmt::format("{} exists; pass --force to overwrite it", name_of(path)));
    }
  }
  // The folder must be there and writable now, not found out after the whole run.
  const std::filesystem::path parent = path.parent_path().empty() ? "." : path.parent_path();
  if (::stat(parent.c_str(), &status) != 0) {
    throw Error(fmt::format("{}: cannot be written: its folder {}: {} (nothing was run)",
                            name_of(path), name_of(parent), std::strerror(errno)));
  }
  if (!S_ISDIR(status.st_mode)) {
    throw Error(fmt::format("{}: cannot be written: {} is not a folder (nothing was run)",
                            name_of(path), name_of(parent)));
  }
  if (::access(parent.c_str(), W_OK | X_OK) != 0) {
    throw Error(fmt::format("{}: cannot be written: its folder {}: {} (nothing was run)",
                            name_of(path), name_of(parent), std::strerror(errno)));
  }
}

void write_output_file(const std::filesystem::path& path,
                       const std::vector<std::string_view>& parts, const WriteOptions& options) {
  report_file_size_limits_as_errors();
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") {
    throw Error(fmt::format("{}: names a directory; expected a file to write", name_of(path)));
  }
  Descriptor directory = open_directory_of(path, options.run_directory);
  check_target(path, directory.get(), name, options.replace);
  // Noted before it exists, so that a run killed while writing it still owns it.
  if (!options.run_directory.empty()) {
    note_written(options.run_directory, path.lexically_relative(options.run_directory));
  }

  const std::string temporary = temporary_name(name);
  Descriptor file(::openat(directory.get(), temporary.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!file.open()) {
    throw Error(fmt::format("{}: cannot be written: {}", name_of(path), std::strerror(errno)));
  }
  const auto fail = [&](const char* doing) {
    const int cause = errno;
    ::unlinkat(directory.get(), temporary.c_str(), 0);
    throw Error(fmt::format("{}: {}: {} (nothing was left: the partial file was removed)",
                            name_of(path), doing, std::strerror(cause)));
  };
  if (!write_all(file.get(), parts)) fail("could not be written");
  if (::fsync(file.get()) != 0) fail("could not be flushed to disk");
  if (!file.close()) fail("could not be written");
  // A link planted while the bytes were written is refused too (rename would replace the link,
  // not follow it, but a link where haloflow writes is the user's to look at).
  if (is_link(directory.get(), name)) {
    ::unlinkat(directory.get(), temporary.c_str(), 0);
    refuse_link(path, directory.get(), name, "");
  }
  if (!put_in_place(directory.get(), temporary, name, options.replace)) {
    if (errno == EEXIST) {
      ::unlinkat(directory.get(), temporary.c_str(), 0);
      throw Error(fmt::format("{} exists; pass --force to overwrite it", name_of(path)));
    }
    fail("could not be put in place");
  }
  if (options.durable && ::fsync(directory.get()) != 0) {
    throw Error(fmt::format("{}: its directory could not be flushed to disk: {}", name_of(path),
                            std::strerror(errno)));
  }
}

void make_run_subdirectory(const std::filesystem::path& run_directory, const std::string& name) {
  const std::filesystem::path path = run_directory / name;
  Descriptor parent(::open(run_directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent.open()) {
    throw Error(fmt::format("{}: cannot be created: the run directory: {}", name_of(path),
                            std::strerror(errno)));
  }
  note_written(run_directory, name, /*folder=*/true);
  if (::mkdirat(parent.get(), name.c_str(), 0755) == 0) return;
  const int cause = errno;
  struct stat status {};
  if (cause == EEXIST && ::fstatat(parent.get(), name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(status.st_mode)) {
      refuse_link(path, parent.get(), name,
                  fmt::format(" inside the run directory {}", name_of(run_directory)));
    }
    if (S_ISDIR(status.st_mode)) return;
    throw Error(fmt::format("{}: is a file; expected a directory", name_of(path)));
  }
  throw Error(fmt::format("{}: cannot be created: {}", name_of(path), std::strerror(cause)));
}

}  // namespace haloflow::outputs
