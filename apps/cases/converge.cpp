// haloflow converge: the series of a case read point by point through the one case reader, each
// point run in this process as `haloflow run` runs a model (the model's run, one executor, the
// field gathered on rank 0), its errors taken against the exact solution or a reference run, and
// the study written as tables and a plot into a run directory.

#include "converge.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <variant>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "collective.hpp"
#include "executors.hpp"
#include "haloflow/convergence.hpp"
#include "haloflow/device.hpp"
#include "haloflow/ranks.hpp"
#include "heat3d/sine_mode.hpp"
#include "machine_memory.hpp"
#include "output_files.hpp"
#include "printable.hpp"
#include "run_directory.hpp"
#include "run_flags.hpp"
#include "run_output.hpp"
#include "run_place.hpp"
#include "run_record.hpp"
#include "stop_signals.hpp"
#include "written_files.hpp"

namespace haloflow::cases {
namespace {

using input::printable;
namespace fs = std::filesystem;

// Two end times are one when they agree to this relative difference (a time summed step by
// step rounds differently on each grid).
constexpr double kSameTime = 1e-9;
// The reference run of a study in time takes a time step this many times smaller than the
// smallest of the series.
constexpr double kReferenceRefinement = 8;

// on_root_everywhere, with any other exception of rank 0's step (a results.json section without
// a key the study reads) an Error too, so that every rank learns of it.
template <class Step>
void on_root(const MpiSession& mpi, Seconds timeout, const std::string& what, Step&& step) {
  on_root_everywhere(mpi, timeout, what, [&] {
    try {
      step();
    } catch (const Error&) {
      throw;
    } catch (const std::exception& error) {
      throw Error(fmt::format("{}: {}", what, error.what()));
    }
  });
}

// What the model's study compares, and the order its scheme is designed to reach.
struct ModelStudy {
  std::string title;
  double design_order = 0;
  std::string design_note;
};

// The global field rank 0 gathered, as doubles.
std::vector<double> as_doubles(const models::GlobalField& field) {
  return std::visit(
      [](const auto& values) { return std::vector<double>(values.begin(), values.end()); }, field);
}

// One point's run: the model's results.json sections (rank 0) and the gathered field.
struct PointRun {
  nlohmann::json results;
  std::vector<double> field;
  int steps = 0;
};

// A point's run tells its progress only.
class ProgressListener final : public models::RunListener {
 public:
  explicit ProgressListener(outputs::Progress& line) : line_(line) {}
  [[nodiscard]] Wants wants() const override { return {.progress = true}; }
  void progress(int done, int steps) override { line_.update(done, steps); }

