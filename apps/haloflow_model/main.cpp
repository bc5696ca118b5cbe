// haloflow_model: one model run under mpiexec from flags instead of a case file, for the
// benchmarks (tools/bench-models) and the model tests. A thin command over the same library as
// `haloflow run`: the flags become a case document ({"model": MODEL} and each --set PATH=VALUE),
// read by the one case reader (apps/cases/case_file.hpp), and the run and its report are the
// model's. The model's own flags (--nx, --cfl, ...) are aliases of --set MODEL.KEY=VALUE.
//   mpiexec -n R haloflow_model jacobi2d|heat3d|euler2d [--set jacobi2d.nx=N ... --steps S
//       --executor graph|streams|serial|host|auto --dump FILE --compare FILE --tolerance X]
//   haloflow_model --measure-copy     (the copy kernel's rates, what the benchmarks run first)
// Exit: 0 done, 1 an error or a failed --compare, 77 a GPU executor (or --measure-copy) asked for
// without a GPU.

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "case_file.hpp"
#include "case_settings.hpp"
#include "copy_bandwidth.hpp"
#include "copy_kernel.hpp"
#include "executors.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/device.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"
#include "machine_memory.hpp"
#include "model.hpp"
#include "output_files.hpp"
#include "printable.hpp"
#include "raw_field.hpp"

