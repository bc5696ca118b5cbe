#include "json_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "haloflow/error.hpp"
#include "haloflow/spelling.hpp"
#include "printable.hpp"

namespace haloflow::input {
namespace {

std::string key_of(const std::string& pointer) {
  return pointer.substr(pointer.rfind('/') + 1);
}

}  // namespace

void JsonFields::report(const std::string& pointer, const std::string& problem) {
  ++count_;
  // Only the first kShownProblems are kept: 40000 unknown keys make one line and a count.
  if (problems_.size() >= kShownProblems) return;
  // The pointer may hold a key from the file: escaped and cut like any echoed value.
  problems_.push_back(
      fmt::format("{}: {}", pointer.empty() ? "/" : printable(pointer, 200), problem));
}

const nlohmann::json* JsonFields::field(const nlohmann::json& object, const std::string& pointer) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key_of(pointer));
  return it == object.end() ? nullptr : &*it;
}

const nlohmann::json& JsonFields::object(const nlohmann::json& parent, const std::string& pointer,
                                         bool required) {
  static const nlohmann::json empty = nlohmann::json::object();
  const auto* value = field(parent, pointer);
  if (value == nullptr) {
    if (required) report(pointer, "is missing; expected an object");
    return empty;
  }
  if (!value->is_object()) {
    report(pointer, fmt::format("is {}; expected an object", shown(*value)));
    return empty;
  }
  return *value;
}

void JsonFields::only_keys(const nlohmann::json& object, const std::string& pointer,
                           const std::vector<std::string>& allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const auto hint = closest_match(key, allowed);
    report(pointer_to(pointer, key),
           fmt::format("unknown key{}; allowed here: {}",
                       hint ? fmt::format(" (did you mean '{}'?)", *hint) : "",
                       fmt::join(allowed, ", ")));
  }
}

std::int64_t JsonFields::integer(const nlohmann::json& object, const std::string& pointer,
                                 std::int64_t fallback, std::int64_t minimum,
                                 std::int64_t maximum) {
  const auto* value = field(object, pointer);
  if (value == nullptr) return fallback;
  const auto allowed = fmt::format("an integer from {} to {}", minimum, maximum);
  // A number with no fractional part is an integer, as JSON Schema's "integer" has it: 32.0 is
  // 32 (a script that computes sizes writes it so). Checked against the bounds as a double first,
  // so that 1e300 is refused by value rather than converted.
  if (value->is_number_float()) {
    const double number = value->get<double>();
    // 2^63 is the first double past std::int64_t: the bound is compared with it, not with
    // maximum rounded to a double (which may be 2^63 itself).
    if (!std::isfinite(number) || number != std::floor(number) ||
        number < static_cast<double>(minimum) || number >= std::ldexp(1.0, 63) ||
        static_cast<std::int64_t>(number) > maximum) {
      report(pointer, fmt::format("{} is not allowed; expected {}", shown(*value), allowed));
      return fallback;
    }
    return static_cast<std::int64_t>(number);
  }
  if (!value->is_number_integer()) {
    report(pointer, fmt::format("{} is not allowed; expected {}", shown(*value), allowed));
    return fallback;
  }
  if (value->is_number_unsigned() &&
      value->get<std::uint64_t>() > static_cast<std::uint64_t>(maximum)) {
    report(pointer, fmt::format("{} is not allowed; expected {}", shown(*value), allowed));
    return fallback;
  }
  const auto number = value->get<std::int64_t>();
  if (number < minimum || number > maximum) {
    report(pointer, fmt::format("{} is not allowed; expected {}", number, allowed));
    return fallback;
  }
  return number;
}

double JsonFields::number(const nlohmann::json& object, const std::string& pointer, double fallback,
                          double minimum, double maximum) {
  const auto* value = field(object, pointer);
  if (value == nullptr) return fallback;
  const auto allowed = fmt::format("a number from {} to {}", minimum, maximum);
  // NaN compares false with both bounds: it is refused by name (a command line can give one).
  if (!value->is_number() || !std::isfinite(value->get<double>()) ||
      value->get<double>() < minimum || value->get<double>() > maximum) {
    report(pointer, fmt::format("{} is not allowed; expected {}", shown(*value), allowed));
    return fallback;
  }
  return value->get<double>();
}

std::string JsonFields::text(const nlohmann::json& object, const std::string& pointer,
                             std::string fallback) {
  const auto* value = field(object, pointer);
  if (value == nullptr) return fallback;
  if (!value->is_string()) {
    report(pointer, fmt::format("{} is not allowed; expected a string", shown(*value)));
    return fallback;
  }
  // A path or a name would end at the NUL (the C library reads up to it): refused, never cut.
  if (value->get_ref<const std::string&>().find('\0') != std::string::npos) {
    report(pointer, fmt::format("{} is not allowed: it holds a NUL character (\\u0000); expected "
                                "a string without one",
                                shown(*value)));
    return fallback;
  }
  return value->get<std::string>();
}

bool JsonFields::boolean(const nlohmann::json& object, const std::string& pointer, bool fallback) {
  const auto* value = field(object, pointer);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) {
    report(pointer, fmt::format("{} is not allowed; expected true or false", shown(*value)));
    return fallback;
  }
  return value->get<bool>();
}

std::string JsonFields::choice(const nlohmann::json& value, const std::string& pointer,
                               const std::vector<std::string>& allowed) {
  if (value.is_string() &&
      std::find(allowed.begin(), allowed.end(), value.get<std::string>()) != allowed.end()) {
    return value.get<std::string>();
  }
  const auto hint =
      value.is_string() ? closest_match(value.get<std::string>(), allowed) : std::nullopt;
  report(pointer, fmt::format("{} is not allowed; expected one of {}{}", shown(value),
                              fmt::join(allowed, ", "),
                              hint ? fmt::format(" (did you mean '{}'?)", *hint) : ""));
  return {};
}

void JsonFields::throw_if_any() const {
  if (count_ == 0) return;
  std::string message =
      fmt::format("{}: {} problem{}:", printable(source_, 300), count_, count_ == 1 ? "" : "s");
  for (const auto& problem : problems_) message += "\n  " + problem;
  if (count_ > problems_.size()) message += "\n  " + more_problems(count_ - problems_.size());
  throw Error(message);
}

std::string more_problems(std::size_t more) {
  return fmt::format("... and {} more problem{}", more, more == 1 ? "" : "s");
}

}  // namespace haloflow::input
