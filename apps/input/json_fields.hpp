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

//! The most problems a message lists (validate's "every problem at once", unknown keys, ...); the
//! rest are counted ("... and N more problems").
inline constexpr std::size_t kShownProblems = 20;

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
  //! The first kShownProblems problems so far, each "POINTER: PROBLEM" (count() says how many
  //! there are in all).
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }
  //! Every problem reported so far, shown or not.
  [[nodiscard]] std::size_t count() const { return count_; }

 private:
  const nlohmann::json* field(const nlohmann::json& object, const std::string& pointer);

  std::string source_;
  std::vector<std::string> problems_;
  std::size_t count_ = 0;
};

//! "... and 7 more problems": the line after the first kShownProblems of a list.
[[nodiscard]] std::string more_problems(std::size_t more);

}  // namespace haloflow::input
