#pragma once
// Where the commands write files: every output file (results, resolved case, reports, traces,
// timelines, DOT, VTK, PNG, dumps, checkpoints) is opened here and nowhere else, so that how a
// file is written (refusing to replace one the user has, atomic replacement, what happens on a
// write error) is decided once.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace haloflow::outputs {

//! How write_output_file writes.
struct WriteOptions {
  //! Replace a file that exists (--force, or a file of a run directory haloflow prepared).
  bool replace = false;
  //! A temporary next to the file, flushed to disk (fsync), renamed over it: a reader sees the
  //! old file or the whole new one, even after a crash (checkpoints).
  bool durable = false;
};

//! \throws Error naming `path` when it exists and `replace` is false. Checked before a run, so a
//! long replay does not end in a refusal.
void refuse_existing(const std::filesystem::path& path, bool replace);

//! Writes `parts` one after another to `path`. \throws Error when it exists and
//! `options.replace` is false, or naming the file when it cannot be written (a temporary of a
//! durable write is removed then).
void write_output_file(const std::filesystem::path& path,
                       const std::vector<std::string_view>& parts, const WriteOptions& options);

//! One part, `text`.
inline void write_output_file(const std::filesystem::path& path, std::string_view text,
                              const WriteOptions& options) {
  write_output_file(path, std::vector<std::string_view>{text}, options);
}

}  // namespace haloflow::outputs
