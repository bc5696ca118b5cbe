// haloflow sweep: every point's case read (and refused) through the one case reader before
// anything runs, then each point run as `haloflow run` runs a case, into RUN_DIR/NN_LABEL, and
// the chosen figures of the points' results tabulated and plotted against the varied setting.

#include "sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "collective.hpp"
#include "haloflow/device.hpp"
#include "haloflow/ranks.hpp"
#include "machine_memory.hpp"
#include "output_files.hpp"
#include "printable.hpp"
#include "run_case.hpp"
#include "run_directory.hpp"
#include "run_output.hpp"
#include "run_place.hpp"
#include "run_record.hpp"
#include "stop_signals.hpp"
#include "sweep_figures.hpp"
#include "sweep_plot.hpp"

namespace haloflow::cases {
namespace {

using input::printable;
namespace fs = std::filesystem;

// A point's --set flags for `run`: the common settings and this point's values, each value as
// JSON so that it reads back as it was ("1" stays a string).
std::vector<std::string> point_sets(const std::vector<SeriesSetting>& settings, std::size_t index) {
  std::vector<std::string> sets;
  for (const SeriesSetting& s : settings) {
    sets.push_back(s.path + "=" + s.values.at(s.values.size() == 1 ? 0 : index).dump());
  }
  return sets;
}

// Notes everything a point's run left in its folder as the sweep's own, so that --force can
// replace the sweep as a whole (the point's run made each of them; rank 0 sees them all on a
// shared file system). Never throws: at worst a later --force names what it does not know.
void adopt_point(const fs::path& sweep, const std::string& name) noexcept {
  try {
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(sweep / name, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      const fs::path relative = it->path().lexically_relative(sweep);
      const fs::file_status status = it->symlink_status(error);
      if (fs::is_directory(status)) {
        outputs::note_written(sweep, relative, /*folder=*/true);
      } else if (fs::is_regular_file(status)) {
        outputs::note_written(sweep, relative);
      }
    }
  } catch (const std::exception&) {
  }
}

// The SVG's x values: the first varied setting's, numbers where they all are, else labels.
void set_x(SweepPlot& plot, const SeriesSetting& varied) {
  const bool numeric = std::all_of(varied.values.begin(), varied.values.end(),
                                   [](const nlohmann::json& v) { return v.is_number(); });
  for (const nlohmann::json& value : varied.values) {
    if (numeric) {
      plot.x.push_back(value.get<double>());
    } else {
      plot.x_labels.push_back(shown_value(value));
    }
  }
}

// A figure's name as a file name: "step_time_us.median" -> "step_time_us.median".
std::string file_stem(const std::string& figure) {
  std::string stem;
  for (const char c : figure) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    stem += safe ? c : '_';
  }
  return stem;
}

}  // namespace

std::string point_directory_name(std::size_t index, const std::string& label) {
  std::string name = fmt::format("{:02}_", index);
  for (const char c : label.substr(0, 120)) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.' || c == '=' || c == '+';
    name += safe ? c : '_';
  }
  return name;
}

