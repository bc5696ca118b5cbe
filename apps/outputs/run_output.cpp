#include "run_output.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <png.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "haloflow/error.hpp"
#include "haloflow/version.hpp"

namespace haloflow::outputs {

namespace {

// The first error writing to standard output (errno), 0 while there was none.
int console_error = 0;

// Writes all of `text` to `to`; false on an error (errno set).
bool write_text(std::FILE* to, std::string_view text) {
  if (!text.empty() && std::fwrite(text.data(), 1, text.size(), to) != text.size()) return false;
  return std::fflush(to) == 0;
}

}  // namespace

void print_out(std::string_view text) {
  if (console_error != 0) return;
  if (!write_text(stdout, text)) {
    console_error = errno != 0 ? errno : EIO;
    std::clearerr(stdout);
  }
}

std::string console_failure() {
  if (console_error == 0) return "";
  return fmt::format("standard output could not be written ({})", std::strerror(console_error));
}

nlohmann::json versions() {
  return {{"haloflow", haloflow::version},
          {"fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                              FMT_VERSION % 100)},
          {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR,
                                        NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH)},
          {"libpng", PNG_LIBPNG_VER_STRING},
          {"zlib", ZLIB_VERSION}};
}

std::string clean_text(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ' || c == '\v' || c == '\f') {
      space = !out.empty();
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) continue;  // other control characters
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string mpi_library_version() {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  std::string_view text(library, static_cast<std::size_t>(std::max(length, 0)));
  // The first line: MPICH's runs on for a page of configure options.
  if (const auto end = text.find('\n'); end != std::string_view::npos) text = text.substr(0, end);
  return clean_text(text);
}

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  return clean_text(host);
}

std::string utc_date_now() {
  char date[32] = {};
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return date;
}

nlohmann::json machine_description(const std::string& device_name) {
  return {{"hostname", host_name()},
          {"device", clean_text(device_name)},
          {"date", utc_date_now()},
          {"mpi_library", mpi_library_version()}};
}

Progress::Progress(std::string what, int every, bool enabled, std::FILE* to, long first)
    : what_(std::move(what)),
      every_(every < 1 ? 1 : every),
      enabled_(enabled && to != nullptr),
      to_(to),
      terminal_(to != nullptr && isatty(fileno(to)) != 0),
      first_(first),
      start_(std::chrono::steady_clock::now()),
      printed_(first) {}

void Progress::say(std::string_view line) {
  if (to_ == nullptr) return;
  // On a terminal the progress line is rewritten in place: clear it, so the line stands alone.
  std::string text;
  if (terminal_ && shown_) text = fmt::format("\r{:<70}\r", "");
  text += line;
  emit(text);
  shown_ = false;
}

void Progress::update(long done, long total) {
  if (!enabled_ || total <= 0) return;
  const bool last = done >= total;
  if (!terminal_ && !last && done / every_ <= printed_ / every_) return;
  printed_ = done;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done - first_) / seconds : 0;
  const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  const std::string line =
      fmt::format("{} {}/{}, {:.1f} {}/s, {:.1f} s left", what_, done, total, rate, what_, left);
  if (terminal_) {
    emit(fmt::format("\r{:<70}{}", line, last ? "\n" : ""));
    shown_ = !last;
  } else {
    emit(fmt::format("progress: {}\n", line));
  }
}

void Progress::emit(std::string_view text) {
  if (to_ == stdout) {
    print_out(text);
  } else if (!write_text(to_, text)) {
    to_ = nullptr;  // a stream that failed once is not written again
    enabled_ = false;
  }
}

}  // namespace haloflow::outputs
