#pragma once
// The JSON parse behind parse_json (json_input.hpp): nlohmann_json's SAX parser (iterative, so
// no input can exhaust the stack) driving a document builder that checks each limit as the
// event arrives, and knows the JSON pointer and the line and column of every key.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "json_input.hpp"

namespace haloflow::input {

//! What went wrong, when parsing failed: a syntax error (the sentence says where), or the JSON
//! pointer of the value that crossed a limit and the sentence that says how.
struct JsonProblem {
  bool syntax = false;
  std::string pointer;
  std::string problem;
};

//! Parses `text` (which holds no NUL byte) into `document`. \returns false, with `problem` set,
//! at the first problem.
[[nodiscard]] bool read_document(std::string_view text, const JsonLimits& limits,
                                 nlohmann::json& document, JsonProblem& problem);

}  // namespace haloflow::input
