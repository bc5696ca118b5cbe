#include "checkpoint.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <regex>

#include "haloflow/error.hpp"
#include "input_files.hpp"
#include "output_files.hpp"

namespace haloflow::outputs {
namespace {

constexpr std::array<char, 8> kMagic{'H', 'F', 'L', 'O', 'W', 'C', 'K', 'P'};
constexpr std::uint32_t kVersion = 1;

// The header, field by field (native byte order; the magic tells a foreign file).
struct Header {
  std::array<char, 8> magic{};
  std::uint32_t version = 0;
  std::uint32_t rank = 0;
  std::uint32_t ranks = 0;
  std::uint32_t element_size = 0;
  std::uint64_t case_hash = 0;
  std::uint64_t step = 0;
  std::uint64_t count = 0;
  std::uint64_t checksum = 0;
};
constexpr std::size_t kHeaderBytes = 8 + 4 * 4 + 4 * 8;

std::vector<unsigned char> header_bytes(const Header& h) {
  std::vector<unsigned char> out(kHeaderBytes);
  unsigned char* at = out.data();
  const auto put = [&at](const void* value, std::size_t size) {
    std::memcpy(at, value, size);
    at += size;
  };
  put(h.magic.data(), 8);
  put(&h.version, 4);
  put(&h.rank, 4);
  put(&h.ranks, 4);
  put(&h.element_size, 4);
  put(&h.case_hash, 8);
  put(&h.step, 8);
  put(&h.count, 8);
  put(&h.checksum, 8);
  return out;
}

Header parse_header(const std::vector<unsigned char>& bytes) {
  Header h;
  const unsigned char* at = bytes.data();
  const auto get = [&at](void* value, std::size_t size) {
    std::memcpy(value, at, size);
    at += size;
  };
  get(h.magic.data(), 8);
  get(&h.version, 4);
  get(&h.rank, 4);
  get(&h.ranks, 4);
  get(&h.element_size, 4);
  get(&h.case_hash, 8);
  get(&h.step, 8);
  get(&h.count, 8);
  get(&h.checksum, 8);
  return h;
}

std::string_view bytes_of(const std::vector<unsigned char>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t hash) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::filesystem::path checkpoint_file(const std::filesystem::path& directory, int step, int rank) {
  return directory / fmt::format("step_{:08d}_r{:04d}.ckpt", step, rank);
}

void write_checkpoint(const std::filesystem::path& directory, const CheckpointKey& key,
                      const std::vector<unsigned char>& payload) {
  Header h;
  h.magic = kMagic;
  h.version = kVersion;
  h.rank = static_cast<std::uint32_t>(key.rank);
  h.ranks = static_cast<std::uint32_t>(key.ranks);
  h.element_size = 1;
  h.case_hash = key.case_hash;
  h.step = static_cast<std::uint64_t>(key.step);
  h.count = payload.size();
  h.checksum = fnv1a64(payload.data(), payload.size());
  const std::vector<unsigned char> header = header_bytes(h);
  write_output_file(checkpoint_file(directory, key.step, key.rank),
                    {bytes_of(header), bytes_of(payload)}, {.replace = true, .durable = true});
}

void mark_checkpoint_complete(const std::filesystem::path& directory, int step, int ranks) {
  const std::string text = fmt::format("step {} complete: {} rank files\n", step, ranks);
  write_output_file(directory / fmt::format("step_{:08d}.complete", step), text,
                    {.replace = true, .durable = true});
}

int newest_complete_checkpoint(const std::filesystem::path& directory) {
  int newest = -1;
  std::error_code error;
  static const std::regex marker(R"(step_([0-9]{8})\.complete)");
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, match, marker)) newest = std::max(newest, std::stoi(match[1]));
  }
  return newest;
}

std::vector<unsigned char> read_checkpoint(const std::filesystem::path& directory,
                                           const CheckpointKey& key) {
  const auto path = checkpoint_file(directory, key.step, key.rank);
  const std::string name = path.string();
  const std::optional<std::string> file = input::read_input_file(path);
  if (!file) {
    throw Error(
        fmt::format("checkpoint {}: missing or unreadable (the checkpoint of step {} "
                    "should hold a file for each of {} ranks)",
                    name, key.step, key.ranks));
  }
  const std::vector<unsigned char> bytes(file->begin(), file->end());
  if (bytes.size() < kHeaderBytes) {
    throw Error(fmt::format("checkpoint {}: truncated: {} bytes, shorter than its {}-byte header",
                            name, bytes.size(), kHeaderBytes));
  }
  const Header h = parse_header(bytes);
  if (h.magic != kMagic) {
    throw Error(
        fmt::format("checkpoint {}: not a haloflow checkpoint (its first bytes are not "
                    "the magic HFLOWCKP)",
                    name));
  }
  if (h.version != kVersion) {
    throw Error(fmt::format("checkpoint {}: format version {}; this haloflow reads version {}",
                            name, h.version, kVersion));
  }
  if (h.case_hash != key.case_hash) {
    throw Error(
        fmt::format("checkpoint {}: written for another case (case hash {:016x}; this "
                    "case's is {:016x}: the model or its section differs)",
                    name, h.case_hash, key.case_hash));
  }
  if (h.ranks != static_cast<std::uint32_t>(key.ranks)) {
    throw Error(
        fmt::format("checkpoint {}: written by a run on {} ranks; this run has {} (restart "
                    "on {} ranks)",
                    name, h.ranks, key.ranks, h.ranks));
  }
  if (h.rank != static_cast<std::uint32_t>(key.rank) ||
      h.step != static_cast<std::uint64_t>(key.step)) {
    throw Error(fmt::format("checkpoint {}: holds rank {} at step {}; expected rank {} at step {}",
                            name, h.rank, h.step, key.rank, key.step));
  }
  const std::size_t payload = bytes.size() - kHeaderBytes;
  if (h.element_size == 0 || payload != h.count * h.element_size) {
    throw Error(
        fmt::format("checkpoint {}: {}: {} payload bytes; the header says {} elements of {} "
                    "bytes",
                    name, payload < h.count * h.element_size ? "truncated" : "too long", payload,
                    h.count, h.element_size));
  }
  const std::uint64_t sum = fnv1a64(bytes.data() + kHeaderBytes, payload);
  if (sum != h.checksum) {
    throw Error(
        fmt::format("checkpoint {}: corrupted: the payload's FNV-1a 64 checksum is "
                    "{:016x}; the header says {:016x}",
                    name, sum, h.checksum));
  }
  return {bytes.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes), bytes.end()};
}

}  // namespace haloflow::outputs
