#include "checkpoint.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <regex>

#include "haloflow/error.hpp"
#include "input_files.hpp"
#include "output_files.hpp"
#include "printable.hpp"

namespace haloflow::outputs {
namespace {

constexpr std::array<char, 8> kMagic{'H', 'F', 'L', 'O', 'W', 'C', 'K', 'P'};
// 2: the CRC-32 covers the header too (1: an FNV-1a 64 of the payload only).
constexpr std::uint32_t kVersion = 2;

// The header, field by field (native byte order; the magic tells a foreign file). `checksum`
// holds the CRC-32 of the header (with `checksum` zero) and the payload.
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
constexpr std::size_t kChecksumOffset = kCheckpointHeaderBytes - 8;

void encode(const Header& h, unsigned char* out) {
  const auto put = [&out](const void* value, std::size_t size) {
    std::memcpy(out, value, size);
    out += size;
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
}

Header decode(const unsigned char* at) {
  Header h;
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

// zlib's CRC-32 of the header with its checksum field zero, then the payload.
std::uint32_t file_crc(const unsigned char* header, const unsigned char* payload,
                       std::size_t payload_bytes) {
  std::array<unsigned char, kCheckpointHeaderBytes> zeroed{};
  std::memcpy(zeroed.data(), header, kChecksumOffset);
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, zeroed.data(), zeroed.size());
  // zlib takes a null buffer for "the initial value", whatever the length: an empty payload
  // (whose data() may be null) adds nothing.
  if (payload_bytes > 0) crc = crc32_z(crc, payload, payload_bytes);
  return static_cast<std::uint32_t>(crc);
}

const unsigned char* bytes_at(std::string_view bytes, std::size_t offset) {
  return reinterpret_cast<const unsigned char*>(bytes.data()) + offset;
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

std::vector<unsigned char> checkpoint_bytes(const CheckpointKey& key,
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
  std::vector<unsigned char> out(kCheckpointHeaderBytes + payload.size());
  encode(h, out.data());
  std::copy(payload.begin(), payload.end(), out.begin() + kCheckpointHeaderBytes);
  h.checksum = file_crc(out.data(), payload.data(), payload.size());
  encode(h, out.data());
  return out;
}

void write_checkpoint(const std::filesystem::path& directory,
                      const std::filesystem::path& run_directory, const CheckpointKey& key,
                      const std::vector<unsigned char>& payload) {
  const std::vector<unsigned char> bytes = checkpoint_bytes(key, payload);
  write_output_file(checkpoint_file(directory, key.step, key.rank),
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                    {.replace = true, .durable = true, .run_directory = run_directory});
}

void mark_checkpoint_complete(const std::filesystem::path& directory,
                              const std::filesystem::path& run_directory, int step, int ranks) {
  const std::string text = fmt::format("step {} complete: {} rank files\n", step, ranks);
  write_output_file(directory / fmt::format("step_{:08d}.complete", step), text,
                    {.replace = true, .durable = true, .run_directory = run_directory});
}

std::vector<int> complete_checkpoints(const std::filesystem::path& directory) {
  std::vector<int> steps;
  std::error_code error;
  static const std::regex marker(R"(step_([0-9]{8})\.complete)");
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, match, marker)) steps.push_back(std::stoi(match[1]));
  }
  std::sort(steps.rbegin(), steps.rend());
  return steps;
}

std::vector<int> checkpoint_steps_with_files(const std::filesystem::path& directory) {
  std::vector<int> steps;
  std::error_code error;
  static const std::regex rank_file(R"(step_([0-9]{8})_r[0-9]{4}\.ckpt)");
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, match, rank_file)) steps.push_back(std::stoi(match[1]));
  }
  std::sort(steps.rbegin(), steps.rend());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

namespace {

[[noreturn]] void refuse(CheckpointProblem problem, const std::string& message) {
  throw CheckpointError(problem, message);
}

// On a CRC-32 that does not match: the header's fields that the writer always sets the same way
// (magic, version, element size 1, element count = payload bytes) put back as it wrote them. When
// the CRC-32 then matches, the file is a checkpoint of this format whose header was changed after
// it was written: \returns the changed fields' names; empty when that does not explain it.
std::vector<std::string> changed_header_fields(std::string_view bytes, const Header& h,
                                               std::size_t payload) {
  Header written = h;
  written.magic = kMagic;
  written.version = kVersion;
  written.element_size = 1;
  written.count = payload;
  written.checksum = 0;
  std::array<unsigned char, kCheckpointHeaderBytes> header{};
  encode(written, header.data());
  if (file_crc(header.data(), bytes_at(bytes, kCheckpointHeaderBytes), payload) != h.checksum) {
    return {};
  }
  std::vector<std::string> changed;
  if (h.magic != kMagic)
    changed.emplace_back(
        fmt::format("magic (\"{}\")", input::printable(std::string_view(h.magic.data(), 8))));
  if (h.version != kVersion) changed.emplace_back(fmt::format("format version ({})", h.version));
  if (h.element_size != 1) changed.emplace_back(fmt::format("element size ({})", h.element_size));
  if (h.count != payload) changed.emplace_back(fmt::format("element count ({})", h.count));
  return changed;
}

}  // namespace

