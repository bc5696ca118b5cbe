#include "printable.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace haloflow::input {
namespace {

// The length of the UTF-8 character starting at text[at], or 0 when the bytes there are not one.
std::size_t utf8_length(std::string_view text, std::size_t at) {
  const auto byte = static_cast<unsigned char>(text[at]);
  std::size_t length = 0;
  if (byte < 0x80) return 1;
  if ((byte & 0xE0) == 0xC0 && byte >= 0xC2) {
    length = 2;
  } else if ((byte & 0xF0) == 0xE0) {
    length = 3;
  } else if ((byte & 0xF8) == 0xF0 && byte <= 0xF4) {
    length = 4;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((static_cast<unsigned char>(text[at + k]) & 0xC0) != 0x80) return 0;
  }
  return length;
}

// The code point of the `length`-byte UTF-8 character at text[at] (checked by utf8_length).
char32_t code_point(std::string_view text, std::size_t at, std::size_t length) {
  const auto byte = [&](std::size_t k) { return static_cast<char32_t>(text[at + k]) & 0xFF; };
  if (length == 1) return byte(0);
  char32_t code = byte(0) & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) code = (code << 6) | (byte(k) & 0x3F);
  return code;
}

// The marks and embeddings, overrides and isolates of Unicode's bidirectional algorithm:
// U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069.
bool reorders_text(char32_t code) {
  return code == 0x061C || code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) ||
         (code >= 0x2066 && code <= 0x2069);
}

// One character of `text` at `at` appended to `out`, escaped when it must be; \returns the bytes
// it took from `text`.
std::size_t append_escaped(std::string& out, std::string_view text, std::size_t at,
                           bool keep_newlines) {
  const auto byte = static_cast<unsigned char>(text[at]);
  if (byte == '\n' && keep_newlines) {
    out += '\n';
    return 1;
  }
  switch (byte) {
    case '\n':
      out += "\\n";
      return 1;
    case '\t':
      out += "\\t";
      return 1;
    case '\r':
      out += "\\r";
      return 1;
    default:
      break;
  }
  if (byte < 0x20 || byte == 0x7F) {
    out += fmt::format("\\u{:04x}", byte);
    return 1;
  }
  const std::size_t length = utf8_length(text, at);
  if (length == 0) {
    out += fmt::format("\\x{:02x}", byte);
    return 1;
  }
  // C1 control characters (U+0080 to U+009F) steer terminals as ESC does.
  if (length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[at + 1]) < 0xA0) {
    out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[at + 1]));
    return 2;
  }
  // Characters that reorder or hide the text around them (bidirectional controls: a path or a
  // value could show as something it is not): written as escapes too.
  if (const char32_t code = code_point(text, at, length); reorders_text(code)) {
    out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code));
    return length;
  }
  out.append(text.substr(at, length));
  return length;
}

std::string escaped(std::string_view text, std::size_t max_bytes, bool keep_newlines) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    if (out.size() >= max_bytes) {
      out += "...";
      break;
    }
    at += append_escaped(out, text, at, keep_newlines);
  }
  return out;
}

// Appends a preview of `value` to `out` while `out` is shorter than `budget`: containers element
// by element, so that a huge array costs only what is shown. Depth is bounded by the reader's
// nesting limit; past `depth` levels a container shows as [...] or {...}.
void preview(const nlohmann::json& value, std::string& out, std::size_t budget, int depth) {
  if (out.size() > budget) return;
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    out += fmt::format("{}", value.get<double>());
    return;
  }
  if (!value.is_structured()) {
    out += value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    return;
  }
  const bool object = value.is_object();
  if (depth <= 0 && !value.empty()) {
    out += object ? "{...}" : "[...]";
    return;
  }
  out += object ? '{' : '[';
  bool first = true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (out.size() > budget) return;
    if (!first) out += ',';
    first = false;
    if (object) {
      out += nlohmann::json(it.key()).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
      out += ':';
    }
    preview(*it, out, budget, depth - 1);
  }
  out += object ? '}' : ']';
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  return escaped(text, max_bytes, false);
}

std::string printable_message(std::string_view text, std::size_t max_line_bytes) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (start > 0) out += '\n';
    out += escaped(text.substr(start, end - start), max_line_bytes, false);
    start = end + 1;
  }
  return out;
}

std::string shown(const nlohmann::json& value, std::size_t max_bytes) {
  std::string text;
  preview(value, text, max_bytes, 8);
  // dump(ensure_ascii) leaves no control character, but a cut must still not split one escape.
  return printable(text, max_bytes);
}

std::string pointer_to(std::string_view parent, std::string_view key) {
  std::string pointer(parent);
  pointer += '/';
  for (const char c : key) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer += c;
    }
  }
  return pointer;
}

std::string listed(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

}  // namespace haloflow::input
