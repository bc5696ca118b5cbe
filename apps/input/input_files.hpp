#pragma once
// Where haloflow reads an input file: the case (json_input.hpp), checkpoints, raw fields to
// compare with. One place, so that the limits on what is read hold for every file a command
// reads: a regular file (never a FIFO that blocks forever or a device that never ends), of
// bounded size, read whole.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace haloflow::input {

//! The most bytes read from any one input file unless a reader says less (a checkpoint of a
//! large field; a case file is held to far less).
inline constexpr std::uint64_t kLargestInput = std::uint64_t{64} << 30;

//! The bytes of the regular file `path`; nullopt when there is nothing at `path` (the caller says
//! what it expected there). `expected` names the kind of file in messages ("a JSON case file").
//! \throws Error naming the file when it is not a regular file (a directory, a FIFO, a device,
//! a socket), holds more than `max_bytes`, cannot be opened (permissions) or fails to read.
[[nodiscard]] std::optional<std::string> read_input_file(const std::filesystem::path& path,
                                                         std::string_view expected,
                                                         std::uint64_t max_bytes = kLargestInput);

//! "a directory", "a FIFO (named pipe)", ... for a file type from stat's st_mode.
[[nodiscard]] std::string kind_of_file(unsigned mode);

}  // namespace haloflow::input
