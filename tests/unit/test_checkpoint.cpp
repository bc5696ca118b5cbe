// Checkpoint files: the CRC-32 covers header and payload, so that no flipped bit,
// wherever it is, is believed (and gives wrong advice), and every damage is named.

#include <doctest/doctest.h>

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint.hpp"
#include "haloflow/error.hpp"

using namespace haloflow;

namespace {

const outputs::CheckpointKey kKey{.case_hash = 0x1234, .rank = 1, .ranks = 2, .step = 10};

std::string as_text(const std::vector<unsigned char>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string refusal(const std::string& bytes, const outputs::CheckpointKey& key = kKey) {
  try {
    (void)outputs::checked_payload(bytes, "f.ckpt", key);
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a checkpoint reads back as written") {
  const std::vector<unsigned char> payload = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::string file = as_text(outputs::checkpoint_bytes(kKey, payload));
  CHECK(file.size() == outputs::kCheckpointHeaderBytes + payload.size());
  CHECK(outputs::checked_payload(file, "f.ckpt", kKey) == payload);
}

TEST_CASE("every single flipped bit, header or payload, is refused as damage") {
  const std::vector<unsigned char> payload(64, 0x5a);
  const std::string file = as_text(outputs::checkpoint_bytes(kKey, payload));
  for (std::size_t byte = 0; byte < file.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = file;
      damaged[byte] = static_cast<char>(damaged[byte] ^ (1 << bit));
      const std::string message = refusal(damaged);
      CAPTURE(byte);
      CAPTURE(bit);
      CAPTURE(message);
      // A flipped bit is damage, wherever it is: never another case, rank count, rank or step,
      // nor another format version (the version field), a cut file (the element count) or a file
      // that is no checkpoint (the magic).
      CHECK(message.starts_with("checkpoint f.ckpt: corrupted: "));
      CHECK(message.find("written by a run on") == std::string::npos);
      CHECK(message.find("another case") == std::string::npos);
      CHECK(message.find("format version 3;") == std::string::npos);
      CHECK(message.find("truncated") == std::string::npos);
    }
  }
}

TEST_CASE("truncation, another case, another rank count and another rank are each named") {
  const std::vector<unsigned char> payload(100, 7);
  const std::string file = as_text(outputs::checkpoint_bytes(kKey, payload));
  CHECK(refusal(file.substr(0, 20)) ==
        "checkpoint f.ckpt: truncated: 20 bytes, shorter than its 56-byte header");
  CHECK(refusal(file.substr(0, file.size() - 7)) ==
        "checkpoint f.ckpt: truncated: 93 payload bytes; the header says 100 elements of 1 bytes");
  CHECK(refusal(file, {.case_hash = 99, .rank = 1, .ranks = 2, .step = 10})
            .find("written for another case") != std::string::npos);
  CHECK(refusal(file, {.case_hash = 0x1234, .rank = 1, .ranks = 4, .step = 10})
            .find("written by a run on 2 ranks; this run has 4") != std::string::npos);
  CHECK(refusal(file, {.case_hash = 0x1234, .rank = 0, .ranks = 2, .step = 10}) ==
        "checkpoint f.ckpt: holds rank 1 at step 10; expected rank 0 at step 10");
  CHECK(refusal(std::string(100, 'x')).find("not a haloflow checkpoint") != std::string::npos);
}

TEST_CASE("a version-1 file (its checksum over the payload only) is named by its version") {
  const std::vector<unsigned char> payload(10, 1);
  std::string file = as_text(outputs::checkpoint_bytes(kKey, payload));
  file[8] = 1;  // the version field, little-endian
  // Version 1 kept an FNV-1a 64 of the payload where version 2 keeps the CRC-32.
  const std::uint64_t sum = outputs::fnv1a64(payload.data(), payload.size());
  file.replace(48, 8, reinterpret_cast<const char*>(&sum), 8);
  CHECK(refusal(file) ==
        "checkpoint f.ckpt: format version 1 (an older haloflow's, intact); this haloflow reads "
        "version 2");
}

TEST_CASE("an empty payload's checksum is that of its header (found by the fuzzer)") {
  const std::vector<unsigned char> empty;
  const std::string file = as_text(outputs::checkpoint_bytes(kKey, empty));
  CHECK(outputs::checked_payload(file, "f.ckpt", kKey).empty());
}

namespace {

// `file` with its CRC-32 computed again over what it now holds (a header as a writer wrote it).
std::string resealed(std::string file) {
  file.replace(48, 8, std::string(8, '\0'));
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(file.data()), file.size());
  const auto sum = static_cast<std::uint64_t>(crc);
  file.replace(48, 8, reinterpret_cast<const char*>(&sum), 8);
  return file;
}

std::string with_u32(std::string file, std::size_t offset, std::uint32_t value) {
  file.replace(offset, 4, reinterpret_cast<const char*>(&value), 4);
  return file;
}

}  // namespace

TEST_CASE("each way a checkpoint is refused names its real cause") {
  const std::vector<unsigned char> payload(100, 7);
  const std::string file = as_text(outputs::checkpoint_bytes(kKey, payload));
  const auto flipped = [&](std::size_t at, int bit) {
    std::string damaged = file;
    damaged[at] = static_cast<char>(damaged[at] ^ (1 << bit));
    return damaged;
  };
  using P = outputs::CheckpointProblem;
  struct Damage {
    const char* what;
    std::string bytes;
    outputs::CheckpointKey key;
    P problem;
    std::string message;  // the start of the message after "checkpoint f.ckpt: "
  };
  const std::vector<Damage> damages = {
      {"cut inside the header", file.substr(0, 20), kKey, P::damaged,
       "truncated: 20 bytes, shorter than its 56-byte header"},
      {"cut inside the payload", file.substr(0, file.size() - 7), kKey, P::damaged,
       "truncated: 93 payload bytes; the header says 100 elements of 1 bytes"},
      {"bytes added", file + "tail", kKey, P::damaged,
       "corrupted: 104 payload bytes, more than the 100 elements of 1 bytes its header says "
       "(bytes were added)"},
      {"a payload bit", flipped(100, 3), kKey, P::damaged,
       "corrupted: the CRC-32 of its header and payload is "},
      {"a bit of the magic", flipped(0, 0), kKey, P::damaged,
       "corrupted: its header's magic (\"IFLOWCKP\") changed after it was written (the CRC-32 "
       "matches the header as written)"},
      {"a bit of the version", flipped(8, 0), kKey, P::damaged,
       "corrupted: its header's format version (3) changed after it was written"},
      {"a bit of the element count", flipped(40, 6), kKey, P::damaged,
       "corrupted: its header's element count (36) changed after it was written"},
      {"a bit of the element size", flipped(20, 1), kKey, P::damaged,
       "corrupted: its header's element size (3) changed after it was written"},
      {"a bit of the rank count", flipped(16, 0), kKey, P::damaged,
       "corrupted: the CRC-32 of its header and payload is "},
      {"a bit of the case hash", flipped(24, 0), kKey, P::damaged,
       "corrupted: the CRC-32 of its header and payload is "},
      {"a bit of the checksum", flipped(48, 0), kKey, P::damaged,
       "corrupted: the CRC-32 of its header and payload is "},
      {"no checkpoint at all", std::string(100, 'x'), kKey, P::foreign,
       "not a haloflow checkpoint (its first bytes are not the magic HFLOWCKP)"},
      {"a newer format, sealed as this one", resealed(with_u32(file, 8, 3)), kKey, P::version,
       "format version 3; this haloflow reads version 2"},
      {"a newer format, sealed its own way", with_u32(with_u32(file, 8, 3), 48, 12345), kKey,
       P::version, "format version 3 (a newer haloflow's, or a damaged header"},
      {"another case, intact",
       file,
       {.case_hash = 99, .rank = 1, .ranks = 2, .step = 10},
       P::mismatch,
       "written for another case (case hash 0000000000001234; this case's is "},
      {"another rank count, intact",
       file,
       {.case_hash = 0x1234, .rank = 1, .ranks = 4, .step = 10},
       P::mismatch,
       "written by a run on 2 ranks; this run has 4 (restart on 2 ranks)"},
      {"another rank, intact",
       file,
       {.case_hash = 0x1234, .rank = 0, .ranks = 2, .step = 10},
       P::mismatch,
       "holds rank 1 at step 10; expected rank 0 at step 10"},
      {"another step, intact",
       file,
       {.case_hash = 0x1234, .rank = 1, .ranks = 2, .step = 20},
       P::mismatch,
       "holds rank 1 at step 10; expected rank 1 at step 20"},
  };
  for (const Damage& damage : damages) {
    CAPTURE(damage.what);
    std::string message = "accepted";
    std::optional<P> problem;
    try {
      (void)outputs::checked_payload(damage.bytes, "f.ckpt", damage.key);
    } catch (const outputs::CheckpointError& error) {
      message = error.what();
      problem = error.problem();
    }
    CAPTURE(message);
    CHECK(message.starts_with("checkpoint f.ckpt: " + damage.message));
    CHECK(problem == damage.problem);
    // An intact checkpoint of another case or run is never called damaged.
    if (damage.problem == P::mismatch) {
      CHECK(message.find("corrupted") == std::string::npos);
      CHECK(message.find("truncated") == std::string::npos);
      CHECK(message.find("damaged") == std::string::npos);
    }
  }
}

TEST_CASE("a missing or unreadable rank file is refused as unreadable, naming the step") {
  const auto directory = std::filesystem::path(HALOFLOW_TEST_OUTPUT_DIR) / "checkpoint_refusals";
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory / "step_00000010_r0001.ckpt");  // a directory
  const auto refusal_of = [&](const outputs::CheckpointKey& key) -> std::pair<std::string, int> {
    try {
      (void)outputs::read_checkpoint(directory, key);
    } catch (const outputs::CheckpointError& error) {
      return {error.what(), static_cast<int>(error.problem())};
    }
    return {"accepted", -1};
  };
  const auto [missing, missing_problem] =
      refusal_of({.case_hash = 0x1234, .rank = 0, .ranks = 2, .step = 10});
  CHECK(missing.find("step_00000010_r0000.ckpt: missing (the checkpoint of step 10 should hold a "
                     "file for each of 2 ranks)") != std::string::npos);
  CHECK(missing_problem == static_cast<int>(outputs::CheckpointProblem::unreadable));
  const auto [directory_message, directory_problem] = refusal_of(kKey);
  CHECK(directory_message.find("step_00000010_r0001.ckpt: is a directory") != std::string::npos);
  CHECK(directory_problem == static_cast<int>(outputs::CheckpointProblem::unreadable));
  // Rank files without a marker are found as such.
  CHECK(outputs::complete_checkpoints(directory).empty());
  CHECK(outputs::checkpoint_steps_with_files(directory) == std::vector<int>{10});
}
