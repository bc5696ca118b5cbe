#include "driver.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include "euler2d.hpp"
#include "field_gather.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "heat3d.hpp"
#include "jacobi2d.hpp"

namespace haloflow::models {
namespace {

//! Fills the model's defaults and refuses options that do not apply to it.
void complete_euler(DriverOptions& o) {
  if (o.nz != 0) {
    throw Error(fmt::format("--nz {}: not allowed for euler2d, which is two-dimensional", o.nz));
  }
  if (o.nx == 0) o.nx = 64;
  if (o.ny == 0) o.ny = o.nx;
  o.nz = 1;
  if (o.steps == 0) o.steps = 100;
  if (o.warmup < 0) o.warmup = o.executor == ExecutorKind::host ? 0 : 10;
  if (o.precision.empty()) o.precision = "double";
  if (o.precision != "double") {
    throw Error(
        fmt::format("--precision {}: not allowed for euler2d; expected double", o.precision));
  }
  if (o.split.empty()) o.split = "2d";
  if (o.split != "2d") {
    throw Error(fmt::format(
        "--split {}: not allowed for euler2d; it always uses a 2D process grid (2d)", o.split));
  }
}

void complete(DriverOptions& o) {
  if (o.model == "euler2d") {
    complete_euler(o);
    return;
  }
  const bool jacobi = o.model == "jacobi2d";
  if (!jacobi && o.model != "heat3d") {
    throw Error(
        fmt::format("model: '{}' is not allowed; expected jacobi2d, heat3d or euler2d", o.model));
  }
  if (jacobi && o.nz != 0) {
    throw Error(fmt::format("--nz {}: not allowed for jacobi2d, which is two-dimensional", o.nz));
  }
  if (o.nx == 0) o.nx = jacobi ? 16384 : 256;
  if (o.ny == 0) o.ny = jacobi ? 16384 : o.nx;
  if (o.nz == 0) o.nz = jacobi ? 1 : o.nx;
  if (o.steps == 0) o.steps = jacobi ? 1000 : 100;
  if (o.warmup < 0) o.warmup = o.executor == ExecutorKind::host ? 0 : 10;
  if (o.precision.empty()) o.precision = jacobi ? "float" : "double";
  if (o.precision != "float" && o.precision != "double") {
    throw Error(fmt::format("--precision {}: not allowed; expected float or double", o.precision));
  }
  if (o.split.empty()) o.split = jacobi ? "1d" : "3d";
  if (jacobi && o.split != "1d" && o.split != "2d") {
    throw Error(fmt::format(
        "--split {}: not allowed for jacobi2d; expected 1d (rows over ranks) or 2d", o.split));
  }
  if (!jacobi && o.split != "3d") {
    throw Error(fmt::format(
        "--split {}: not allowed for heat3d; it always uses a 3D process grid (3d)", o.split));
  }
}

RunOptions run_options(const DriverOptions& o) {
  return RunOptions{.executor = o.executor,
                    .steps = o.steps,
                    .warmup = o.warmup,
                    .gather = !o.dump.empty() || !o.compare.empty(),
                    .handoff = o.handoff,
                    .transport = o.transport,
                    .self_on_device = o.self_on_device,
                    .exchange_timeout = std::chrono::duration<double>(o.timeout_s),
                    .output = o.output,
                    .output_every = o.output_every,
                    .checkpoint = o.checkpoint,
                    .checkpoint_every = o.checkpoint_every,
                    .restart_step = o.restart_step,
                    .restart_state = o.restart_state,
                    .progress = o.progress,
                    .progress_every = o.progress_every,
                    .measure_overlap = o.overlap};
}

std::string describe_run(const DriverOptions& o, int ranks, const Coord3& grid, int dimensions) {
  std::string shape = fmt::format("{}", grid[0]);
  for (int axis = 1; axis < dimensions; ++axis) shape += fmt::format(" x {}", grid[axis]);
  return fmt::format("{}, {} rank{} as {}, {} executor, {} steps ({} warm-up)", o.precision, ranks,
                     ranks == 1 ? "" : "s", shape, to_string(o.executor), o.steps, o.warmup);
}

//! The time and bandwidth lines, and one line of key=value pairs for scripts.
void print_times(const DriverOptions& o, const StepTimes& times, double bytes, int ranks,
                 const std::string& what_moves, const std::string& extra) {
  const double bandwidth = bytes / times.median_step_s;
  fmt::print(
      "time per step: median {:.1f} us (p10 {:.1f}, p90 {:.1f}, p99 {:.1f}, max {:.1f}); {} steps "
      "in {:.4f} s (slowest rank)\n",
      1e6 * times.median_step_s, 1e6 * times.p10_step_s, 1e6 * times.p90_step_s,
      1e6 * times.p99_step_s, 1e6 * times.max_step_s, times.steps, times.total_s);
  std::string overlap;
  if (times.overlap.measured) {
    const OverlapTimes& t = times.overlap;
    fmt::print(
        "overlap: step frame {:.1f} us, interior alone {:.1f} us, communication alone {:.1f} us: "
        "{:.1f} % of the shorter hidden (medians, slowest rank)\n",
        1e6 * t.frame_s, 1e6 * t.interior_s, 1e6 * t.communication_s, 100 * t.hidden);
    overlap = fmt::format(
        " overlap_frame_s={:.9f} overlap_interior_s={:.9f} overlap_communication_s={:.9f} "
        "hidden={:.4f}",
        t.frame_s, t.interior_s, t.communication_s, t.hidden);
  }
  fmt::print(
      "bytes per step: {:.4g} GB ({}); achieved {:.3f} TB/s, {:.3f} TB/s per rank = {:.1f} % of "
      "{:.2f} TB/s\n",
      1e-9 * bytes, what_moves, 1e-12 * bandwidth, 1e-12 * bandwidth / ranks,
      100 * bandwidth / ranks / o.copy_bandwidth, 1e-12 * o.copy_bandwidth);
  fmt::print(
      "result: model={} precision={} executor={} ranks={} steps={} total_s={:.6f} "
      "median_step_s={:.9f} min_step_s={:.9f} p10_step_s={:.9f} p90_step_s={:.9f} "
      "p99_step_s={:.9f} max_step_s={:.9f} bytes_per_step={:.0f} bandwidth_Bps={:.6e}{}\n",
      o.model, o.precision, to_string(o.executor), ranks, times.steps, times.total_s,
      times.median_step_s, times.min_step_s, times.p10_step_s, times.p90_step_s, times.p99_step_s,
      times.max_step_s, bytes, bandwidth, overlap + extra);
}

//! Rank 0 writes and compares the global field; \returns 1 on every rank when the comparison
//! failed, else 0.
template <class T>
int finish_field(const DriverOptions& o, const std::vector<T>& field, int rank) {
  int status = 0;
  if (rank == 0 && !o.dump.empty()) {
    write_raw(o.dump, field);
    fmt::print("dump: {} values of {} bytes written to {}\n", field.size(), sizeof(T), o.dump);
  }
  if (rank == 0 && !o.compare.empty()) {
    const std::vector<T> other = read_raw<T>(o.compare);
    if (other.size() != field.size()) {
      throw Error(fmt::format("--compare {}: {} values; this run's field has {}", o.compare,
                              other.size(), field.size()));
    }
    double largest = 0;
    bool not_a_number = false;
    for (std::size_t i = 0; i < field.size(); ++i) {
      const double difference =
          std::abs(static_cast<double>(field[i]) - static_cast<double>(other[i]));
      if (std::isnan(difference)) not_a_number = true;
      if (difference > largest) largest = difference;
    }
    const bool ok = !not_a_number && largest <= o.tolerance;
    fmt::print("compare with {}: {} values, largest |difference| {:.3e}{} (tolerance {:.3e}): {}\n",
               o.compare, field.size(), largest, not_a_number ? " and NaN" : "", o.tolerance,
               ok ? "ok" : "FAILED");
    status = ok ? 0 : 1;
  }
  HALOFLOW_MPI(MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD), "the comparison's verdict");
  return status;
}

template <class T>
int drive_jacobi(const DriverOptions& o, int rank, int ranks) {
  const JacobiConfig config{.nx = o.nx,
                            .ny = o.ny,
                            .split = o.split == "2d" ? 2 : 1,
                            .norm_every = o.norm_every,
                            .rows_per_thread = o.rows_per_thread,
                            .run = run_options(o)};
  const JacobiResult<T> result = run_jacobi2d<T>(config, MPI_COMM_WORLD);
  if (rank == 0) {
    fmt::print(
        "jacobi2d: {} x {} ({} rows computed, periodic in y; columns 0 and {} fixed), {}, norm "
        "every {}\n",
        o.nx, o.ny, o.ny - 2, o.nx - 1, describe_run(o, ranks, result.process_grid, 2),
        o.norm_every);
    for (std::size_t i = 0; i < result.norms.size(); ++i) {
      const NormSample& sample = result.norms[i];
      const bool last = i + 1 == result.norms.size();
      if (o.print_every > 0 && (sample.step % o.print_every == 0 || last)) {
        fmt::print("step {:5d}: L2 norm of the update {:.9e}\n", sample.step, sample.value);
      }
    }
    const std::string norm = result.norms.empty()
                                 ? std::string()
                                 : fmt::format(" final_norm={:.9e}", result.norms.back().value);
    print_times(o, result.times, result.bytes_per_step, ranks, "read a + write a_new", norm);
  }
  return finish_field(o, result.field, rank);
}

template <class T>
int drive_heat(const DriverOptions& o, int rank, int ranks) {
  const HeatConfig config{
      .cells = {o.nx, o.ny, o.nz}, .nu = o.nu, .mode = o.mode, .dt = o.dt, .run = run_options(o)};
  const HeatResult<T> result = run_heat3d<T>(config, MPI_COMM_WORLD);
  if (rank == 0) {
    fmt::print(
        "heat3d: {} x {} x {} cells on the periodic box [0,1)^3, {}, dt {:.6e}, nu {}, mode k = "
        "{}\n",
        o.nx, o.ny, o.nz, describe_run(o, ranks, result.process_grid, 3), result.dt, o.nu, o.mode);
    fmt::print(
        "t = {:.6e}: amplitude exact {:.12f}, scheme {:.12f}; max error {:.6e} (predicted from "
        "the scheme's amplification factor {:.6e}), rms error {:.6e}\n",
        result.final_time, result.amplitude_exact, result.amplitude_scheme, result.error_max,
        result.predicted_error_max, result.error_rms);
    print_times(o, result.times, result.bytes_per_step, ranks, "read u + write u_new",
                fmt::format(" error_max={:.9e} predicted_error_max={:.9e}", result.error_max,
                            result.predicted_error_max));
  }
  return finish_field(o, result.field, rank);
}

int drive_euler(const DriverOptions& o, int rank, int ranks) {
  if (o.limiter != "minmod" && o.limiter != "vanleer") {
    throw Error(fmt::format("--limiter {}: not allowed; expected minmod or vanleer", o.limiter));
  }
  if (o.riemann != "hllc" && o.riemann != "rusanov") {
    throw Error(fmt::format("--riemann {}: not allowed; expected hllc or rusanov", o.riemann));
  }
  const EulerConfig config{.problem = euler_case_from_string(o.euler_case),
                           .nx = o.nx,
                           .ny = o.ny,
                           .cfl = o.cfl,
                           .t_end = o.t_end,
                           .stages = o.rk,
                           .limiter = o.limiter == "minmod" ? 0 : 1,
                           .flux = o.riemann == "hllc" ? 0 : 1,
                           .run = run_options(o)};
  const EulerResult result = run_euler2d(config, MPI_COMM_WORLD);
  if (rank == 0) {
    fmt::print(
        "euler2d: case {}, {} x {} cells (dx {:.6g}, dy {:.6g}), {}, SSP-RK{}, {}, {}, cfl {}\n",
        o.euler_case, o.nx, o.ny, result.dx, result.dy,
        describe_run(o, ranks, result.process_grid, 2), o.rk, o.limiter, o.riemann, o.cfl);
    fmt::print("t = {:.9g} after {} steps\n", result.final_time, result.steps_taken);
    if (result.has_exact) {
      fmt::print("density error against the exact solution: L1 {:.6e}, L2 {:.6e}, Linf {:.6e}\n",
                 result.error_l1, result.error_l2, result.error_linf);
    }
    const char* names[4] = {"mass", "x-momentum", "y-momentum", "energy"};
    std::string drift;
    for (std::size_t f = 0; f < 4; ++f) {
      drift += fmt::format(
          "{}{} {:.3e}", f == 0 ? "" : ", ", names[f],
          std::abs(result.totals_final[f] - result.totals_initial[f]) / result.totals_scale[f]);
    }
    fmt::print("conservation, |change| / sum |initial|: {}\n", drift);
    print_times(
        o, result.times, result.bytes_per_step, ranks,
        "per stage read in and U, write out; read U for the CFL",
        fmt::format(" t={:.9g} steps_taken={} error_l1={:.9e} error_linf={:.9e}", result.final_time,
                    result.steps_taken, result.error_l1, result.error_linf));
  }
  return finish_field(o, result.field, rank);
}

}  // namespace

int run_driver(DriverOptions options, int rank, int ranks) {
  complete(options);
  if (options.model == "euler2d") return drive_euler(options, rank, ranks);
  const bool single = options.precision == "float";
  if (options.model == "jacobi2d") {
    return single ? drive_jacobi<float>(options, rank, ranks)
                  : drive_jacobi<double>(options, rank, ranks);
  }
  return single ? drive_heat<float>(options, rank, ranks)
                : drive_heat<double>(options, rank, ranks);
}

}  // namespace haloflow::models
