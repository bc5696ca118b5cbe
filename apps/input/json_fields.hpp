#pragma once
// Reading the fields of a JSON document (a case file, or a command line laid out as one) with
// errors that name the field (as a JSON pointer), the value and what is allowed. Every problem is
// collected, so a user sees all of them at once.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace haloflow::input {

class JsonFields {
 public:
  //! `source` names the file in messages.
  explicit JsonFields(std::string source) : source_(std::move(source)) {}

  //! The object at `pointer`, or an empty one (reported) when it is missing or not an object.
  const nlohmann::json& object(const nlohmann::json& parent, const std::string& pointer,
                               bool required);
  //! Reports keys of `object` (at `pointer`) outside `allowed`, with a "did you mean".
  void only_keys(const nlohmann::json& object, const std::string& pointer,
                 const std::vector<std::string>& allowed);
  std::int64_t integer(const nlohmann::json& object, const std::string& pointer,
                       std::int64_t fallback, std::int64_t minimum, std::int64_t maximum);
  double number(const nlohmann::json& object, const std::string& pointer, double fallback,
                double minimum, double maximum);
  std::string text(const nlohmann::json& object, const std::string& pointer, std::string fallback);
  //! true or false.
  bool boolean(const nlohmann::json& object, const std::string& pointer, bool fallback);
  //! A string that must be one of `allowed`.
  std::string choice(const nlohmann::json& value, const std::string& pointer,
                     const std::vector<std::string>& allowed);

  void report(const std::string& pointer, const std::string& problem);
  //! Throws Error listing every problem, when there is any.
  void throw_if_any() const;
  //! The problems so far, each "POINTER: PROBLEM".
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

 private:
  const nlohmann::json* field(const nlohmann::json& object, const std::string& pointer);

  std::string source_;
  std::vector<std::string> problems_;
};

}  // namespace haloflow::input