std::vector<unsigned char> checked_payload(std::string_view bytes, const std::string& name,
                                           const CheckpointKey& key) {
  if (bytes.size() < kCheckpointHeaderBytes) {
    refuse(CheckpointProblem::damaged,
           fmt::format("checkpoint {}: truncated: {} bytes, shorter than its {}-byte header", name,
                       bytes.size(), kCheckpointHeaderBytes));
  }
  const Header h = decode(bytes_at(bytes, 0));
  const std::size_t payload = bytes.size() - kCheckpointHeaderBytes;
  const std::uint32_t crc =
      file_crc(bytes_at(bytes, 0), bytes_at(bytes, kCheckpointHeaderBytes), payload);
  // Nothing in the header is believed before the checksum over it matches: a flipped bit in the
  // rank count must not send the user off to restart on another number of ranks, nor one in the
  // version or the element count be taken for another format or a cut file.
  if (crc != h.checksum) {
    if (const auto changed = changed_header_fields(bytes, h, payload); !changed.empty()) {
      refuse(CheckpointProblem::damaged,
             fmt::format("checkpoint {}: corrupted: its header's {} changed after it was written "
                         "(the CRC-32 matches the header as written)",
                         name, input::listed(changed)));
    }
    if (h.magic != kMagic) {
      refuse(CheckpointProblem::foreign,
             fmt::format("checkpoint {}: not a haloflow checkpoint (its first bytes are not the "
                         "magic HFLOWCKP)",
                         name));
    }
    if (h.version == 1 && h.checksum == fnv1a64(bytes_at(bytes, kCheckpointHeaderBytes), payload)) {
      refuse(CheckpointProblem::version,
             fmt::format("checkpoint {}: format version 1 (an older haloflow's, intact); this "
                         "haloflow reads version {}",
                         name, kVersion));
    }
    if (h.version > kVersion) {
      refuse(CheckpointProblem::version,
             fmt::format("checkpoint {}: format version {} (a newer haloflow's, or a damaged "
                         "header: its CRC-32 is not this format's); this haloflow reads version {}",
                         name, h.version, kVersion));
    }
    // The bytes the header's count says (beyond 64 bits: more than any file holds).
    const bool beyond = h.element_size != 0 && h.count > UINT64_MAX / h.element_size;
    const std::uint64_t said = beyond ? UINT64_MAX : h.count * h.element_size;
    if (h.element_size != 0 && payload < said) {
      refuse(CheckpointProblem::damaged,
             fmt::format("checkpoint {}: truncated: {} payload bytes; the header says {} elements "
                         "of {} bytes",
                         name, payload, h.count, h.element_size));
    }
    if (h.element_size != 0 && payload > said) {
      refuse(CheckpointProblem::damaged,
             fmt::format("checkpoint {}: corrupted: {} payload bytes, more than the {} elements of "
                         "{} bytes its header says (bytes were added)",
                         name, payload, h.count, h.element_size));
    }
    refuse(CheckpointProblem::damaged,
           fmt::format("checkpoint {}: corrupted: the CRC-32 of its header and payload is "
                       "{:08x}; the file says {:08x}",
                       name, crc, h.checksum));
  }
  if (h.magic != kMagic) {
    refuse(CheckpointProblem::foreign,
           fmt::format("checkpoint {}: not a haloflow checkpoint (its first bytes are not the "
                       "magic HFLOWCKP)",
                       name));
  }
  if (h.version != kVersion) {
    refuse(CheckpointProblem::version,
           fmt::format("checkpoint {}: format version {}; this haloflow reads version {}", name,
                       h.version, kVersion));
  }
  if (h.element_size == 0 || payload != h.count * h.element_size) {
    refuse(CheckpointProblem::damaged,
           fmt::format("checkpoint {}: {} payload bytes; the header says {} elements of {} bytes",
                       name, payload, h.count, h.element_size));
  }
  if (h.case_hash != key.case_hash) {
    refuse(CheckpointProblem::mismatch,
           fmt::format("checkpoint {}: written for another case (case hash {:016x}; "
                       "this case's is {:016x}: the model or its section differs)",
                       name, h.case_hash, key.case_hash));
  }
  if (h.ranks != static_cast<std::uint32_t>(key.ranks)) {
    refuse(CheckpointProblem::mismatch,
           fmt::format("checkpoint {}: written by a run on {} ranks; this run has {} "
                       "(restart on {} ranks)",
                       name, h.ranks, key.ranks, h.ranks));
  }
  if (h.rank != static_cast<std::uint32_t>(key.rank) ||
      h.step != static_cast<std::uint64_t>(key.step)) {
    refuse(CheckpointProblem::mismatch,
           fmt::format("checkpoint {}: holds rank {} at step {}; expected rank {} at step {}", name,
                       h.rank, h.step, key.rank, key.step));
  }
  const auto* start = bytes_at(bytes, kCheckpointHeaderBytes);
  return {start, start + payload};
}

std::vector<unsigned char> read_checkpoint(const std::filesystem::path& directory,
                                           const CheckpointKey& key) {
  const auto path = checkpoint_file(directory, key.step, key.rank);
  const std::string name = input::printable(path.string(), 300);
  std::optional<std::string> file;
  try {
    file = input::read_input_file(path, "a haloflow checkpoint file");
  } catch (const Error& error) {
    refuse(CheckpointProblem::unreadable, fmt::format("checkpoint {}", error.what()));
  }
  if (!file) {
    refuse(CheckpointProblem::unreadable,
           fmt::format("checkpoint {}: missing (the checkpoint of step {} should hold a file for "
                       "each of {} ranks)",
                       name, key.step, key.ranks));
  }
  return checked_payload(*file, name, key);
}

}  // namespace haloflow::outputs