 private:
  outputs::Progress& line_;
};

PointRun run_point(const CaseFile& c, bool have_gpu, bool root, const std::string& what) {
  const ExecutorChoice choice = choose_executors(c.run.executor, *c.model, have_gpu);
  const ExecutorKind executor = choice.executors.front();
  models::RunOptions options;
  options.executor = executor;
  options.steps = c.run.steps;
  options.warmup = 0;  // nothing is timed that a warm-up would make fair
  options.handoff = c.exchange.handoff;
  options.transport = c.exchange.transport;
  options.exchange_timeout = Seconds(c.run.timeout_s);
  options.frames_per_launch = c.run.frames_per_launch;
  options.gather = true;
  options.stop_on_signal = true;  // SIGINT, SIGTERM: every rank stops after the same frame
  // A progress line on a terminal only (a log keeps the points' lines alone).
  outputs::Progress progress(what, c.run.progress_every, root && ::isatty(STDOUT_FILENO) == 1);
  options.progress_every = c.run.progress_every;
  ProgressListener listener(progress);
  options.listener = &listener;
  const models::RunRequest request{.executors = {executor},
                                   .options = [&options](std::size_t) { return options; }};
  const auto result = c.model->run(request, MPI_COMM_WORLD);
  const std::string failure = result->failure();
  if (!failure.empty()) throw Error(failure);
  PointRun run;
  run.steps = c.run.steps;
  if (root) {
    result->add_to(run.results, {});
    run.field = as_doubles(result->field());
  }
  return run;
}

// The end time, grid spacing and exact-solution errors of a model's point (rank 0).
double end_time(const std::string& model, const nlohmann::json& results) {
  return results.at(model).at("t").get<double>();
}

double grid_spacing(const std::string& model, const nlohmann::json& results) {
  const nlohmann::json& section = results.at(model);
  if (model == "heat3d") {
    std::int64_t smallest = 0;
    for (const auto& n : section.at("cells")) {
      const auto cells = n.get<std::int64_t>();
      smallest = smallest == 0 ? cells : std::min(smallest, cells);
    }
    return 1.0 / static_cast<double>(smallest);  // the box is [0,1)^3
  }
  return std::max(section.at("dx").get<double>(), section.at("dy").get<double>());
}

// heat3d's u against the exact mode A(t) sin(2 pi k x) sin(2 pi k y) sin(2 pi k z).
std::vector<double> heat3d_errors(const nlohmann::json& results, const std::vector<double>& u) {
  const nlohmann::json& section = results.at("heat3d");
  const Index3 cells{section.at("cells")[0].get<std::int64_t>(),
                     section.at("cells")[1].get<std::int64_t>(),
                     section.at("cells")[2].get<std::int64_t>()};
  const models::SineMode mode(cells, section.at("mode").get<int>());
  const double amplitude = section.at("amplitude_exact").get<double>();
  std::vector<double> exact;
  exact.reserve(u.size());
  for (std::int64_t k = 0; k < cells[2]; ++k) {
    for (std::int64_t j = 0; j < cells[1]; ++j) {
      for (std::int64_t i = 0; i < cells[0]; ++i) exact.push_back(amplitude * mode.at(i, j, k));
    }
  }
  return difference_norms(u, exact);
}

std::vector<double> exact_errors(const std::string& model, const PointRun& run) {
  if (model == "heat3d") return heat3d_errors(run.results, run.field);
  const nlohmann::json& errors = run.results.at("euler2d").at("density_error");
  return {errors.at("l1").get<double>(), errors.at("l2").get<double>(),
          errors.at("linf").get<double>()};
}

// The values a study in time compares: heat3d's u, euler2d's density (the first of its four
// gathered fields).
std::vector<double> compared_field(const std::string& model, const PointRun& run) {
  if (model == "heat3d") return run.field;
  const nlohmann::json& section = run.results.at("euler2d");
  const auto cells = static_cast<std::size_t>(section.at("nx").get<std::int64_t>() *
                                              section.at("ny").get<std::int64_t>());
  return {run.field.begin(), run.field.begin() + static_cast<std::ptrdiff_t>(cells)};
}

ModelStudy model_study(const CaseFile& c, bool in_time) {
  const std::string model(c.model->name());
  const nlohmann::json section = c.model->resolved_section();
  if (model == "heat3d") {
    if (in_time) {
      return {"heat3d: u against a run with dt / 8, in time", 1,
              "explicit Euler: first order in dt at a fixed grid"};
    }
    return {"heat3d: u against the exact sine mode", 2,
            "the 7-point Laplacian, explicit Euler with dt ~ h^2: second order in h"};
  }
  const std::string problem = section.value("case", "vortex");
  const int rk = section.value("rk", 3);
  if (in_time) {
    return {fmt::format("euler2d {}: density against a run with cfl / 8, in time", problem),
            static_cast<double>(rk),
            fmt::format("SSP-RK{}: order {} in dt on smooth data (the limiter and shocks may "
                        "lower it)",
                        rk, rk)};
  }
  if (problem == "vortex") {
    return {"euler2d vortex: density against the exact advected vortex", 2,
            "MUSCL with a limiter, SSP Runge-Kutta: second order on smooth data"};
  }
  return {fmt::format("euler2d {}: density against Sod's exact cell averages", problem), 1,
          "about 1 in L1 at the shock and rarefaction, below at the contact; Linf does not "
          "converge across a shock"};
}

// Refuses a model or a case that has nothing to converge to (before anything runs).
void check_convergeable(const CaseFile& c, bool in_time) {
  const std::string model(c.model->name());
  if (model == "jacobi2d") {
    throw Error(
        "jacobi2d has no exact solution to converge to: its iterations approach the fixed point "
        "of the discrete Laplace problem on each grid (the norm it reports is of the update, "
        "not of an error), so no order can be observed; haloflow converge studies heat3d "
        "(against its exact sine mode) and euler2d (vortex, sod-x, sod-y)");
  }
  if (model != "heat3d" && model != "euler2d") {
    throw Error(fmt::format(
        "{} has no solution to converge to (it measures the executors); haloflow converge "
        "studies heat3d and euler2d",
        model));
  }
  if (model == "euler2d" && !in_time && c.model->resolved_section().value("case", "") == "kh") {
    throw Error(
        "euler2d case kh (Kelvin-Helmholtz) has no exact solution to converge to; study it in "
        "time (--time, against a run with a smaller cfl) or choose case vortex, sod-x or sod-y");
  }
}

// The pointer a study in time refines, for each model.
std::string time_pointer(const std::string& model) {
  return model == "heat3d" ? "/heat3d/dt" : "/euler2d/cfl";
}

std::string time_hint(const std::string& model) {
  return model == "heat3d" ? "--set heat3d.dt=2e-4,1e-4,5e-5 --set run.steps=50,100,200"
                           : "--set euler2d.cfl=0.4,0.2,0.1 with euler2d.t_end > 0";
}

// euler2d stops at t_end or after run.steps steps, whichever comes first: a run that stopped
// before t_end had too few steps.
void check_reached_end(const std::string& model, const PointRun& run, const std::string& what) {
  if (model != "euler2d") return;
  const nlohmann::json& section = run.results.at("euler2d");
  const double t = section.at("t").get<double>();
  const double t_end = section.at("t_end").get<double>();
  if (t >= t_end * (1 - kSameTime)) return;
  const auto enough = static_cast<long long>(std::ceil(1.1 * run.steps * t_end / t));
  throw Error(fmt::format(
      "{} stopped at t = {:.6g} after run.steps = {} steps, before euler2d.t_end = {:g}: give it "
      "more steps (about {}; steps past t_end are not taken)",
      what, t, run.steps, t_end, enough));
}

// Why two points' errors cannot be compared: they are of different times.
std::string time_mismatch(const std::string& model, std::size_t index, const std::string& label,
                          double t, double t0, int steps) {
  const auto suggested = static_cast<long long>(std::llround(steps * t0 / t));
  return fmt::format(
      "point {} ({}) ends at t = {:.6g}, point 0 at t = {:.6g}: errors of different times do not "
      "converge. Keep the end time fixed: {}",
      index, label, t, t0,
      model == "heat3d"
          ? fmt::format("vary run.steps with the time step (here run.steps = {} for point {}), "
                        "e.g. --set run.steps=...",
                        suggested, index)
          : std::string("set euler2d.t_end > 0 (--set euler2d.t_end=1 or in the case) and "
                        "run.steps enough to reach it"));
}

}  // namespace

std::vector<double> difference_norms(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.empty()) {
    throw Error(
        fmt::format("the fields compared have {} and {} values; expected as many, at "
                    "least one",
                    a.size(), b.size()));
  }
  double sum = 0;
  double squares = 0;
  double largest = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    sum += d;
    squares += d * d;
    largest = std::max(largest, d);
  }
  const auto n = static_cast<double>(a.size());
  return {sum / n, std::sqrt(squares / n), largest};
}

