// Checkpoint files (issue 15): the CRC-32 covers header and payload, so that no flipped bit,
// wherever it is, is believed (and gives wrong advice), and every damage is named.

#include <doctest/doctest.h>

#include <string>
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
      // Never advice about another case, rank count, rank or step: the checksum fails first.
      const bool named = message.find("corrupted: the CRC-32") != std::string::npos ||
                         message.find("not a haloflow checkpoint") != std::string::npos ||
                         message.find("truncated") != std::string::npos ||
                         message.find("format version") != std::string::npos;
      CHECK(named);
      CHECK(message.find("written by a run on") == std::string::npos);
      CHECK(message.find("another case") == std::string::npos);
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
  std::string file = as_text(outputs::checkpoint_bytes(kKey, std::vector<unsigned char>(10, 1)));
  file[8] = 1;  // the version field, little-endian
  CHECK(refusal(file) == "checkpoint f.ckpt: format version 1; this haloflow reads version 2");
}

TEST_CASE("an empty payload's checksum is that of its header (found by the fuzzer)") {
  const std::vector<unsigned char> empty;
  const std::string file = as_text(outputs::checkpoint_bytes(kKey, empty));
  CHECK(outputs::checked_payload(file, "f.ckpt", kKey).empty());
}
