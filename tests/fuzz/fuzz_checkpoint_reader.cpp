// libFuzzer target: any bytes as a checkpoint file, through the checks a restart makes before
// it believes one (size, magic, CRC-32 over header and payload, version, case, ranks, rank,
// step). A payload is accepted only when the file is one write_checkpoint would write: anything
// else accepted is a finding, as is a crash, a sanitizer report or a hang.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "checkpoint.hpp"
#include "haloflow/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const haloflow::outputs::CheckpointKey key{
      .case_hash = 0x5eed, .rank = 1, .ranks = 2, .step = 10};
  try {
    const std::vector<unsigned char> payload =
        haloflow::outputs::checked_payload(bytes, "fuzz.ckpt", key);
    // Accepted: it must be exactly the file of that payload.
    const std::vector<unsigned char> again = haloflow::outputs::checkpoint_bytes(key, payload);
    if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  } catch (const haloflow::Error&) {
  }
  return 0;
}