int converge_case(const ConvergeFlags& flags, MpiSession& mpi) {
  const bool root = mpi.world_rank() == 0;
  const RankPlacement placement = place_rank_on_device(MPI_COMM_WORLD);
  const bool have_gpu = placement.device >= 0;
  const auto device = current_device();
  const MachineLimits limits{.ranks = mpi.world_size(),
                             .memory_gib = rank_memory_gib(device, placement.local_size)};

  // The series: every point's case read (and refused) before anything is made or run.
  std::vector<SeriesSetting> settings;
  std::size_t count = 0;
  try {
    for (const std::string& text : flags.sets) settings.push_back(parse_series_setting(text));
    count = series_length(settings);
  } catch (const Error& error) {
    throw CollectiveError(error.what());
  }
  const auto read_point = [&](const std::string& what,
                              const std::function<void(nlohmann::json&)>& adjust) {
    try {
      return read_case_everywhere(flags.case_path, limits, mpi, kDefaultTimeout, adjust);
    } catch (const CollectiveError& error) {
      throw CollectiveError(fmt::format("{}: {}", what, error.what()));
    }
  };
  std::vector<CaseFile> points;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < count; ++i) {
    labels.push_back(printable(point_label(settings, i), 300));  // echoed input, escaped
    std::string refused;  // apply_point's refusal, alike on every rank
    points.push_back(
        read_point(fmt::format("point {} ({})", i, labels.back()), [&](nlohmann::json& document) {
          try {
            apply_point(document, settings, i);
          } catch (const Error& error) {
            refused = error.what();
          }
        }));
    if (!refused.empty()) throw CollectiveError(refused);
    try {
      // An executor this machine cannot run is refused before anything runs.
      (void)choose_executors(points[i].run.executor, *points[i].model, have_gpu);
    } catch (const Error& error) {
      throw CollectiveError(fmt::format("point {} ({}): {}", i, labels.back(), error.what()));
    }
    if (i == 0) {
      try {
        check_convergeable(points.front(), flags.time);
      } catch (const Error& error) {
        throw CollectiveError(error.what());
      }
    } else if (points[i].model->name() != points.front().model->name()) {
      throw CollectiveError(
          fmt::format("point {} ({}) is a case of model {}, point 0 of {}: a "
                      "study compares runs of one model",
                      i, labels.back(), points[i].model->name(), points.front().model->name()));
    }
  }
  const std::string model(points.front().model->name());
  if (model == "euler2d") {
    // Without an end time each point takes run.steps steps of a dt set by its grid and cfl.
    for (std::size_t i = 0; i < count; ++i) {
      if (points[i].model->resolved_section().value("t_end", 0.0) <= 0) {
        throw CollectiveError(fmt::format(
            "point {} ({}): euler2d.t_end is 0, so the run ends after run.steps steps, at a time "
            "that depends on the grid and the cfl: the points would end at different times; set "
            "euler2d.t_end > 0 (e.g. --set euler2d.t_end=1) with run.steps enough to reach it",
            i, labels[i]));
      }
    }
  }

  // In time: the refined field is among the settings; the reference takes a step 8 times
  // smaller than the smallest, with 8 times the steps of that point.
  std::optional<CaseFile> reference;
  std::string reference_label;
  if (flags.time) {
    const std::string pointer = time_pointer(model);
    const auto refined = std::find_if(settings.begin(), settings.end(),
                                      [&](const SeriesSetting& s) { return s.pointer == pointer; });
    if (refined == settings.end()) {
      throw CollectiveError(fmt::format(
          "--time refines the time step of {}: give --set {} with the values to run (e.g. {})",
          model, model == "heat3d" ? "heat3d.dt" : "euler2d.cfl", time_hint(model)));
    }
    for (std::size_t i = 1; i < count; ++i) {
      const Index3 shape = points[i].model->run_shape().field_samples;
      const Index3 shape0 = points.front().model->run_shape().field_samples;
      if (shape != shape0) {
        throw CollectiveError(fmt::format(
            "--time studies the time step at a fixed grid: point {} ({}) has {} x {} x {} "
            "samples, point 0 {} x {} x {}; vary the grid in a study in space (without --time)",
            i, labels[i], shape[0], shape[1], shape[2], shape0[0], shape0[1], shape0[2]));
      }
    }
    if (refined->values.size() < 2) {
      throw CollectiveError(fmt::format(
          "--time refines the time step of {}: --set {} gives one value; expected the time step "
          "of each point (e.g. {})",
          model, printable(refined->path), time_hint(model)));
    }
    std::size_t finest = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const nlohmann::json& value = refined->values[i];
      if (!value.is_number() || value.get<double>() <= 0) {
        throw CollectiveError(fmt::format(
            "--set {}: {} is not allowed in a study in time; expected time steps above 0 (0 is "
            "heat3d's automatic dt)",
            printable(refined->path), printable(shown_value(value))));
      }
      if (value.get<double>() < refined->values[finest].get<double>()) finest = i;
    }
    const double smallest = refined->values[finest].get<double>() / kReferenceRefinement;
    const int steps = static_cast<int>(points[finest].run.steps * kReferenceRefinement);
    reference_label = fmt::format("{}={:g} run.steps={}", refined->path, smallest, steps);
    reference.emplace(read_point(fmt::format("the reference run ({})", reference_label),
                                 [&](nlohmann::json& document) {
                                   try {
                                     apply_point(document, settings, finest);
                                   } catch (const Error&) {
                                     return;  // refused above already
                                   }
                                   document[nlohmann::json::json_pointer(pointer)] = smallest;
                                   document["run"]["steps"] = steps;
                                 }));
  }

  const ModelStudy about = model_study(points.front(), flags.time);
  CaseFile& first = points.front();
  const Seconds timeout(first.run.timeout_s);
  const RunPlace place =
      RunPlace::prepare_study(first, "converge", flags.case_path, flags.out, flags.force, mpi);
  const fs::path out = place.work();
  // Format 2: "model" an object, as in a run's results.json (json/schema/results.schema.json).
  RunRecord record(place, {{"format_version", 2},
                           {"command", "converge"},
                           {"case", first.name},
                           {"model", {{"name", model}}},
                           {"study", flags.time ? "time" : "space"},
                           {"ranks", mpi.world_size()},
                           {"versions", outputs::versions()}});
  nlohmann::json& results = record.results();
  const auto write_file = [&](const std::string& name, const std::string& text) {
    record.write_file(name, text);
  };
  on_root(mpi, timeout, "starting the run directory", [&] {
    outputs::print_out(place.note());
    outputs::print_out(fmt::format("converge {}: {} points of {}, in {}\n",
                                   printable(flags.case_path, 300), count, model,
                                   flags.time ? "time" : "space"));
    record.save();
  });

  try {
    convergence::Study study{.title = about.title,
                             .h_name = flags.time ? "dt" : "h",
                             .norms = {"L1", "L2", "Linf"},
                             .points = {},
                             .design_order = about.design_order,
                             .design_note = about.design_note};
    std::vector<PointRun> runs;
    nlohmann::json point_results = nlohmann::json::array();
    double t0 = 0;
    for (std::size_t i = 0; i < count; ++i) {
      runs.push_back(run_point(points[i], have_gpu, root, fmt::format("steps (point {})", i)));
      on_root(mpi, timeout, "checking the end time", [&] {
        const double t = end_time(model, runs[i].results);
        check_reached_end(model, runs[i], fmt::format("point {} ({})", i, labels[i]));
        if (i == 0) t0 = t;
        if (std::abs(t - t0) > kSameTime * std::max(std::abs(t0), 1e-300)) {
          throw Error(time_mismatch(model, i, labels[i], t, t0, runs[i].steps));
        }
        if (!flags.time) {
          const double h = grid_spacing(model, runs[i].results);
          if (i > 0 && h == study.points.back().h) {
            throw Error(fmt::format(
                "point {} ({}) has the grid spacing of point {} (h = {:g}, the coarsest axis's): "
                "no order can be observed; refine every axis together (e.g. heat3d.ny and nz "
                "with nx, euler2d.ny with nx)",
                i, labels[i], i - 1, h));
          }
          study.points.push_back(
              {.h = h, .errors = exact_errors(model, runs[i]), .label = labels[i]});
          runs[i].field = {};  // only a study in time compares fields afterwards
          const auto& e = study.points.back().errors;
          outputs::print_out(fmt::format(
              "point {} ({}): h = {:.4g}, t = {:.6g}: L1 {:.3e}, L2 {:.3e}, Linf {:.3e}\n", i,
              labels[i], h, t, e[0], e[1], e[2]));
        } else {
          outputs::print_out(fmt::format("point {} ({}): t = {:.6g}\n", i, labels[i], t));
        }
      });
    }
    if (reference) {
      const PointRun ref = run_point(*reference, have_gpu, root, "steps (reference)");
      on_root(mpi, timeout, "checking the reference run", [&] {
        const double t = end_time(model, ref.results);
        check_reached_end(model, ref, fmt::format("the reference run ({})", reference_label));
        if (std::abs(t - t0) > kSameTime * std::max(std::abs(t0), 1e-300)) {
          throw Error(
              fmt::format("the reference run ({}) ends at t = {:.6g}, point 0 at t = "
                          "{:.6g}: it needs more steps or euler2d.t_end > 0",
                          reference_label, t, t0));
        }
        const std::vector<double> reference_field = compared_field(model, ref);
        for (std::size_t i = 0; i < count; ++i) {
          const nlohmann::json& section = runs[i].results.at(model);
          const double dt = model == "heat3d"
                                ? section.at("dt").get<double>()
                                : t0 / section.at("steps_taken").get<double>();  // the mean dt
          study.points.push_back(
              {.h = dt,
               .errors = difference_norms(compared_field(model, runs[i]), reference_field),
               .label = labels[i]});
          const auto& e = study.points.back().errors;
          outputs::print_out(fmt::format(
              "point {} ({}): dt = {:.4g}: L1 {:.3e}, L2 {:.3e}, Linf {:.3e} against the "
              "reference ({})\n",
              i, labels[i], dt, e[0], e[1], e[2], reference_label));
        }
        results["reference"] = {{"label", reference_label}, {"results", ref.results.at(model)}};
      });
    }
    on_root(mpi, timeout, "writing the study", [&] {
      const auto orders = convergence::observed_orders(study);
      for (std::size_t i = 0; i < count; ++i) {
        const auto& p = study.points[i];
        nlohmann::json entry = {
            {"label", p.label},
            {study.h_name, p.h},
            {"errors", {{"L1", p.errors[0]}, {"L2", p.errors[1]}, {"Linf", p.errors[2]}}},
            {"results", runs[i].results.at(model)}};
        if (i > 0) {
          nlohmann::json order = nlohmann::json::object();
          for (std::size_t n = 0; n < study.norms.size(); ++n) {
            const double o = orders[i - 1][n];
            order[study.norms[n]] = std::isfinite(o) ? nlohmann::json(o) : nlohmann::json();
          }
          entry["observed_order"] = std::move(order);
        }
        point_results.push_back(std::move(entry));
      }
      results["points"] = point_results;
      results["design_order"] = study.design_order;
      results["design_note"] = study.design_note;
      outputs::print_out("\n" + study.title + "\n" + convergence::table_text(study));
      write_file("convergence.csv", convergence::table_csv(study));
      write_file("convergence.md", convergence::table_markdown(study));
      write_file("convergence.svg", convergence::svg_plot(study));
      record.complete();
    });
  } catch (const models::Interrupted& stop) {
    // Every rank stopped after the same frame: the study so far is said, and the directory says
    // it was interrupted.
    if (root) {
      record.interrupted({{"signal", models::signal_name(stop.signal())}});
      std::fprintf(stderr,
                   "haloflow: %s; the study is incomplete: the points done are printed above, %s "
                   "(results.json) says interrupted\n",
                   stop.what(), printable(out.string(), 300).c_str());
    }
    mpi.finish(timeout);
    models::keep_output_open_for_launcher();
    return 128 + stop.signal();
  } catch (const std::exception& error) {
    if (root) record.failed(error.what());
    throw;
  }
  mpi.finish(timeout);
  return 0;
}

}  // namespace haloflow::cases