int sweep_case(const SweepFlags& flags, MpiSession& mpi) {
  const bool root = mpi.world_rank() == 0;
  const RankPlacement placement = place_rank_on_device(MPI_COMM_WORLD);
  const auto device = current_device();
  const MachineLimits limits{.ranks = mpi.world_size(),
                             .memory_gib = rank_memory_gib(device, placement.local_size)};

  // The series, and every point's case read (and refused) before anything is made or run.
  std::vector<SeriesSetting> settings;
  std::size_t count = 0;
  try {
    for (const std::string& text : flags.sets) settings.push_back(parse_series_setting(text));
    count = series_length(settings, "a sweep");
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
  for (const SeriesSetting& s : settings) {
    if (s.pointer == "/run/output") {
      throw CollectiveError(fmt::format(
          "--set {}: a sweep writes each point into its own run directory inside the sweep's; "
          "name the sweep's with --out",
          printable(s.path)));
    }
  }
  std::vector<CaseFile> points;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < count; ++i) {
    labels.push_back(printable(point_label(settings, i), 300));  // echoed input, escaped
    std::string refused;  // apply_point's refusal, alike on every rank
    try {
      points.push_back(read_case_everywhere(flags.case_path, limits, mpi, kDefaultTimeout,
                                            [&](nlohmann::json& document) {
                                              try {
                                                apply_point(document, settings, i);
                                              } catch (const Error& error) {
                                                refused = error.what();
                                              }
                                            }));
    } catch (const CollectiveError& error) {
      throw CollectiveError(fmt::format("point {} ({}): {}", i, labels.back(), error.what()));
    }
    if (!refused.empty()) throw CollectiveError(refused);
  }

  CaseFile& first = points.front();
  const Seconds timeout(first.run.timeout_s);
  const RunPlace place =
      RunPlace::prepare_study(first, "sweep", flags.case_path, flags.out, flags.force, mpi);
  const fs::path out = place.work();
  std::vector<std::string> varied_names;
  for (const SeriesSetting& s : settings) {
    if (s.values.size() > 1) varied_names.push_back(s.path);
  }
  // "model" an object, as in a run's results.json (json/schema/results.schema.json).
  RunRecord record(place, {{"format_version", 2},
                           {"command", "sweep"},
                           {"case", first.name},
                           {"model", {{"name", first.model->name()}}},
                           {"ranks", mpi.world_size()},
                           {"settings", flags.sets},
                           {"versions", outputs::versions()}});
  nlohmann::json& results = record.results();
  on_root_everywhere(mpi, timeout, "starting the sweep's directory", [&] {
    outputs::print_out(place.note());
    outputs::print_out(fmt::format("sweep {}: {} points of {}, in {}\n",
                                   printable(flags.case_path, 300), count, first.model->name(),
                                   printable(out.string(), 300)));
    record.save();
  });

  std::vector<std::string> names;
  std::vector<std::vector<Figure>> figures;  // rank 0: each point's
  std::vector<std::string> chosen;
  try {
    for (std::size_t i = 0; i < count; ++i) {
      names.push_back(point_directory_name(i, point_label(settings, i)));
      on_root_everywhere(mpi, timeout, "noting a point's directory", [&] {
        outputs::note_written(out, names.back(), /*folder=*/true);
        outputs::print_out(fmt::format("\npoint {} ({}): {}\n", i, labels[i], names.back()));
      });
      RunFlags point;
      point.case_path = flags.case_path;
      point.out = (out / names.back()).string();
      // A forced sweep writes beside the one it replaces: its points' resolved cases name
      // where they will be once it is in place, so that rerunning one writes beside it there.
      if (place.replaces()) point.found_at = (place.out() / names.back()).string();
      point.sets = point_sets(settings, i);
      CaseRun run;
      try {
        run = run_case_in_session(point, mpi);
      } catch (...) {
        if (root) adopt_point(out, names.back());
        throw;
      }
      if (root) adopt_point(out, names.back());
      if (run.status != 0) {
        if (root) {
          record.interrupted({{"points_done", i}, {"points", count}});
          std::fprintf(stderr,
                       "haloflow: the sweep stopped at point %zu of %zu; %s (results.json) says "
                       "interrupted\n",
                       i, count, printable(out.string(), 300).c_str());
        }
        mpi.finish(run.timeout);
        models::keep_output_open_for_launcher();
        return run.status;
      }
      on_root_everywhere(mpi, timeout, "reading the point's figures", [&] {
        figures.push_back(figures_of(run.results));
        if (i == 0) chosen = choose_figures(flags.figures, figures.front());
      });
    }
    on_root_everywhere(mpi, timeout, "writing the sweep's tables and plots", [&] {
      SweepTable table{.setting_names = varied_names, .figure_names = chosen, .rows = {}};
      nlohmann::json point_results = nlohmann::json::array();
      for (std::size_t i = 0; i < count; ++i) {
        SweepRow row{.label = labels[i], .directory = names[i], .settings = {}, .figures = {}};
        nlohmann::json values = nlohmann::json::object();
        for (const SeriesSetting& s : settings) {
          if (s.values.size() == 1) continue;
          row.settings.push_back(shown_value(s.values[i]));
          values[s.path] = s.values[i];
        }
        nlohmann::json all = nlohmann::json::object();
        for (const auto& [name, value] : figures[i]) all[name] = value;
        for (const std::string& name : chosen)
          row.figures.push_back(figure_value(figures[i], name));
        point_results.push_back({{"label", labels[i]},
                                 {"directory", names[i]},
                                 {"settings", std::move(values)},
                                 {"figures", std::move(all)}});
        table.rows.push_back(std::move(row));
      }
      results["figures"] = chosen;
      results["points"] = std::move(point_results);
      record.write_file("sweep.csv", table_csv(table));
      const std::string markdown = table_markdown(table);
      record.write_file("sweep.md", markdown);
      const auto varied = std::find_if(settings.begin(), settings.end(),
                                       [](const SeriesSetting& s) { return s.values.size() > 1; });
      for (std::size_t f = 0; f < chosen.size(); ++f) {
        SweepPlot plot{
            .title = fmt::format("{}: {} against {}", first.name, chosen[f], varied->path),
            .x_name = varied->path,
            .y_name = figure_title(chosen[f]),
            .x = {},
            .x_labels = {},
            .y = {}};
        set_x(plot, *varied);
        for (const SweepRow& row : table.rows) plot.y.push_back(row.figures[f]);
        record.write_file(fmt::format("sweep_{}.svg", file_stem(chosen[f])), svg_plot(plot));
      }
      outputs::print_out(fmt::format("\nsweep of {} ({} points)\n{}", first.name, count, markdown));
      record.complete();
    });
  } catch (const std::exception& error) {
    if (root) record.failed(error.what());
    throw;
  }
  mpi.finish(timeout);
  return 0;
}

}  // namespace haloflow::cases
