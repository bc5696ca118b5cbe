#pragma once
// Where haloflow reads JSON input: the text of a file and its parse, each failure naming the file.
// Every JSON file a command reads comes through here, so that the limits on what is read hold
// for all of them: the file (input_files.hpp), then the document, checked as it is parsed
// (before anything walks it recursively): nesting depth, string length, duplicate keys, NUL
// bytes and text after the document, numbers out of a double's range, each named by its JSON
// pointer.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace haloflow::input {

//! What a JSON document may hold.
struct JsonLimits {
  std::uint64_t file_bytes = std::uint64_t{1} << 20;  //!< a case is a few hundred bytes
  std::size_t depth = 32;                             //!< arrays and objects inside each other
  std::size_t string_bytes = 4096;                    //!< any key or string value
};

//! The text of the file `path`; `expected` says what it should be ("a JSON case file"), `hint`
//! what an empty one lacks. \throws Error for a directory, a FIFO or device, a missing or
//! unreadable file, one larger than `limits.file_bytes`, or one holding only white space.
[[nodiscard]] std::string read_json_text(const std::filesystem::path& path,
                                         const std::string& expected, const std::string& hint,
                                         const JsonLimits& limits = {});

//! `text` parsed; `source` names it in messages. \throws Error naming the syntax error (line and
//! column), or the JSON pointer of a duplicate key (both places), of a value nested too deep, of
//! a string too long, of a number out of range; or the place of a NUL byte.
[[nodiscard]] nlohmann::json parse_json(const std::string& text, const std::string& source,
                                        const JsonLimits& limits = {});

}  // namespace haloflow::input