namespace {

using haloflow::ExecutorKind;
namespace models = haloflow::models;

struct Flags {
  std::string model;
  // The model's own flags as they were given: key and text, each an alias of --set MODEL.KEY=TEXT.
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<std::string> sets;           // each --set PATH=VALUE as given
  std::vector<std::string> flag_pointers;  // the case fields the flags given set
  int steps = 0;                           // 0: the model's default
  int warmup = -1;                         // -1: the executor's default
  bool overlap = false;
  std::string executor = "graph";
  std::string handoff = "auto";
  std::string transport = "auto";
  std::string self_exchange = "device";
  double timeout_s = 60;
  double copy_bandwidth = models::ReportOptions{}.copy_bandwidth;
  double l2_copy_bandwidth = 0;
  double l2_bytes = 0;
  bool measure_copy = false;
  std::string dump;
  std::string compare;
  double tolerance = 0;
};

// A finite number in [low, high]: CLI11's own checks let NaN through.
CLI::Validator finite_between(double low, double high) {
  return CLI::Validator(
      [=](const std::string& value) {
        double number = 0;
        if (CLI::detail::lexical_cast(value, number) && std::isfinite(number) && number >= low &&
            number <= high) {
          return std::string();
        }
        return fmt::format("{} is not allowed; expected a number from {} to {}",
                           haloflow::input::printable(value), low, high);
      },
      fmt::format("NUMBER in [{}, {}]", low, high));
}

// A flag that sets key `key` of the model's section: --set MODEL.KEY=VALUE by another name (the
// one reader reads the value, as it reads --set's).
void section_flag(CLI::App& app, Flags& flags, const std::string& name, const char* key,
                  const std::string& help) {
  app.add_option_function<std::string>(
      name, [&flags, key](const std::string& value) { flags.aliases.emplace_back(key, value); },
      help + "; the same as --set MODEL." + key + "=VALUE");
}

void add_flags(CLI::App& app, Flags& f) {
  app.add_option("model", f.model, "jacobi2d, heat3d or euler2d (required but with --measure-copy)")
      ->check(CLI::IsMember({"jacobi2d", "heat3d", "euler2d"}));
  section_flag(app, f, "--nx", "nx", "cells along x (jacobi2d: 16384, heat3d: 256)");
  section_flag(app, f, "--ny", "ny", "cells along y (jacobi2d: rows, 2 of them copies)");
  section_flag(app, f, "--nz", "nz", "cells along z (heat3d)");
  section_flag(app, f, "--norm-every", "norm_every",
               "jacobi2d: L2 norm every K steps (0: never; default 100)");
  section_flag(app, f, "--print-every", "print_every",
               "jacobi2d: print norms of steps that are multiples (default 100)");
  section_flag(app, f, "--rows-per-thread", "rows_per_thread",
               "jacobi2d: consecutive rows each GPU thread walks (tuning; default 8)");
  section_flag(app, f, "--steps-per-frame", "steps_per_frame",
               "jacobi2d: 2, 4 or 8 take that many steps in one sweep (ghosts that deep), 1 one, "
               "auto 8 or 4 where every rank computes 1024 or 256 cells along each axis, else two "
               "where they fit, else one (default auto); heat3d: 1 to 4, ghosts that deep and one "
               "exchange a frame, or auto (the "
               "fastest k measured before the run; default 1)");
  section_flag(app, f, "--precision", "precision",
               "float or double (jacobi2d: float, heat3d: double)");
  section_flag(app, f, "--split", "split", "jacobi2d: 1d (rows over ranks) or 2d");
  section_flag(app, f, "--nu", "nu", "heat3d: diffusivity (default 1)");
  section_flag(app, f, "--mode", "mode", "heat3d: wave number k of the sine mode");
  section_flag(app, f, "--dt", "dt", "heat3d: time step (0: h^2 / (8 nu))");
  section_flag(app, f, "--case", "case", "euler2d: vortex, sod-x, sod-y or kh");
  section_flag(app, f, "--cfl", "cfl", "euler2d: CFL number (default 0.4)");
  section_flag(app, f, "--t-end", "t_end", "euler2d: stop at this time (0: after --steps)");
  section_flag(app, f, "--rk", "rk", "euler2d: SSP Runge-Kutta stages, 2 or 3");
  section_flag(app, f, "--limiter", "limiter", "euler2d: minmod, vanleer or none (unlimited)");
  section_flag(app, f, "--riemann", "riemann", "euler2d: hllc or rusanov");
  app.add_option("--set", f.sets,
                 "PATH=VALUE: the case field at PATH (e.g. jacobi2d.nx=4096, run.steps=200) "
                 "takes VALUE (a JSON number, true, false or \"text\"; else the text), read by "
                 "the case reader as `haloflow run --set` is; repeatable")
      ->allow_extra_args(false);
  app.add_option("--steps", f.steps, "timed steps (jacobi2d: 1000, heat3d and euler2d: 100)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--warmup", f.warmup, "steps run and discarded first (GPU: 10, host: 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--overlap", f.overlap,
               "time the step frame, its interior alone and its communication alone (GPU)");
  app.add_option("--executor", f.executor, "graph, streams, serial, host or auto")
      ->check(CLI::IsMember({"auto", "graph", "streams", "serial", "host"}))
      ->capture_default_str();
  app.add_option("--handoff", f.handoff, "how graph frames hand host nodes to the host")
      ->check(CLI::IsMember({"auto", "host-node", "proxy"}))
      ->capture_default_str();
  app.add_option("--transport", f.transport, "how halos travel between ranks")
      ->check(CLI::IsMember({"auto", "mpi", "nccl", "peer"}))
      ->capture_default_str();
  app.add_option("--self-exchange", f.self_exchange,
                 "a rank's halos to itself (periodic, one rank on an axis): device copy, or mpi "
                 "(the host path, to measure it on one rank)")
      ->check(CLI::IsMember({"device", "mpi"}))
      ->capture_default_str();
  app.add_option("--timeout", f.timeout_s,
                 "seconds a halo exchange or a collective may wait for the other ranks")
      ->check(finite_between(0.1, 86400))
      ->capture_default_str();
  app.add_option("--copy-bandwidth", f.copy_bandwidth,
                 "bytes/s of the copy kernel over DRAM the fraction and floors are taken against "
                 "(default: measured on a GPU, none on the host executor)")
      ->check(finite_between(1, 1e15));
  app.add_option("--l2-copy-bandwidth", f.l2_copy_bandwidth,
                 "bytes/s of the copy kernel over buffers in the L2, the L2-resident floor's "
                 "(with --copy-bandwidth; default: none)")
      ->check(finite_between(1, 1e15));
  app.add_option("--l2-bytes", f.l2_bytes,
                 "the L2's size in bytes (with --copy-bandwidth; default: the GPU's)")
      ->check(finite_between(1, 1e12));
  app.add_flag("--measure-copy", f.measure_copy,
               "measure the copy kernel's rates (DRAM, L2) on this GPU, print them with whether a "
               "benchmark run here is comparable (at least 3.8 TB/s), and exit");
  app.add_option("--dump", f.dump, "rank 0 writes the global field here (raw values, x fastest)");
  app.add_option("--compare", f.compare, "compare the global field with this raw file");
  app.add_option("--tolerance", f.tolerance, "largest |difference| --compare accepts")
      ->check(finite_between(0, 1e300))
      ->capture_default_str();
}

// The --set paths of run and exchange that haloflow_model takes (it writes no outputs, and its
// model is its first argument).
const std::vector<std::string> kTakenPointers{
    "/run/steps",        "/run/warmup",         "/run/executor",         "/run/timeout_s",
    "/exchange/handoff", "/exchange/transport", "/run/frames_per_launch"};

// kTakenPointers as --set spells them: "run.steps, run.warmup, ...".
std::string taken_paths() {
  std::string paths;
  for (const std::string& pointer : kTakenPointers) {
    std::string path = pointer.substr(1);
    std::replace(path.begin(), path.end(), '/', '.');
    paths += (paths.empty() ? "" : ", ") + path;
  }
  return paths;
}

// The flags as a case document: the model, its flags' run and exchange fields, then every --set
// (the model's own flags first: they are --set by other names).
nlohmann::json case_document(const Flags& f, std::vector<std::string>& sets) {
  nlohmann::json run = {{"executor", f.executor}, {"timeout_s", f.timeout_s}};
  if (f.steps > 0) run["steps"] = f.steps;
  if (f.warmup >= 0) run["warmup"] = f.warmup;
  nlohmann::json document = {{"model", f.model},
                             {"run", std::move(run)},
                             {"exchange", {{"handoff", f.handoff}, {"transport", f.transport}}}};
  for (const auto& [key, text] : f.aliases) sets.push_back(f.model + "." + key + "=" + text);
  sets.insert(sets.end(), f.sets.begin(), f.sets.end());
  const auto overrides = haloflow::cases::parse_overrides(sets);
  for (const auto& s : overrides) {
    const bool section = s.pointer.starts_with("/" + f.model + "/");
    const bool taken =
        std::find(kTakenPointers.begin(), kTakenPointers.end(), s.pointer) != kTakenPointers.end();
    if (!section && !taken) {
      throw haloflow::Error(fmt::format(
          "--set {}: haloflow_model takes the model's section ({}.KEY) and {}; the model is its "
          "first argument and it writes no outputs (haloflow run takes the whole case)",
          haloflow::input::printable(s.path), f.model, taken_paths()));
    }
    if (std::find(f.flag_pointers.begin(), f.flag_pointers.end(), s.pointer) !=
        f.flag_pointers.end()) {
      throw haloflow::Error(
          fmt::format("--set {} sets {}, which a flag of the command line also sets; give one of "
                      "them",
                      haloflow::input::printable(s.path), s.pointer));
    }
  }
  haloflow::cases::apply_overrides(document, overrides);
  return document;
}

// The case the flags make, read by the one case reader (every rank alike).
haloflow::cases::CaseFile read_case(const Flags& f, int ranks) {
  std::vector<std::string> sets;
  const nlohmann::json document = case_document(f, sets);
  const auto device = haloflow::current_device();
  // Without a GPU: this machine's memory over the ranks (taken to share one node).
  const haloflow::cases::MachineLimits limits{
      .ranks = ranks, .memory_gib = haloflow::cases::rank_memory_gib(device, ranks)};
  auto c = haloflow::cases::parse_case(
      document,
      haloflow::cases::source_with(fmt::format("haloflow_model {} (its flags as a case)", f.model),
                                   sets),
      limits);
  if (c.run.executor == "all") {
    throw haloflow::Error(
        "/run/executor: \"all\" is not allowed here; haloflow_model runs one executor: graph, "
        "streams, serial, host or auto (haloflow run compares them all)");
  }
  return c;
}

// Rank 0 writes and compares the global field; \returns 1 on every rank when the comparison
// failed, else 0.
int finish_field(const Flags& f, const models::ModelResult& result, int rank) {
  int status = 0;
  if (rank == 0 && !f.dump.empty()) {
    fmt::print("{}\n", haloflow::outputs::write_field_dump(f.dump, result.field(), true));
  }
  if (rank == 0 && !f.compare.empty()) {
    const auto comparison =
        haloflow::outputs::compare_field(f.compare, result.field(), f.tolerance);
    fmt::print("{}\n", comparison.line);
    status = comparison.ok ? 0 : 1;
  }
  haloflow::BoundedCollectives(MPI_COMM_WORLD, std::chrono::duration<double>(f.timeout_s))
      .broadcast(&status, 1, MPI_INT, 0, "the comparison's verdict");
  return status;
}

// The copy kernel's rates a GPU run is compared with: the flags' where --copy-bandwidth is given
// (a benchmark measures them once, first), else measured now on this machine, never another's.
models::CopyRates report_rates(const Flags& f, ExecutorKind executor) {
  if (executor == ExecutorKind::host) return {};
  if (f.copy_bandwidth <= 0) return models::measure_copy_rates();
  return {.dram_Bps = f.copy_bandwidth,
          .l2_Bps = f.l2_copy_bandwidth,
          .l2_bytes = f.l2_bytes > 0 ? f.l2_bytes : models::l2_cache_bytes()};
}

// --measure-copy: rank 0 measures and prints the rates; 77 without a GPU.
int measure_copy(const haloflow::MpiSession& mpi, bool have_gpu) {
  if (mpi.world_rank() != 0) return have_gpu ? 0 : 77;
  const models::CopyRates rates = models::measure_copy_rates();
  fmt::print("{}\n{}\n", models::copy_rates_line(rates), models::copy_rates_figures(rates).line());
  return have_gpu ? 0 : 77;
}

int run(Flags& f, const haloflow::MpiSession& mpi) {
  const bool have_gpu = haloflow::place_rank_on_device(MPI_COMM_WORLD).device >= 0;
  if (f.measure_copy) return measure_copy(mpi, have_gpu);
  haloflow::cases::CaseFile c;
  try {
    c = read_case(f, mpi.world_size());
  } catch (const haloflow::Error& error) {
    // Every rank read the same flags: one report, no abort.
    if (mpi.world_rank() == 0) {
      std::fprintf(stderr, "haloflow_model: %s\n",
                   haloflow::input::printable_message(error.what()).c_str());
    }
    return 1;
  }
  models::Model& model = *c.model;
  f.timeout_s = c.run.timeout_s;  // the collectives after the run take the case's bound too
  ExecutorKind executor = ExecutorKind::host;
  try {
    executor = haloflow::cases::choose_executors(c.run.executor, model, have_gpu).executors.front();
  } catch (const haloflow::cases::NoDeviceError&) {
    if (mpi.world_rank() == 0) {
      fmt::print("haloflow_model: no CUDA device for the {} executor: skipped\n", c.run.executor);
    }
    return 77;
  }
  models::RunOptions options;
  options.executor = executor;
  options.steps = c.run.steps;
  options.warmup = c.run.warmup >= 0 ? c.run.warmup : models::default_warmup(executor);
  options.gather = !f.dump.empty() || !f.compare.empty();
  options.handoff = c.exchange.handoff;
  options.transport = c.exchange.transport;
  options.self_on_device = f.self_exchange == "device";
  options.exchange_timeout = std::chrono::duration<double>(c.run.timeout_s);
  options.frames_per_launch = c.run.frames_per_launch;
  options.measure_overlap = f.overlap;
  const auto result = model.run_steps(options, MPI_COMM_WORLD);
  if (mpi.world_rank() == 0) {
    const models::CopyRates rates = report_rates(f, executor);
    const std::string report = result->report({.copy_bandwidth = rates.dram_Bps,
                                               .l2_copy_bandwidth = rates.l2_Bps,
                                               .l2_bytes = rates.l2_bytes});
    std::fputs(report.c_str(), stdout);
  }
  return finish_field(f, *result, mpi.world_rank());
}

}  // namespace

