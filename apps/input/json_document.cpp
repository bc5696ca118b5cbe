#include "json_document.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

#include "printable.hpp"

namespace haloflow::input {
namespace {

// Reads the text for the parser and publishes how far it has read, so that the builder knows
// where the key it is given ends (nlohmann_json's SAX events carry no position).
class TrackedIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackedIterator(const char* at, const char** published) : at_(at), published_(published) {}
  reference operator*() const { return *at_; }
  TrackedIterator& operator++() {
    *published_ = ++at_;
    return *this;
  }
  TrackedIterator operator++(int) {
    TrackedIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** published_;
};

// "line 3, column 5" of the byte at `offset` (both counted from 1, columns in bytes).
std::string place_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return fmt::format("line {}, column {}", line, offset - line_start + 1);
}

// Builds the document from the parser's events, refusing at the first limit it crosses.
class DocumentBuilder {
 public:
  DocumentBuilder(std::string_view text, const JsonLimits& limits, nlohmann::json& document,
                  JsonProblem& problem)
      : text_(text), limits_(limits), document_(document), problem_(problem) {}

  [[nodiscard]] TrackedIterator begin() { return {text_.data(), &cursor_}; }
  [[nodiscard]] TrackedIterator end() { return {text_.data() + text_.size(), &cursor_}; }

  // The SAX interface (nlohmann::json_sax): false stops the parse.
  bool null() { return put(nullptr); }
  bool boolean(bool value) { return put(value); }
  bool number_integer(std::int64_t value) { return put(value); }
  bool number_unsigned(std::uint64_t value) { return put(value); }
  bool number_float(double value, const std::string& /*text*/) { return put(value); }
  bool string(std::string& value) {
    if (value.size() > limits_.string_bytes) return refuse_long(next_pointer(), value, "string");
    return put(std::move(value));
  }
  bool binary(nlohmann::json::binary_t& /*value*/) {
    return refuse(next_pointer(), "holds a binary value; expected JSON text");
  }
  bool start_object(std::size_t /*elements*/) { return open(nlohmann::json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(nlohmann::json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& key) {
    Level& level = levels_.back();
    const std::string pointer = pointer_to(level.pointer, key);
    if (key.size() > limits_.string_bytes) return refuse_long(pointer, key, "key");
    const std::size_t start = key_start();
    const auto [seen, fresh] = level.key_offsets.emplace(key, start);
    if (!fresh) {
      return refuse(pointer, fmt::format("duplicate key {}: at {} and again at {}; a key may "
                                         "appear once in an object",
                                         shown(nlohmann::json(key)), place_of(text_, seen->second),
                                         place_of(text_, start)));
    }
    level.key = key;
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& last_token,
                   const nlohmann::json::exception& error) {
    if (error.id == 406) {  // the number overflows a double
      return refuse(next_pointer(), fmt::format("{} is out of range: a number must lie within "
                                                "-1.8e308 to 1.8e308",
                                                printable(last_token)));
    }
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." without the tag.
    std::string what = error.what();
    if (const auto tag_end = what.find("] "); what.starts_with("[json.") && tag_end != what.npos) {
      what.erase(0, tag_end + 2);
    }
    problem_ = {.syntax = true, .pointer = "", .problem = printable(what, 300)};
    return false;
  }

 private:
  struct Level {
    nlohmann::json* value = nullptr;
    std::string pointer;    // of this object or array
    std::string key;        // object: the key of the value that comes next
    std::size_t index = 0;  // array: the index of the value that comes next
    std::map<std::string, std::size_t> key_offsets;  // object: where each key starts
  };

  // The pointer of the value the next event makes.
  [[nodiscard]] std::string next_pointer() const {
    if (levels_.empty()) return "";
    const Level& level = levels_.back();
    return level.value->is_array() ? fmt::format("{}/{}", level.pointer, level.index)
                                   : pointer_to(level.pointer, level.key);
  }

  // Places `value` where the next value goes; \returns it there.
  nlohmann::json& place(nlohmann::json value) {
    if (levels_.empty()) {
      document_ = std::move(value);
      return document_;
    }
    Level& level = levels_.back();
    if (level.value->is_array()) {
      level.value->push_back(std::move(value));
      ++level.index;
      return level.value->back();
    }
    nlohmann::json& slot = (*level.value)[level.key];
    slot = std::move(value);
    return slot;
  }

  bool put(nlohmann::json value) {
    place(std::move(value));
    return true;
  }

  bool open(nlohmann::json container) {
    std::string pointer = next_pointer();
    if (levels_.size() >= limits_.depth) {
      return refuse(pointer, fmt::format("is nested deeper than {} levels of arrays and objects "
                                         "(a case needs 3)",
                                         limits_.depth));
    }
    nlohmann::json& placed = place(std::move(container));
    levels_.push_back({.value = &placed, .pointer = std::move(pointer)});
    return true;
  }

  bool close() {
    levels_.pop_back();
    return true;
  }

  // Where the key just read starts: its opening quote, found back from its closing quote (the
  // last byte the parser read), past quotes escaped by an odd run of backslashes.
  [[nodiscard]] std::size_t key_start() const {
    std::size_t at = static_cast<std::size_t>(cursor_ - text_.data());
    if (at > 0) --at;  // the closing quote
    while (at > 0) {
      --at;
      if (text_[at] != '"') continue;
      std::size_t backslashes = 0;
      while (at > backslashes && text_[at - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return at;
    }
    return at;
  }

  bool refuse_long(const std::string& pointer, const std::string& value, const char* what) {
    return refuse(pointer,
                  fmt::format("a {} of {} bytes ({}); a {} holds at most {} bytes", what,
                              value.size(), printable(value, 20), what, limits_.string_bytes));
  }

  bool refuse(std::string pointer, std::string problem) {
    problem_ = {.syntax = false, .pointer = std::move(pointer), .problem = std::move(problem)};
    return false;
  }

  std::string_view text_;
  const JsonLimits& limits_;
  nlohmann::json& document_;
  JsonProblem& problem_;
  const char* cursor_ = nullptr;
  std::vector<Level> levels_;
};

}  // namespace

bool read_document(std::string_view text, const JsonLimits& limits, nlohmann::json& document,
                   JsonProblem& problem) {
  DocumentBuilder builder(text, limits, document, problem);
  return nlohmann::json::sax_parse(builder.begin(), builder.end(), &builder);
}

}  // namespace haloflow::input
