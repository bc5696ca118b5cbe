// --set read and laid on a case document: the one implementation behind run, validate, replay,
// converge, sweep and haloflow_model.

#include "case_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "haloflow/error.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

using input::printable;

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// "a number", "an array", ...: a JSON value's type in a sentence.
std::string kind_of(const nlohmann::json& value) {
  const std::string type = value.type_name();
  if (type == "null") return type;
  return fmt::format("{} {}", type == "array" || type == "object" ? "an" : "a", type);
}

// The path of "a.b=...", its pointer, and the text after '='. `expected` says the flag's form.
SeriesSetting parse_path(const std::string& text, std::string_view expected, std::string& rest) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos) {
    throw Error(fmt::format("--set {}: expected {}", printable(text, 200), expected));
  }
  SeriesSetting setting;
  setting.path = text.substr(0, equals);
  if (setting.path.empty()) {
    throw Error(
        fmt::format("--set {}: the path before '=' is empty; expected SECTION.KEY "
                    "(e.g. euler2d.nx)",
                    printable(text, 200)));
  }
  for (const std::string& key : split(setting.path, '.')) {
    if (key.empty()) {
      throw Error(
          fmt::format("--set {}: the path {} has an empty key; expected keys joined by "
                      "'.' (e.g. euler2d.nx)",
                      printable(text, 200), printable(setting.path, 200)));
    }
    setting.pointer = input::pointer_to(setting.pointer, key);
  }
  rest = text.substr(equals + 1);
  return setting;
}

void check_distinct(const std::vector<SeriesSetting>& settings) {
  std::set<std::string> pointers;
  for (const SeriesSetting& s : settings) {
    if (!pointers.insert(s.pointer).second) {
      throw Error(fmt::format("--set {} is given twice; give each path once", printable(s.path)));
    }
  }
}

}  // namespace

nlohmann::json parse_setting_value(const std::string& text) {
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
  if (!parsed.is_discarded() && (parsed.is_number() || parsed.is_boolean() || parsed.is_string())) {
    return parsed;
  }
  return text;
}

std::string shown_value(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

SeriesSetting parse_series_setting(const std::string& text) {
  std::string list;
  SeriesSetting setting = parse_path(text, "PATH=V1,V2,... (e.g. euler2d.nx=100,200,400)", list);
  for (const std::string& value : split(list, ',')) {
    if (value.empty()) {
      throw Error(fmt::format("--set {}: an empty value in {}; expected values separated by ','",
                              printable(text, 200), printable(list.empty() ? "\"\"" : list, 200)));
    }
    setting.values.push_back(parse_setting_value(value));
  }
  return setting;
}

SeriesSetting parse_override(const std::string& text) {
  std::string value;
  SeriesSetting setting = parse_path(text, "PATH=VALUE (e.g. jacobi2d.nx=4096)", value);
  // An empty value is the empty string: the reader says whether the field takes it.
  setting.values.push_back(parse_setting_value(value));
  return setting;
}

std::vector<SeriesSetting> parse_overrides(const std::vector<std::string>& texts) {
  std::vector<SeriesSetting> overrides;
  overrides.reserve(texts.size());
  for (const std::string& text : texts) overrides.push_back(parse_override(text));
  check_distinct(overrides);
  return overrides;
}

std::size_t series_length(const std::vector<SeriesSetting>& settings, std::string_view study) {
  if (settings.empty()) {
    throw Error("no --set given; expected at least one, e.g. --set euler2d.nx=100,200,400");
  }
  check_distinct(settings);
  // The first setting with more than one value sets the length; one value is the same at every
  // point.
  const auto varied = std::find_if(settings.begin(), settings.end(),
                                   [](const SeriesSetting& s) { return s.values.size() > 1; });
  if (varied == settings.end()) {
    const SeriesSetting& first = settings.front();
    throw Error(fmt::format("--set {} gives {} point; {} needs at least 2 (e.g. {}=100,200,400)",
                            printable(first.path), first.values.size(), study,
                            printable(first.path)));
  }
  for (const SeriesSetting& s : settings) {
    if (s.values.size() != 1 && s.values.size() != varied->values.size()) {
      throw Error(fmt::format(
          "--set {} has {} values and --set {} has {}: settings varied together need as many "
          "values each (or one, the same at every point)",
          printable(varied->path), varied->values.size(), printable(s.path), s.values.size()));
    }
  }
  return varied->values.size();
}

void apply_point(nlohmann::json& document, const std::vector<SeriesSetting>& settings,
                 std::size_t index) {
  for (const SeriesSetting& s : settings) {
    const nlohmann::json::json_pointer pointer(s.pointer);
    // Every object on the way must be an object (missing ones are made: the reader then names
    // the key it does not know).
    std::vector<nlohmann::json::json_pointer> above;
    for (auto p = pointer.parent_pointer(); !p.empty(); p = p.parent_pointer()) above.push_back(p);
    if (!document.is_object()) {
      throw Error(fmt::format("--set {}: the case is {}, not an object", printable(s.path),
                              document.type_name()));
    }
    for (auto it = above.rbegin(); it != above.rend(); ++it) {
      if (document.contains(*it) && !document.at(*it).is_object()) {
        throw Error(fmt::format("--set {}: {} is {} in the case, not an object with keys",
                                printable(s.path), printable(it->to_string()),
                                kind_of(document.at(*it))));
      }
    }
    document[pointer] = s.values.at(s.values.size() == 1 ? 0 : index);
  }
}

void apply_overrides(nlohmann::json& document, const std::vector<SeriesSetting>& overrides) {
  apply_point(document, overrides, 0);
}

std::string point_label(const std::vector<SeriesSetting>& settings, std::size_t index) {
  std::string label;
  for (const SeriesSetting& s : settings) {
    if (s.values.size() == 1) continue;  // the same at every point: not what tells them apart
    if (!label.empty()) label += ' ';
    label += fmt::format("{}={}", s.path, shown_value(s.values.at(index)));
  }
  return label;
}

nlohmann::json overrides_record(const std::vector<SeriesSetting>& overrides) {
  nlohmann::json record = nlohmann::json::array();
  for (const SeriesSetting& s : overrides) {
    record.push_back({{"path", s.path}, {"pointer", s.pointer}, {"value", s.values.front()}});
  }
  return record;
}

std::string source_with(const std::string& source, const std::vector<std::string>& texts) {
  if (texts.empty()) return source;
  std::string flags;
  for (const std::string& text : texts) flags += fmt::format(" --set {}", printable(text, 200));
  return source + " with" + flags;
}

}  // namespace haloflow::cases
