#pragma once
// Checkpoints of a model run: a file per rank and step, written atomically (a temporary file,
// fflush and fsync, rename), with a header (magic, format version, case hash, rank, rank count,
// step, element size, count) and the FNV-1a 64 checksum of the payload; a marker file once every
// rank's file of a step is written (a complete checkpoint). Reading refuses a truncated,
// corrupted or mismatched file with a message naming it and what is wrong.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace haloflow::outputs {

//! FNV-1a 64 of `size` bytes, continuing `hash`.
std::uint64_t fnv1a64(const void* data, std::size_t size,
                      std::uint64_t hash = 0xcbf29ce484222325ull);

//! What a checkpoint must match: the case (its hash), the rank, the rank count, the step.
struct CheckpointKey {
  std::uint64_t case_hash = 0;
  int rank = 0;
  int ranks = 1;
  int step = 0;
};

std::filesystem::path checkpoint_file(const std::filesystem::path& directory, int step, int rank);

//! Writes this rank's state atomically. \throws Error naming the file.
void write_checkpoint(const std::filesystem::path& directory, const CheckpointKey& key,
                      const std::vector<unsigned char>& payload);

//! Rank 0, after every rank wrote step `step`: marks the checkpoint complete (atomically).
void mark_checkpoint_complete(const std::filesystem::path& directory, int step, int ranks);

//! The step of the newest complete checkpoint in `directory`, or -1 when there is none.
int newest_complete_checkpoint(const std::filesystem::path& directory);

//! This rank's state of step key.step. \throws Error naming the file and what is wrong.
std::vector<unsigned char> read_checkpoint(const std::filesystem::path& directory,
                                           const CheckpointKey& key);

}  // namespace haloflow::outputs
