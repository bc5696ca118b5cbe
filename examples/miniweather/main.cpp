// miniweather: miniWeather (github.com/mrnorman/miniWeather) on haloflow's public API, as an
// outside code embeds it. This file is the driver: the command line (CLI11), MPI and the GPU
// set-up, the miniWeather-style report and the checks a test asks for. The solver is
// miniweather.cu.
//
//   mpiexec -n 2 miniweather --nx 100 --nz 50 --sim-time 400 --out-freq 400
//                            --data-spec thermal --executor host
//
// Exit 0: ran, and every check asked for held; 1: a check failed or an error; 77: a GPU executor
// asked for on a machine without a GPU (ctest: skipped).

#include <mpi.h>
#include <CLI/CLI.hpp>
#include <haloflow/haloflow.hpp>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "miniweather.hpp"

namespace {

struct Options {
  miniweather::Setup setup;
  std::vector<haloflow::ExecutorKind> executors;
  std::string dump;              // write the final global state here (raw doubles)
  double check_mass = -1;        // |d_mass| must be below it
  double check_energy = -1;      // d_te must be negative and |d_te| below it
  bool check_mass_gain = false;  // d_mass must be positive (injection)
  std::optional<double> expect_mass, expect_energy;  // d_mass, d_te near these figures
  double expect_tolerance = 1e-4;                    // relative
  double gpu_tolerance = 1e-9;  // largest relative difference of a GPU run from the first
};

// FNV-1a over the bytes of the doubles: equal states give equal sums, and a one-bit difference
// anywhere changes it.
std::uint64_t fingerprint(const std::vector<double>& values) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const double value : values) {
    unsigned char bytes[sizeof(double)];
    std::memcpy(bytes, &value, sizeof bytes);
    for (const unsigned char byte : bytes) {
      hash ^= byte;
      hash *= 1099511628211ULL;
    }
  }
  return hash;
}

// Largest difference of `b` from `a`, relative to the largest magnitude of `a`, per field.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size() / 4;
  double worst = 0;
  for (std::size_t v = 0; v < 4; ++v) {
    double scale = 0, apart = 0;
    for (std::size_t c = v * n; c < (v + 1) * n; ++c) {
      scale = std::max(scale, std::abs(a[c]));
      apart = std::max(apart, std::abs(a[c] - b[c]));
    }
    if (scale > 0) worst = std::max(worst, apart / scale);
    if (!(apart == apart)) worst = apart;  // NaN
  }
  return worst;
}

