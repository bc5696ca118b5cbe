#pragma once
// Where haloflow reads JSON input: the text of a file and its parse, each failure naming the file.
// Every JSON file a command reads comes through here, so that limits on what is read (size, kind
// of file) hold for all of them.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace haloflow::input {

//! The text of the file `path`; `expected` says what it should be ("a JSON case file"), `hint`
//! what an empty one lacks. \throws Error for a directory, a missing or unreadable file, or one
//! holding only white space.
[[nodiscard]] std::string read_json_text(const std::filesystem::path& path,
                                         const std::string& expected, const std::string& hint);

//! `text` parsed; `source` names it in the message. \throws Error naming the syntax error.
[[nodiscard]] nlohmann::json parse_json(const std::string& text, const std::string& source);

}  // namespace haloflow::input