int main(int argc, char** argv) {
  haloflow::outputs::prepare_process_for_outputs();  // before MPI starts: it writes files too
  Flags flags;
  CLI::App app{"haloflow_model: jacobi2d, heat3d and euler2d on haloflow frames (under mpiexec)"};
  add_flags(app, flags);
  try {
    app.parse(argc, argv);
    if (flags.model.empty() && !flags.measure_copy) throw CLI::RequiredError("model");
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  // The case fields the flags given set: a --set of one of them as well is refused.
  for (const auto& [flag, pointer] :
       std::vector<std::pair<std::string, std::string>>{{"--steps", "/run/steps"},
                                                        {"--warmup", "/run/warmup"},
                                                        {"--executor", "/run/executor"},
                                                        {"--timeout", "/run/timeout_s"},
                                                        {"--handoff", "/exchange/handoff"},
                                                        {"--transport", "/exchange/transport"}}) {
    if (app.count(flag) > 0) flags.flag_pointers.push_back(pointer);
  }
  std::optional<haloflow::MpiSession> mpi;  // outlives the handler, which may need MPI_Abort
  try {
    mpi.emplace(&argc, &argv);
    const int status = run(flags, *mpi);
    // The end bounded like the middle: a rank stopped now ends the job, named, not a hang.
    mpi->finish(std::chrono::duration<double>(flags.timeout_s));
    return status;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "haloflow_model: %s\n",
                 haloflow::input::printable_message(error.what()).c_str());
    // Other ranks may be waiting on this one: end them too rather than leave them hanging. A
    // moment first, so that mpiexec forwards this message (and those of ranks that reached the
    // same error) before the abort tears the job down.
    if (mpi && mpi->world_size() > 1) {
      std::fflush(stderr);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  return 1;
}
