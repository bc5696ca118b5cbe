// haloflow_model: the models of issue 4 on the frame engine, under mpiexec.
//   mpiexec -n R haloflow_model jacobi2d|heat3d [--nx N --ny N --nz N --steps S --norm-every K
//       --executor graph|streams|serial|host --precision float|double --split 1d|2d
//       --dump FILE --compare FILE --tolerance X]
// Exit: 0 done, 1 an error or a failed --compare, 77 a GPU executor asked for without a GPU.

#include <fmt/format.h>
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "driver.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/ranks.hpp"

int main(int argc, char** argv) {
  using haloflow::ExecutorKind;
  haloflow::models::DriverOptions o;
  CLI::App app{"haloflow_model: jacobi2d and heat3d on haloflow frames (run under mpiexec)"};
  app.add_option("model", o.model, "jacobi2d, heat3d or euler2d")
      ->required()
      ->check(CLI::IsMember({"jacobi2d", "heat3d", "euler2d"}));
  app.add_option("--nx", o.nx, "cells along x (jacobi2d: 16384, heat3d: 256)")
      ->check(CLI::PositiveNumber);
  app.add_option("--ny", o.ny, "cells along y (jacobi2d: rows, 2 of them periodic copies)")
      ->check(CLI::PositiveNumber);
  app.add_option("--nz", o.nz, "cells along z (heat3d)")->check(CLI::PositiveNumber);
  app.add_option("--steps", o.steps, "timed steps (jacobi2d: 1000, heat3d: 100)")
      ->check(CLI::Range(1, 100000000));
  app.add_option("--warmup", o.warmup, "steps run and discarded first (GPU: 10, host: 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--norm-every", o.norm_every, "jacobi2d: L2 norm every K steps (0: never)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_flag("--overlap", o.overlap,
               "time the step frame, its interior alone and its communication alone (GPU)");
  app.add_option("--rows-per-thread", o.rows_per_thread,
                 "jacobi2d: consecutive rows each GPU thread walks (tuning)")
      ->check(CLI::Range(1, 65536))
      ->capture_default_str();
  app.add_option("--print-every", o.print_every,
                 "jacobi2d: print norms of steps that are multiples")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::string executor = "graph";
  app.add_option("--executor", executor, "graph, streams, serial or host")
      ->check(CLI::IsMember({"graph", "streams", "serial", "host"}))
      ->capture_default_str();
  app.add_option("--precision", o.precision, "float or double (jacobi2d: float, heat3d: double)")
      ->check(CLI::IsMember({"float", "double"}));
  app.add_option("--split", o.split, "jacobi2d: 1d (rows over ranks) or 2d; heat3d: 3d")
      ->check(CLI::IsMember({"1d", "2d", "3d"}));
  app.add_option("--nu", o.nu, "heat3d: diffusivity")->capture_default_str();
  app.add_option("--mode", o.mode, "heat3d: wave number k of the initial sine mode")
      ->capture_default_str();
  app.add_option("--dt", o.dt, "heat3d: time step (0: h^2 / (8 nu))")->capture_default_str();
  app.add_option("--timeout", o.timeout_s, "seconds a halo exchange may wait for a neighbour")
      ->capture_default_str();
  app.add_option("--copy-bandwidth", o.copy_bandwidth, "bytes/s the fraction is reported against")
      ->capture_default_str();
  app.add_option("--dump", o.dump, "rank 0 writes the global field here (raw values, x fastest)");
  app.add_option("--compare", o.compare, "compare the global field with this raw file");
  app.add_option("--tolerance", o.tolerance, "largest |difference| --compare accepts")
      ->capture_default_str();
  app.add_option("--case", o.euler_case, "euler2d: vortex, sod-x, sod-y or kh")
      ->check(CLI::IsMember({"vortex", "sod-x", "sod-y", "kh"}))
      ->capture_default_str();
  app.add_option("--cfl", o.cfl, "euler2d: CFL number")->capture_default_str();
  app.add_option("--t-end", o.t_end, "euler2d: stop at this time (0: after --steps)")
      ->capture_default_str();
  app.add_option("--rk", o.rk, "euler2d: SSP Runge-Kutta stages")
      ->check(CLI::IsMember({2, 3}))
      ->capture_default_str();
  app.add_option("--limiter", o.limiter, "euler2d: minmod or vanleer")
      ->check(CLI::IsMember({"minmod", "vanleer"}))
      ->capture_default_str();
  app.add_option("--riemann", o.riemann, "euler2d: hllc or rusanov")
      ->check(CLI::IsMember({"hllc", "rusanov"}))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  o.executor = *haloflow::executor_from_string(executor);
  std::optional<haloflow::MpiSession> mpi;  // outlives the handler, which may need MPI_Abort
  try {
    mpi.emplace(&argc, &argv);
    const auto placement = haloflow::place_rank_on_device(MPI_COMM_WORLD);
    if (o.executor != ExecutorKind::host && placement.device < 0) {
      if (mpi->world_rank() == 0) {
        fmt::print("haloflow_model: no CUDA device for the {} executor: skipped\n",
                   haloflow::to_string(o.executor));
      }
      return 77;
    }
    return haloflow::models::run_driver(o, mpi->world_rank(), mpi->world_size());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "haloflow_model: %s\n", error.what());
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
