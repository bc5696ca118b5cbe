#pragma once
// A run directory is haloflow's only when haloflow made it. It is made exclusively (mkdir, never
// "check, then create": two runs started together on one --out cannot both get it), marked at
// once with a marker file, and every file or folder a process writes into it is noted in that
// process's manifest before it is created. So `--force` can tell what is haloflow's: it removes
// the files the manifests list (and haloflow's own temporaries), and refuses a directory that
// holds anything else, naming it. A forced rerun is written beside the previous run and put in
// its place only once it completed: a rerun that fails or is interrupted leaves the previous run
// as it was.

#include <filesystem>
#include <string>
#include <string_view>

namespace haloflow::outputs {

//! The marker at the top of a run directory haloflow made.
inline constexpr std::string_view kRunMarker = ".haloflow-run";
//! The start of each manifest's name (one per process that wrote into the directory).
inline constexpr std::string_view kManifestPrefix = ".haloflow-files-";

//! Makes `directory` exclusively (its parent directories as needed) and marks it as a run
//! directory. \returns false, changing nothing, when something is there already. \throws Error
//! naming the directory and the cause when it cannot be made.
[[nodiscard]] bool make_run_directory(const std::filesystem::path& directory);

//! Marks an existing empty directory as a run directory (--force on an empty folder).
//! \throws Error when it is not empty or cannot be marked.
void adopt_empty_directory(const std::filesystem::path& directory);

//! Makes and marks the first of `base`, `base.2`, `base.3`, ... that did not exist (each tried
//! with an exclusive mkdir). \returns the one made.
[[nodiscard]] std::filesystem::path make_numbered_run_directory(const std::filesystem::path& base);

//! Notes in this process's manifest of the run directory `directory` that the run is about to
//! write `relative` (a file, or a folder when `folder`). Each path is noted once.
//! \throws Error when the manifest cannot be written (then nothing is written either).
void note_written(const std::filesystem::path& directory, const std::filesystem::path& relative,
                  bool folder = false);

//! Whether `directory` is a run directory haloflow made (it holds the marker, not through a link).
[[nodiscard]] bool is_run_directory(const std::filesystem::path& directory);

//! What results.json in a run directory says of its run: "running" (or killed outright),
//! "complete", "interrupted", "failed"; "" when it says nothing readable.
[[nodiscard]] std::string run_status(const std::filesystem::path& directory);

//! A sentence for messages about an existing directory, such as "it holds a run that never
//! finished (results.json says running, started 2026-12-01T10:00:00Z by process 123 on host):
//! it was stopped or killed"; "" when there is nothing particular to say.
[[nodiscard]] std::string describe_run_directory(const std::filesystem::path& directory);

//! \throws Error unless `directory` is a run directory haloflow made and holds only what
//! haloflow wrote there: the message names the first few other entries (a symbolic link, a file
//! no manifest lists) and how many there are, or says that the marker is missing. Nothing is
//! changed.
void check_replaceable(const std::filesystem::path& directory);

//! Removes a run directory haloflow made: the files and folders its manifests list, haloflow's
//! temporaries, the manifests, the marker and the directory itself. \throws Error (before
//! removing anything) as check_replaceable does; and naming what is left when something appeared
//! meanwhile.
void remove_run_directory(const std::filesystem::path& directory);

//! Makes and marks the directory a forced rerun of `directory` is written to: beside it, named
//! `<name>.rerun-<pid>` (a number added if taken). \throws Error when it cannot be made.
[[nodiscard]] std::filesystem::path make_rerun_directory(const std::filesystem::path& directory);

//! Puts the completed rerun `rerun` in the place of `directory` (an atomic exchange of the two
//! names where the file system has one), then removes the previous run. \returns "" or a note
//! for the user when the previous run could not be removed entirely (it is left, renamed, and
//! the note names it).
[[nodiscard]] std::string replace_run_directory(const std::filesystem::path& rerun,
                                                const std::filesystem::path& directory);

}  // namespace haloflow::outputs
