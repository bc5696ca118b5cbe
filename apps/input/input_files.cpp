#include "input_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "haloflow/error.hpp"
#include "printable.hpp"

namespace haloflow::input {
namespace {

// An open file descriptor, closed when it goes out of scope.
class ReadDescriptor {
 public:
  explicit ReadDescriptor(int fd) : fd_(fd) {}
  ~ReadDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  ReadDescriptor(const ReadDescriptor&) = delete;
  ReadDescriptor& operator=(const ReadDescriptor&) = delete;
  ReadDescriptor(ReadDescriptor&&) = delete;
  ReadDescriptor& operator=(ReadDescriptor&&) = delete;
  [[nodiscard]] int get() const { return fd_; }

 private:
  int fd_;
};

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (std::uint64_t{1} << 30)) {
    return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1 << 30));
  }
  if (bytes >= (std::uint64_t{1} << 20)) {
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  }
  return fmt::format("{} bytes", bytes);
}

}  // namespace

std::string kind_of_file(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return "a regular file";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO (named pipe)";
    case S_IFCHR:
      return "a character device";
    case S_IFBLK:
      return "a block device";
    case S_IFSOCK:
      return "a socket";
    case S_IFLNK:
      return "a symbolic link";
    default:
      return "not a regular file";
  }
}

std::optional<std::string> read_input_file(const std::filesystem::path& path,
                                           std::string_view expected, std::uint64_t max_bytes) {
  const std::string name = printable(path.string(), 300);
  // O_NONBLOCK: opening a FIFO nobody writes to must not block; the type is checked next.
  const ReadDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (file.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(fmt::format("{}: cannot be opened for reading: {}", name, std::strerror(errno)));
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) {
    throw Error(fmt::format("{}: cannot be examined: {}", name, std::strerror(errno)));
  }
  if (!S_ISREG(status.st_mode)) {
    throw Error(fmt::format("{}: is {}; expected {}", name,
                            S_ISDIR(status.st_mode)
                                ? std::string("a directory")
                                : kind_of_file(status.st_mode) + ", not a regular file",
                            expected));
  }
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size > max_bytes) {
    throw Error(fmt::format("{}: holds {}; {} holds at most {}", name, size_text(size), expected,
                            size_text(max_bytes)));
  }
  std::string bytes(size, '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(file.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(fmt::format("{}: could not be read: {}", name, std::strerror(errno)));
    if (got == 0) break;  // shrank while being read: what is there is what it holds
    done += static_cast<std::size_t>(got);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace haloflow::input