int run(MPI_Comm comm, const Options& options) {
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const miniweather::Setup& setup = options.setup;
  int status = 0;
  std::vector<double> first;
  for (const haloflow::ExecutorKind executor : options.executors) {
    const std::string name(haloflow::to_string(executor));
    if (rank == 0) {
      std::printf("miniweather: %s, %ld x %ld cells, %d ranks, %s executor, to t = %g s\n",
                  std::string(miniweather::to_string(setup.data_spec)).c_str(), setup.nx, setup.nz,
                  ranks, name.c_str(), setup.sim_time);
    }
    const miniweather::Result r = miniweather::simulate(comm, setup, executor);
    if (rank != 0) continue;
    const double d_mass = (r.mass - r.mass0) / r.mass0;
    const double d_te = (r.te - r.te0) / r.te0;
    const double cells_per_second =
        static_cast<double>(setup.nx * setup.nz) * static_cast<double>(r.steps) / r.seconds;
    std::printf("steps: %ld, step loop %.3f s, %.4g cell-steps per second\n", r.steps, r.seconds,
                cells_per_second);
    std::printf("d_mass: %le\n", d_mass);
    std::printf("d_te:   %le\n", d_te);
    // Exact figures and a fingerprint of the final state, for bitwise comparisons.
    std::printf("exact: d_mass %a d_te %a state %016" PRIx64 "\n", d_mass, d_te,
                fingerprint(r.state));
    if (!options.dump.empty()) {
      std::ofstream out(options.dump, std::ios::binary);
      out.write(reinterpret_cast<const char*>(r.state.data()),
                static_cast<std::streamsize>(r.state.size() * sizeof(double)));
    }
    auto check = [&](bool ok, const std::string& what) {
      std::printf("check %s: %s\n", what.c_str(), ok ? "ok" : "FAILED");
      if (!ok) status = 1;
    };
    if (options.check_mass >= 0) {
      std::ostringstream what;
      what << "|d_mass| < " << options.check_mass;
      check(std::abs(d_mass) < options.check_mass, what.str());
    }
    if (options.check_energy >= 0) {
      std::ostringstream what;
      what << "d_te < 0 and |d_te| < " << options.check_energy;
      check(d_te < 0 && std::abs(d_te) < options.check_energy, what.str());
    }
    if (options.check_mass_gain) check(d_mass > 0, "d_mass > 0 (the inflow adds mass)");
    auto near = [&](const char* name, double value, std::optional<double> expected) {
      if (!expected) return;
      std::ostringstream what;
      what << name << " within " << options.expect_tolerance << " of " << *expected
           << " (relative)";
      check(std::abs(value - *expected) <= options.expect_tolerance * std::abs(*expected),
            what.str());
    };
    near("d_mass", d_mass, options.expect_mass);
    near("d_te", d_te, options.expect_energy);
    if (first.empty()) {
      first = r.state;
    } else {
      const double apart = relative_difference(first, r.state);
      std::printf("%s executor against the %s executor: largest relative difference %.3e\n",
                  name.c_str(), std::string(haloflow::to_string(options.executors[0])).c_str(),
                  apart);
      std::ostringstream what;
      what << name << " within " << options.gpu_tolerance << " of the first executor";
      check(apart <= options.gpu_tolerance, what.str());
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, comm);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // The graph executor calls MPI from a thread of its own: MPI_THREAD_MULTIPLE.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int status = 1;
  try {
    const haloflow::RankPlacement placement = haloflow::place_rank_on_device(MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    Options options;
    miniweather::Setup& setup = options.setup;
    CLI::App app{
        "miniWeather on haloflow: 2D compressible Euler, x periodic and split over the "
        "MPI ranks, solid walls in z"};
    app.add_option("--nx", setup.nx, "cells along x (periodic)")->check(CLI::PositiveNumber);
    app.add_option("--nz", setup.nz, "cells along z (walls)")->check(CLI::PositiveNumber);
    app.add_option("--sim-time", setup.sim_time, "model seconds to simulate")
        ->check(CLI::PositiveNumber);
    app.add_option("--out-freq", setup.out_freq,
                   "model seconds between progress lines (negative: none; no files are written)");
    std::string data_spec = "thermal";
    app.add_option("--data-spec", data_spec, "initial and boundary data")
        ->check(CLI::IsMember(
            {"thermal", "collision", "gravity_waves", "density_current", "injection"}));
    std::string executors = "auto";
    app.add_option("--executor", executors,
                   "auto|host|graph|streams|serial, or several separated by commas (each runs "
                   "the case; later ones are compared with the first). auto: graph with a GPU, "
                   "host without");
    app.add_option("--dump", options.dump, "write the final state (rank 0, raw doubles) here");
    app.add_option("--check-mass", options.check_mass, "fail unless |d_mass| is below this");
    app.add_option("--check-energy", options.check_energy,
                   "fail unless d_te is negative and |d_te| below this");
    app.add_flag("--check-mass-gain", options.check_mass_gain, "fail unless d_mass > 0");
    app.add_option("--expect-mass", options.expect_mass,
                   "fail unless d_mass is within --expect-tolerance of this");
    app.add_option("--expect-energy", options.expect_energy,
                   "fail unless d_te is within --expect-tolerance of this");
    app.add_option("--expect-tolerance", options.expect_tolerance,
                   "relative tolerance of --expect-mass and --expect-energy");
    app.add_option("--gpu-tolerance", options.gpu_tolerance,
                   "largest relative difference allowed between executors");
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      const int code = rank == 0 ? app.exit(error) : (error.get_exit_code() == 0 ? 0 : 1);
      MPI_Finalize();
      return code;
    }
    setup.data_spec = *miniweather::case_from_string(data_spec);
    std::istringstream list(executors);
    for (std::string name; std::getline(list, name, ',');) {
      if (name == "auto") name = placement.device >= 0 ? "graph" : "host";
      const auto kind = haloflow::executor_from_string(name);
      if (!kind) throw haloflow::Error("miniweather: unknown executor '" + name + "'");
      options.executors.push_back(*kind);
    }
    const bool wants_gpu = std::any_of(
        options.executors.begin(), options.executors.end(),
        [](haloflow::ExecutorKind kind) { return kind != haloflow::ExecutorKind::host; });
    if (wants_gpu && placement.device < 0) {
      if (rank == 0) std::puts("miniweather: no CUDA device for a GPU executor");
      status = 77;
    } else {
      status = run(MPI_COMM_WORLD, options);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "miniweather: %s\n", error.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
