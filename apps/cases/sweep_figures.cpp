// A sweep's figures read from its points' results and laid out as tables.

#include "sweep_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "haloflow/error.hpp"
#include "printable.hpp"

namespace haloflow::cases {
namespace {

// Sections of results.json that describe where and how the run was made, not what it measured.
const std::vector<std::string> kNotFigures{"files",   "versions", "machine", "overrides",
                                           "started", "finished", "status",  "format_version",
                                           "case",    "model"};

constexpr int kDeepest = 8;  // results.json nests a few levels; deeper is not a figure

void collect(const nlohmann::json& value, const std::string& name, int depth,
             std::vector<Figure>& figures) {
  if (value.is_number()) {
    figures.emplace_back(name, value.get<double>());
    return;
  }
  if (!value.is_object() || depth >= kDeepest) return;  // arrays: series, not one figure
  for (const auto& [key, item] : value.items()) {
    collect(item, name.empty() ? key : name + "." + key, depth + 1, figures);
  }
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  return quoted + "\"";
}

// A Markdown cell: '|' escaped, line breaks as spaces.
std::string md_cell(const std::string& text) {
  std::string cell;
  for (const char c : text) {
    if (c == '|') {
      cell += "\\|";
    } else {
      cell += (c == '\n' || c == '\r') ? ' ' : c;
    }
  }
  return cell;
}

std::string number(double value) {
  return std::isfinite(value) ? fmt::format("{:.6g}", value) : std::string();
}

}  // namespace

const std::vector<FigureAlias>& figure_aliases() {
  static const std::vector<FigureAlias> aliases{
      {.name = "time_per_step", .path = "step_time_us.median", .unit = "us"},
      {.name = "bandwidth", .path = "run.achieved_Bps", .unit = "B/s"}};
  return aliases;
}

std::string figure_title(const std::string& name) {
  for (const FigureAlias& alias : figure_aliases()) {
    if (alias.name == name) return fmt::format("{} ({})", name, alias.unit);
  }
  return name;
}

std::vector<Figure> figures_of(const nlohmann::json& results) {
  std::vector<Figure> all;
  if (!results.is_object()) return all;
  for (const auto& [key, value] : results.items()) {
    if (std::find(kNotFigures.begin(), kNotFigures.end(), key) != kNotFigures.end()) continue;
    collect(value, key, 1, all);
  }
  std::vector<Figure> figures;
  for (const FigureAlias& alias : figure_aliases()) {
    const double value = figure_value(all, alias.path);
    if (!std::isnan(value)) figures.emplace_back(alias.name, value);
  }
  figures.insert(figures.end(), all.begin(), all.end());
  return figures;
}

double figure_value(const std::vector<Figure>& figures, const std::string& name) {
  const auto found = std::find_if(figures.begin(), figures.end(),
                                  [&](const Figure& f) { return f.first == name; });
  return found == figures.end() ? std::numeric_limits<double>::quiet_NaN() : found->second;
}

std::vector<std::string> choose_figures(const std::vector<std::string>& wanted,
                                        const std::vector<Figure>& available) {
  const auto has = [&](const std::string& name) {
    return std::any_of(available.begin(), available.end(),
                       [&](const Figure& f) { return f.first == name; });
  };
  std::vector<std::string> chosen;
  if (wanted.empty()) {
    for (const FigureAlias& alias : figure_aliases()) {
      if (has(alias.name)) chosen.push_back(alias.name);
    }
    return chosen;
  }
  for (const std::string& name : wanted) {
    if (!has(name)) {
      std::vector<std::string> names;
      for (const auto& f : available) names.push_back(f.first);
      throw Error(fmt::format(
          "--figures {}: the points' results.json has no figure {}; expected one of {}",
          input::printable(name, 200), input::printable(name, 200), fmt::join(names, ", ")));
    }
    if (std::find(chosen.begin(), chosen.end(), name) == chosen.end()) chosen.push_back(name);
  }
  return chosen;
}

std::string table_csv(const SweepTable& table) {
  std::vector<std::string> header{"point", "directory"};
  header.insert(header.end(), table.setting_names.begin(), table.setting_names.end());
  for (const std::string& name : table.figure_names) header.push_back(figure_title(name));
  std::string text;
  // fmt::format rather than "," + text: GCC 12 warns (-Wrestrict) on the inlined operator+.
  for (std::size_t i = 0; i < header.size(); ++i) {
    text += fmt::format("{}{}", i ? "," : "", csv_field(header[i]));
  }
  text += '\n';
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const SweepRow& row = table.rows[r];
    text += fmt::format("{},{}", r, csv_field(row.directory));
    for (const std::string& value : row.settings) text += fmt::format(",{}", csv_field(value));
    for (const double value : row.figures) text += fmt::format(",{}", number(value));
    text += '\n';
  }
  return text;
}

std::string table_markdown(const SweepTable& table) {
  std::vector<std::string> header{"point"};
  header.insert(header.end(), table.setting_names.begin(), table.setting_names.end());
  for (const std::string& name : table.figure_names) header.push_back(figure_title(name));
  header.emplace_back("run directory");
  std::string text = "|";
  std::string rule = "|";
  for (const std::string& name : header) {
    text += fmt::format(" {} |", md_cell(name));
    rule += " --- |";
  }
  text += fmt::format("\n{}\n", rule);
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const SweepRow& row = table.rows[r];
    text += fmt::format("| {} |", r);
    for (const std::string& value : row.settings) text += fmt::format(" {} |", md_cell(value));
    for (const double value : row.figures) text += fmt::format(" {} |", number(value));
    text += fmt::format(" {} |\n", md_cell(row.directory));
  }
  return text;
}

}  // namespace haloflow::cases
