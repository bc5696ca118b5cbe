// haloflow: run JSON-described cases and report how much communication the frame hid. This file
// parses the command line; the subcommands are apps/cases/run_case.hpp (run, validate),
// converge.hpp, sweep.hpp and commands.hpp (replay, info).

#include <mpi.h>
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <sys/resource.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "case_file.hpp"
#include "collective.hpp"
#include "commands.hpp"
#include "converge.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/version.hpp"
#include "output_files.hpp"
#include "printable.hpp"
#include "replay.hpp"
#include "run_case.hpp"
#include "stop_signals.hpp"
#include "sweep.hpp"

using haloflow::app::replay_command;
using haloflow::app::show_info;
using haloflow::cases::CollectiveError;
using haloflow::cases::converge_case;
using haloflow::cases::ConvergeFlags;
using haloflow::cases::run_case;
using haloflow::cases::RunFlags;
using haloflow::cases::sweep_case;
using haloflow::cases::SweepFlags;
using haloflow::cases::validate_case;
using haloflow::cases::ValidateFlags;
using haloflow::input::printable_message;

namespace {

constexpr const char* kSetHelp =
    "PATH=VALUE: the case field at PATH (keys joined by '.', e.g. jacobi2d.nx=4096 or "
    "run.steps=200) takes VALUE (a JSON number, true, false or \"text\"; else the text), checked "
    "as a value in the file is; repeatable";

// A path option given as "" is an error, not "not given".
const CLI::Validator kNotEmpty(
    [](const std::string& value) {
      return value.empty() ? std::string(
                                 "an empty path is not allowed; expected a file or "
                                 "directory name")
                           : std::string();
    },
    "PATH", "not empty");

// A finite number in [low, high] (above low when `above_low`): CLI11's PositiveNumber and Range
// let NaN through (every comparison with NaN is false).
CLI::Validator finite_between(double low, double high, bool above_low) {
  return CLI::Validator(
      [=](const std::string& value) {
        double number = 0;
        const bool parsed = CLI::detail::lexical_cast(value, number);
        if (parsed && std::isfinite(number) && (above_low ? number > low : number >= low) &&
            number <= high) {
          return std::string();
        }
        return fmt::format("{} is not allowed; expected a number {} {} and at most {}",
                           haloflow::input::printable(value), above_low ? "above" : "from", low,
                           high);
      },
      fmt::format("NUMBER in {}{}, {}]", above_low ? "(" : "[", low, high));
}

}  // namespace

