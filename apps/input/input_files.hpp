#pragma once
// Where haloflow reads an input file: the case (json_input.hpp), checkpoints, raw fields to
// compare with. One place, so that limits on what is read (a regular file, its size) hold for
// every file a command reads.

#include <filesystem>
#include <optional>
#include <string>

namespace haloflow::input {

//! The bytes of the file `path`; nullopt when it cannot be opened (the caller says what it
//! expected there). \throws Error naming the file when it opens but cannot be read.
[[nodiscard]] std::optional<std::string> read_input_file(const std::filesystem::path& path);

}  // namespace haloflow::input
