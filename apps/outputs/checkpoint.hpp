#pragma once
// Checkpoints of a model run: a file per rank and step, written atomically (output_files.hpp: a
// temporary, fsync, rename), with a header (magic, format version, case hash, rank, rank count,
// step, element size, count) and a CRC-32 (zlib's) over the header and the payload, so that no
// flipped bit anywhere is believed; a marker file once every rank's file of a step is written
// (a complete checkpoint). Reading refuses a truncated, corrupted or mismatched file with a
// message naming it and what is wrong.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "haloflow/error.hpp"

namespace haloflow::outputs {

//! FNV-1a 64 of `size` bytes, continuing `hash`: the case hash (an identity of 64 bits, not a
//! check of data; the file's data is checked by CRC-32).
std::uint64_t fnv1a64(const void* data, std::size_t size,
                      std::uint64_t hash = 0xcbf29ce484222325ull);

//! Why a checkpoint file was refused: what the advice after it depends on (an intact checkpoint
//! of another case or rank count is no damage, and an older one of the same kind fits no better).
enum class CheckpointProblem {
  damaged,     //!< truncated, corrupted (CRC-32), bytes added, its header's fields changed
  unreadable,  //!< missing, not a regular file, cannot be opened or read
  version,     //!< another format version (an older or a newer haloflow's)
  mismatch,    //!< intact, but of another case, rank count, rank or step
  foreign,     //!< not a haloflow checkpoint at all
};

//! A refused checkpoint: the message names the file and the cause.
class CheckpointError : public haloflow::Error {
 public:
  CheckpointError(CheckpointProblem problem, const std::string& message)
      : Error(message), problem_(problem) {}
  [[nodiscard]] CheckpointProblem problem() const { return problem_; }

 private:
  CheckpointProblem problem_;
};

//! What a checkpoint must match: the case (its hash), the rank, the rank count, the step.
struct CheckpointKey {
  std::uint64_t case_hash = 0;
  int rank = 0;
  int ranks = 1;
  int step = 0;
};

//! The size of a checkpoint file's header, bytes.
inline constexpr std::size_t kCheckpointHeaderBytes = 56;

std::filesystem::path checkpoint_file(const std::filesystem::path& directory, int step, int rank);

//! A whole checkpoint file (header and payload) as write_checkpoint writes it.
[[nodiscard]] std::vector<unsigned char> checkpoint_bytes(
    const CheckpointKey& key, const std::vector<unsigned char>& payload);

//! Writes this rank's state atomically into `directory`, which lies in the run directory
//! `run_directory` (no link below it is followed). \throws Error naming the file.
void write_checkpoint(const std::filesystem::path& directory,
                      const std::filesystem::path& run_directory, const CheckpointKey& key,
                      const std::vector<unsigned char>& payload);

//! Rank 0, after every rank wrote step `step`: marks the checkpoint complete (atomically).
void mark_checkpoint_complete(const std::filesystem::path& directory,
                              const std::filesystem::path& run_directory, int step, int ranks);

//! The steps of the complete checkpoints in `directory` (those with a marker), newest first;
//! empty when there are none or no such directory.
[[nodiscard]] std::vector<int> complete_checkpoints(const std::filesystem::path& directory);

//! The steps of which `directory` holds rank files (step_N_rR.ckpt), complete or not, newest
//! first.
[[nodiscard]] std::vector<int> checkpoint_steps_with_files(const std::filesystem::path& directory);

//! The payload of `bytes`, a checkpoint file named `name` in messages, after checking that it is
//! the state `key` asks for. \throws CheckpointError naming the file and its real cause:
//! truncated, bytes added, header fields changed after it was written (the CRC-32 matches the
//! header as written), corrupted (the CRC-32 of header and payload), not a checkpoint, an older
//! or a newer format version, another case, rank count, rank or step.
[[nodiscard]] std::vector<unsigned char> checked_payload(std::string_view bytes,
                                                         const std::string& name,
                                                         const CheckpointKey& key);

//! This rank's state of step key.step, read from its file in `directory` (a regular file of
//! bounded size) and checked (checked_payload). \throws CheckpointError naming the file and what
//! is wrong (unreadable: missing, not a regular file, an error reading it).
std::vector<unsigned char> read_checkpoint(const std::filesystem::path& directory,
                                           const CheckpointKey& key);

}  // namespace haloflow::outputs