int main(int argc, char** argv) {
  haloflow::outputs::prepare_process_for_outputs();  // before MPI starts: it writes files too
  CLI::App app{"haloflow: hide halo communication behind computation with CUDA graphs"};
  // `haloflow --version`: the version alone, as scripts read it (`haloflow info` says more).
  app.set_version_flag("--version", std::string("haloflow ") + haloflow::version,
                       "print haloflow's version and exit");
  app.require_subcommand(1);
  RunFlags options;
  auto* run = app.add_subcommand(
      "run",
      "run a case (seed: each executor, compared; jacobi2d, heat3d, euler2d: the model) into a "
      "run directory");
  run->add_option("case", options.case_path, "the case file (JSON)")->required();
  run->add_option("--executor", options.executor,
                  "which executor(s) to run; all: each in turn, compared in results.json "
                  "(default: the case's run.executor)")
      ->check(CLI::IsMember({"all", "auto", "graph", "streams", "serial", "host"}));
  run->add_option("--frames", options.frames,
                  "measured frames per executor (overrides the case; for a model: --steps)")
      ->check(CLI::Range(1, 1000000));
  run->add_option("--steps", options.steps,
                  "steps to run (overrides the case; for the seed: frames per executor)")
      ->check(CLI::Range(1, 100000000));
  run->add_option("--out", options.out,
                  "the run directory (default: the case's run.output, or runs/<case name>)")
      ->check(kNotEmpty);
  run->add_option("--json", options.json_path,
                  "also write the executor comparison (one executor: all of results.json) to "
                  "this file")
      ->check(kNotEmpty);
  run->add_option("--dot", options.dot_path,
                  "also write the plan of every frame the run builds as Graphviz DOT, one file "
                  "per frame: DIR/<frame>.dot (existing .dot files there only with --force)")
      ->type_name("DIR")
      ->check(kNotEmpty);
  run->add_flag("--vtk", options.vtk,
                "models: write VTK image data at each output (RUN_DIR/vtk: a binary .vti per "
                "rank, a .pvti; RUN_DIR/<name>.pvd for ParaView's time series)");
  run->add_flag("--png", options.png,
                "models: write RUN_DIR/png/<name>_<step>.png at each output (a 3D field: the z "
                "layer run.png_slice, or where the field is largest)");
  run->add_option("--checkpoint-every", options.checkpoint_every,
                  "models: a checkpoint every N steps into RUN_DIR/checkpoints; 0: none")
      ->check(CLI::Range(0, 100000000));
  auto* restart =
      run->add_option("--restart", options.restart,
                      "models: continue from the newest complete checkpoint of this run "
                      "directory (or the one --step names)")
          ->check(kNotEmpty);
  run->add_option("--step", options.restart_step,
                  "models, with --restart: continue from the complete checkpoint of this step")
      ->check(CLI::Range(0, 100000000))
      ->needs(restart);
  run->add_option("--dump", options.dump,
                  "models: rank 0 writes the final global field here (raw values, x fastest; an "
                  "existing file only with --force)")
      ->check(kNotEmpty);
  run->add_option("--timeout", options.timeout_s,
                  "models: seconds a halo exchange or a collective may wait for the other ranks "
                  "before the run ends naming them (default: the case's run.timeout_s, 60)")
      ->check(finite_between(haloflow::cases::kMinTimeout, haloflow::cases::kMaxTimeout, false));
  run->add_option("--output-every", options.output_every,
                  "models: VTK and PNG at step 0, every N steps and after the last; 0: step 0 and "
                  "the last")
      ->check(CLI::Range(0, 100000000));
  run->add_option("--handoff", options.handoff,
                  "how graph frames hand host nodes (the MPI exchange) to the host (default: the "
                  "case's exchange.handoff)")
      ->check(CLI::IsMember({"auto", "host-node", "proxy"}));
  run->add_option("--transport", options.transport,
                  "how halos travel between ranks (default: the case's exchange.transport)")
      ->check(CLI::IsMember({"auto", "mpi", "nccl", "peer"}));
  run->add_option("--set", options.sets, kSetHelp)->allow_extra_args(false);
  run->add_flag("--force", options.force,
                "replace an existing run directory (its previous run is removed first) and "
                "overwrite files given to --json and --dump and .dot files in --dot's directory");
  ValidateFlags validate_options;
  auto* validate = app.add_subcommand(
      "validate", "check a case file (every problem at once) without running it; exit 0 if valid");
  validate->add_option("case", validate_options.case_path, "the case file (JSON)")->required();
  validate
      ->add_option("--ranks", validate_options.ranks,
                   "ranks the case is to run on (default: the MPI world size)")
      ->check(CLI::Range(1, 1000000));
  validate
      ->add_option("--memory-gib", validate_options.memory_gib,
                   "memory per rank, GiB (default: the device's, or without a GPU this machine's "
                   "memory shared by the ranks)")
      ->check(finite_between(0, 1e6, true));
  validate->add_option("--set", validate_options.sets, kSetHelp)->allow_extra_args(false);
  haloflow::cases::ReplayOptions replay_options;
  auto* replay = app.add_subcommand(
      "replay",
      "replay a case's frames with every node recorded (under mpiexec: every rank's), and show "
      "what overlapped");
  replay->add_option("case", replay_options.case_path, "the case file (JSON)")->required();
  replay
      ->add_option("--frames", replay_options.frames,
                   "recorded frames (as many run untraced first; default: the case's)")
      ->check(CLI::Range(1, 1000000));
  replay->add_option("--executor", replay_options.executor, "which executor to record")
      ->check(CLI::IsMember({"auto", "graph", "host"}))
      ->capture_default_str();
  replay
      ->add_option("--trace", replay_options.trace_path,
                   "write the recording as Chrome trace-event JSON (Perfetto opens it)")
      ->check(kNotEmpty);
  replay
      ->add_option("--timeline", replay_options.timeline_path,
                   "write an SVG timeline, a row per rank and branch")
      ->check(kNotEmpty);
  replay->add_option("--window", replay_options.window,
                     "frames the timeline shows, as first:count (default: the median frame)");
  replay
      ->add_option("--dot", replay_options.dot_dir,
                   "write each frame's plan as DOT to DIR/<frame>.dot (and, for graph, its CUDA "
                   "graph to DIR/<frame>.cuda.dot)")
      ->type_name("DIR")
      ->check(kNotEmpty);
  replay->add_flag("--per-frame", replay_options.per_frame,
                   "also print each rank's node table and every frame's row (the summary across "
                   "the ranks comes first)");
  replay->add_option("--report", replay_options.report_path, "write the overlap report as JSON")
      ->check(kNotEmpty);
  replay
      ->add_option("--handoff", replay_options.handoff,
                   "how graph frames hand host nodes to the host (default: the case's)")
      ->check(CLI::IsMember({"auto", "host-node", "proxy"}));
  replay
      ->add_option("--transport", replay_options.transport,
                   "how halos travel between ranks (default: the case's)")
      ->check(CLI::IsMember({"auto", "mpi", "nccl", "peer"}));
  replay->add_option("--set", replay_options.sets, kSetHelp)->allow_extra_args(false);
  replay->add_flag("--force", replay_options.force, "overwrite existing output files");
  ConvergeFlags converge_options;
  auto* converge = app.add_subcommand(
      "converge",
      "run a case at a series of settings and report the observed orders of convergence against "
      "the exact solution (heat3d, euler2d vortex and Sod), or in time with --time");
  converge->add_option("case", converge_options.case_path, "the case file (JSON)")->required();
  converge
      ->add_option(
          "--set", converge_options.sets,
          "PATH=V1,V2,...: the case field at PATH (keys joined by '.', e.g. "
          "euler2d.nx) takes each value in turn; several --set vary together, one of a single "
          "value holds at every point")
      ->required()
      ->allow_extra_args(false);
  converge
      ->add_option("--out", converge_options.out,
                   "the run directory (default: runs/converge_<case name>)")
      ->check(kNotEmpty);
  converge->add_flag("--time", converge_options.time,
                     "a study in time: the time step (heat3d.dt, euler2d.cfl) refined at a fixed "
                     "grid, against a run with a step 8 times smaller than the smallest");
  converge->add_flag("--force", converge_options.force,
                     "replace an existing run directory that haloflow made");
  SweepFlags sweep_options;
  auto* sweep = app.add_subcommand(
      "sweep",
      "run a case at a series of settings, one run directory per point, and tabulate and plot "
      "the figures of their results against the varied setting");
  sweep->add_option("case", sweep_options.case_path, "the case file (JSON)")->required();
  sweep
      ->add_option("--set", sweep_options.sets,
                   "PATH=V1,V2,...: the case field at PATH (keys joined by '.', e.g. "
                   "jacobi2d.nx) takes each value in turn; several --set vary together, one of "
                   "a single value holds at every point")
      ->required()
      ->allow_extra_args(false);
  sweep
      ->add_option("--out", sweep_options.out,
                   "the sweep's directory (default: runs/sweep_<case name>)")
      ->check(kNotEmpty);
  sweep
      ->add_option("--figures", sweep_options.figures,
                   "the figures to tabulate and plot, comma-separated: time_per_step, bandwidth "
                   "(the default) or any number of a point's results.json by its keys (e.g. "
                   "step_time_us.p90, heat3d.error_max); an unknown name lists those there are")
      ->delimiter(',')
      ->allow_extra_args(false);
  sweep->add_flag("--force", sweep_options.force,
                  "replace an existing sweep directory that haloflow made");
  auto* info = app.add_subcommand("info", "describe the device, MPI and this build");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  std::optional<haloflow::MpiSession> mpi;  // outlives the handler, which may need MPI_Abort
  try {
    mpi.emplace(&argc, &argv);
    if (run->parsed()) {
      // SIGINT and SIGTERM stop a run between frames, its results saying so.
      haloflow::models::catch_stop_signals(mpi->world_rank() == 0);
      return run_case(options, *mpi);
    }
    if (validate->parsed()) return validate_case(validate_options, *mpi);
    if (converge->parsed()) {
      // SIGINT and SIGTERM stop a point's run between frames, as they stop `run`.
      haloflow::models::catch_stop_signals(mpi->world_rank() == 0);
      return converge_case(converge_options, *mpi);
    }
    if (sweep->parsed()) {
      // SIGINT and SIGTERM stop a point's run between frames, as they stop `run`.
      haloflow::models::catch_stop_signals(mpi->world_rank() == 0);
      return sweep_case(sweep_options, *mpi);
    }
    int status = 0;
    if (replay->parsed()) status = replay_command(replay_options, *mpi);
    if (info->parsed()) status = show_info(*mpi);
    mpi->finish(haloflow::cases::kDefaultTimeout);
    return status;
  } catch (const CollectiveError& error) {
    // Every rank reached it alike: one report, no abort.
    if (mpi && mpi->world_rank() == 0) {
      std::fprintf(stderr, "haloflow: %s\n", printable_message(error.what()).c_str());
    }
    try {
      if (mpi) mpi->finish(haloflow::cases::kDefaultTimeout);
    } catch (const std::exception& end) {
      std::fprintf(stderr, "haloflow: %s\n", printable_message(end.what()).c_str());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "haloflow: %s\n", printable_message(error.what()).c_str());
    // Other ranks may be waiting on this one: end them too rather than leave them hanging. A
    // moment first, so that mpiexec forwards the message before the abort tears the job down.
    if (mpi && mpi->world_size() > 1) {
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 1;
  }
  return 0;
}
