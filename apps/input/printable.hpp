#pragma once
// Text from an input file or a command line made fit for a message: a key with a newline or a
// terminal escape in it must not rewrite the user's terminal, and a megabyte-long value must not
// fill it. Every message that echoes input goes through here.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace haloflow::input {

//! The longest echo of a value in a message (bytes, before "...").
inline constexpr std::size_t kShownBytes = 60;

//! `text` with control characters (C0, DEL and C1) and the bidirectional controls that reorder
//! what a terminal shows (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) written as
//! escapes (\n, \t, \u001b, \u202e), bytes that are not UTF-8 as \xNN, and cut after
//! `max_bytes` with "..." (never inside a character).
[[nodiscard]] std::string printable(std::string_view text, std::size_t max_bytes = kShownBytes);

//! A message whose lines are kept (\n) but whose other control characters are escaped and whose
//! lines are cut after `max_line_bytes`: the last guard before a message reaches the terminal.
[[nodiscard]] std::string printable_message(std::string_view text,
                                            std::size_t max_line_bytes = 2000);

//! `value` as JSON text, escaped and cut after about `max_bytes`, without serialising more of a
//! large or deep value than it shows. Non-finite numbers (from a command line) show as nan, inf.
[[nodiscard]] std::string shown(const nlohmann::json& value, std::size_t max_bytes = kShownBytes);

//! The JSON pointer (RFC 6901) of `key` inside the value at `parent`: "~" and "/" in the key
//! written as "~0" and "~1".
[[nodiscard]] std::string pointer_to(std::string_view parent, std::string_view key);

//! "a", "a and b", "a, b and c": names listed in a message.
[[nodiscard]] std::string listed(const std::vector<std::string>& items);

}  // namespace haloflow::input
