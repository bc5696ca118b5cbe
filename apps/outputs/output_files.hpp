#pragma once
// Where the commands write files: every output file (results, resolved case, reports, traces,
// timelines, DOT, VTK, PNG, dumps, checkpoints) is opened and committed here and nowhere else, so
// that how a file is written is decided once:
// - into a run directory only as haloflow's own (run_directory.hpp): each file is noted in the
//   directory's manifest before it is created;
// - only regular files: a device, pipe or socket where a file goes is refused, never replaced;
// - never through a symbolic link: a link planted where a file goes is refused by name, and below
//   a run directory no directory link is followed either;
// - atomically: the bytes go to a temporary beside the file (created exclusively), are flushed to
//   disk (fsync) and renamed over the file, so a reader sees the old file or the whole new one;
// - on a write error (a full disk, a file size limit, an I/O error) the temporary is removed and
//   the error names the file and the cause: nothing partial is ever left.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace haloflow::outputs {

//! First thing in a command's main, before MPI starts (it writes files too): a write past a file
//! size limit (ulimit -f) or into a closed pipe becomes an error haloflow reports, naming the
//! file, never SIGXFSZ or SIGPIPE killing the process without a word; and under a small file size
//! limit MPICH is kept off its shared-memory files of several MiB, which it could not create (the
//! ranks of a node then talk through its other transports; the user's own settings of UCX_TLS
//! and MPIR_CVAR_NOLOCAL win).
void prepare_process_for_outputs();

//! How write_output_file writes.
struct WriteOptions {
  //! Replace a file that exists (--force, or a file of a run directory haloflow prepared).
  bool replace = false;
  //! Also flush the directory after the rename, so that the new name itself survives a crash
  //! (checkpoints and their markers).
  bool durable = false;
  //! The run directory the file lies in: no directory from it down to the file may be a
  //! symbolic link. Empty: a file the user named (--json, --dot, --dump), whose directories are
  //! the user's; the file itself is never a link.
  std::filesystem::path run_directory;
};

//! Checks a file the user named (--json, --dump, --dot, replay's outputs) before anything runs,
//! so that a long run does not end in a refusal. \throws Error naming `path` when it is a
//! symbolic link, a directory or anything but a regular file (a device is never replaced), when
//! it exists and `replace` is false, or when its folder does not exist or cannot be written.
void check_output_file(const std::filesystem::path& path, bool replace);

//! Writes `parts` one after another to `path` (see the file comment). \throws Error when it
//! exists and `options.replace` is false, when it or a directory below `options.run_directory`
//! is a symbolic link, or naming the file and the cause when it cannot be written.
void write_output_file(const std::filesystem::path& path,
                       const std::vector<std::string_view>& parts, const WriteOptions& options);

//! One part, `text`.
inline void write_output_file(const std::filesystem::path& path, std::string_view text,
                              const WriteOptions& options) {
  write_output_file(path, std::vector<std::string_view>{text}, options);
}

//! Makes `run_directory`/`name` (a directory haloflow writes into, such as vtk or checkpoints)
//! unless it exists. \throws Error when it is a symbolic link or not a directory, or cannot be
//! made.
void make_run_subdirectory(const std::filesystem::path& run_directory, const std::string& name);

//! Whether `name` is the name of one of write_output_file's temporaries.
[[nodiscard]] bool is_temporary_name(std::string_view name);

}  // namespace haloflow::outputs
