#pragma once
// The figures of a sweep: every number a point's results.json holds, named by its path in that
// file ("step_time_us.median", "heat3d.error_max"), with a few short names for the ones a sweep
// is usually about; and the table of the chosen figures per point, as CSV and Markdown.

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace haloflow::cases {

//! A figure's name and value.
using Figure = std::pair<std::string, double>;

//! A short name for a figure of results.json, and its unit.
struct FigureAlias {
  std::string name;  //!< "time_per_step"
  std::string path;  //!< "step_time_us.median"
  std::string unit;  //!< "us"
};

//! The short names (time_per_step: step_time_us.median, bandwidth: run.achieved_Bps).
[[nodiscard]] const std::vector<FigureAlias>& figure_aliases();

//! A figure's name as a table's header and a plot's axis say it: "time_per_step (us)".
[[nodiscard]] std::string figure_title(const std::string& name);

//! Every number of a run's results.json (the sections of the run and the model; not the files,
//! versions or machine), its keys joined by '.', in key order (as nlohmann::json keeps them),
//! the short names first.
[[nodiscard]] std::vector<Figure> figures_of(const nlohmann::json& results);

//! The figures a sweep shows: `wanted` (empty: time_per_step and bandwidth, those there are).
//! \throws Error naming a name that `available` lacks, and listing those it has.
[[nodiscard]] std::vector<std::string> choose_figures(const std::vector<std::string>& wanted,
                                                      const std::vector<Figure>& available);

//! One row of the sweep's table: the point's label, its run directory, the varied settings'
//! values and the chosen figures (NaN where a point lacks one).
struct SweepRow {
  std::string label;
  std::string directory;
  std::vector<std::string> settings;
  std::vector<double> figures;
};

struct SweepTable {
  std::vector<std::string> setting_names;  //!< the varied paths ("jacobi2d.nx")
  std::vector<std::string> figure_names;
  std::vector<SweepRow> rows;
};

//! The value of `name` among `figures`; NaN when it is not there.
[[nodiscard]] double figure_value(const std::vector<Figure>& figures, const std::string& name);

[[nodiscard]] std::string table_csv(const SweepTable& table);
[[nodiscard]] std::string table_markdown(const SweepTable& table);

}  // namespace haloflow::cases
