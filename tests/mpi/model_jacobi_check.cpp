// jacobi2d against a plain CPU loop written as NVIDIA's single-GPU reference program computes it
// (the same float arithmetic in the same order): the field must match bitwise, the norms to the
// round-off of summing the squares in another order (and, on the GPU in float, in float first), and
// the norm must fall at every step.
//   mpiexec -n R haloflow_model_jacobi_check [--executor host|graph|...] [--split 1d|2d]
// Exit: 0 all good, 1 a failure, 77 a GPU executor asked for without a GPU (ctest: skipped).

#include <fmt/format.h>
#include <mpi.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "haloflow/error.hpp"
#include "jacobi2d/jacobi2d.hpp"
#include "jacobi2d/jacobi_kernels.hpp"
#include "model_check_main.hpp"

using namespace haloflow;
using models::NormSample;

namespace {

template <class T>
struct Reference {
  std::vector<T> rows;  // rows 1 .. ny-2, x fastest
  std::vector<NormSample> norms;
};

// The reference program, serial: nx x ny arrays; columns 0 and nx-1 fixed; rows 0 and ny-1
// copied from rows ny-2 and 1 after each sweep.
template <class T>
Reference<T> reference(std::int64_t nx, std::int64_t ny, int steps, int norm_every) {
  const auto at = [nx](std::int64_t iy, std::int64_t ix) {
    return static_cast<std::size_t>(iy * nx + ix);
  };
  std::vector<T> a(static_cast<std::size_t>(nx * ny), T(0));
  std::vector<T> a_new = a;
  const T pi = static_cast<T>(2.0 * std::asin(1.0));
  for (std::int64_t iy = 0; iy < ny; ++iy) {
    const auto y0 =
        static_cast<T>(std::sin(2.0 * pi * static_cast<double>(iy) / static_cast<double>(ny - 1)));
    a[at(iy, 0)] = a[at(iy, nx - 1)] = a_new[at(iy, 0)] = a_new[at(iy, nx - 1)] = y0;
  }
  Reference<T> result;
  for (int step = 0; step < steps; ++step) {
    double l2 = 0;
    for (std::int64_t iy = 1; iy < ny - 1; ++iy) {
      for (std::int64_t ix = 1; ix < nx - 1; ++ix) {
        const auto value = static_cast<T>(
            0.25 * (a[at(iy, ix + 1)] + a[at(iy, ix - 1)] + a[at(iy + 1, ix)] + a[at(iy - 1, ix)]));
        a_new[at(iy, ix)] = value;
        const T residue = value - a[at(iy, ix)];
        l2 += static_cast<double>(residue) * static_cast<double>(residue);
      }
    }
    std::memcpy(&a_new[at(0, 0)], &a_new[at(ny - 2, 0)], static_cast<std::size_t>(nx) * sizeof(T));
    std::memcpy(&a_new[at(ny - 1, 0)], &a_new[at(1, 0)], static_cast<std::size_t>(nx) * sizeof(T));
    if (norm_every > 0 && (step % norm_every == 0 || step == steps - 1)) {
      result.norms.push_back({step, std::sqrt(l2)});
    }
    std::swap(a, a_new);
  }
  result.rows.assign(a.begin() + nx, a.end() - nx);
  return result;
}

// Checks one case on every rank; \returns the number of failures (on rank 0; 0 elsewhere).
template <class T>
int check(std::int64_t nx, std::int64_t ny, int steps, int norm_every, ExecutorKind executor,
          int split, int rank, int rows_per_thread = 8, int steps_per_frame = 2) {
  const models::JacobiConfig config{
      .nx = nx,
      .ny = ny,
      .split = split,
      .norm_every = norm_every,
      .rows_per_thread = rows_per_thread,
      .steps_per_frame = steps_per_frame,
      .run = {.executor = executor, .steps = steps, .warmup = 0, .gather = true}};
  const std::string name = fmt::format(
      "{} {}x{}, {} steps, norm every {}{}{}", sizeof(T) == 4 ? "float" : "double", nx, ny, steps,
      norm_every, rows_per_thread == 8 ? "" : fmt::format(", {} rows a thread", rows_per_thread),
      steps_per_frame == 2 ? ""
      : steps_per_frame == models::kAutoStepsPerFrame
          ? ", auto steps a frame"
          : fmt::format(", {} step{} a frame", steps_per_frame, steps_per_frame == 1 ? "" : "s"));
  models::JacobiResult<T> result;
  try {
    result = models::run_jacobi2d<T>(config, MPI_COMM_WORLD);
  } catch (const Error& error) {
    // Every rank refuses the same grid: k ghost layers deeper than a rank's share.
    if (std::string(error.what()).find("is not allowed on this process grid") ==
        std::string::npos) {
      throw;
    }
    if (rank == 0) std::printf("%-45s skipped: too thin for this grid\n", name.c_str());
    return 0;
  }
  if (rank != 0) return 0;
  const Reference<T> want = reference<T>(nx, ny, steps, norm_every);
  int failures = 0;
  const auto fail = [&](const std::string& what) {
    std::printf("FAILED %s: %s\n", name.c_str(), what.c_str());
    ++failures;
  };
  if (result.field.size() != want.rows.size()) {
    fail(fmt::format("{} values, want {}", result.field.size(), want.rows.size()));
    return failures;
  }
  std::size_t differing = 0;
  for (std::size_t i = 0; i < want.rows.size(); ++i) {
    if (std::memcmp(&result.field[i], &want.rows[i], sizeof(T)) != 0 && differing++ == 0) {
      fail(fmt::format("cell ({}, {}): {:.9g}, the reference has {:.9g}",
                       i % static_cast<std::size_t>(nx), i / static_cast<std::size_t>(nx) + 1,
                       result.field[i], want.rows[i]));
    }
  }
  if (differing > 0) fail(fmt::format("{} cells not bitwise equal", differing));
  // Sums of n positive terms in two orders differ by at most about n eps relatively; in float, the
  // GPU sums each thread's squares (when at most kJacobiNormRowsPerSum of them) in float first,
  // which adds that many float roundings (the norm, a square root, halves the sum's relative
  // error).
  const double cells = static_cast<double>((nx - 2) * (ny - 2));
  const double float_sums = sizeof(T) < sizeof(double) ? (kernels::kJacobiNormRowsPerSum + 1) *
                                                             static_cast<double>(FLT_EPSILON) / 2
                                                       : 0.0;
  const double tolerance = cells * DBL_EPSILON + float_sums;
  if (result.norms.size() != want.norms.size()) {
    fail(fmt::format("{} norms, want {}", result.norms.size(), want.norms.size()));
    return failures;
  }
  for (std::size_t i = 0; i < want.norms.size(); ++i) {
    const auto& [step, value] = result.norms[i];
    const double relative = std::abs(value - want.norms[i].value) / want.norms[i].value;
    if (step != want.norms[i].step || !(relative <= tolerance)) {
      fail(
          fmt::format("norm of step {}: {:.17g}, the reference has {:.17g} at step {} "
                      "(relative {:.2e}, allowed {:.2e})",
                      step, value, want.norms[i].value, want.norms[i].step, relative, tolerance));
    }
    if (i > 0 && !(value < result.norms[i - 1].value)) {
      fail(fmt::format("norm of step {} ({:.9e}) is not below that of step {} ({:.9e})", step,
                       value, result.norms[i - 1].step, result.norms[i - 1].value));
    }
  }
  std::printf("%-45s %s (final norm %.9e)\n", name.c_str(), failures == 0 ? "ok" : "FAILED",
              result.norms.empty() ? 0.0 : result.norms.back().value);
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  const int split = tests::option(argc, argv, "--split", "1d") == "2d" ? 2 : 1;
  return tests::run_model_check(
      argc, argv, "haloflow_model_jacobi_check",
      fmt::format("jacobi2d against the reference loop, split {}d", split),
      [split](const tests::ModelCheck& m) {
        int failures = 0;
        // Odd sizes, a norm period that does not divide the steps (the last step has one too).
        failures += check<float>(37, 29, 60, 7, m.executor, split, m.rank);
        failures += check<double>(37, 29, 60, 7, m.executor, split, m.rank);
        failures += check<float>(64, 48, 41, 1, m.executor, split, m.rank);
        failures += check<double>(9, 7, 30, 3, m.executor, split, m.rank);
        // Runs longer than kJacobiNormRowsPerSum: the GPU sums those squares in double.
        failures += check<float>(64, 80, 12, 1, m.executor, split, m.rank, 40);
        // Frames of one step throughout (the default takes two where it can).
        failures += check<float>(37, 29, 60, 7, m.executor, split, m.rank, 8, 1);
        // No norm: two-step frames all the way, but the last of an odd count; wider than one block
        // of the two-step sweep (120 columns) and runs of 1 and 40 rows a thread.
        failures += check<float>(300, 40, 41, 0, m.executor, split, m.rank);
        failures += check<double>(300, 40, 20, 0, m.executor, split, m.rank, 1);
        failures += check<float>(250, 90, 16, 0, m.executor, split, m.rank, 40);
        // The deep sweep: 4 and 8 steps a frame, frames of one step between norms and at the end
        // where fewer steps are left; strips of several warps with a ragged end, the fixed
        // columns inside the outer ones; a band of rows longer than a rank's share.
        failures += check<float>(300, 40, 41, 0, m.executor, split, m.rank, 8, 8);
        failures += check<double>(300, 40, 20, 0, m.executor, split, m.rank, 8, 4);
        failures += check<float>(250, 90, 45, 20, m.executor, split, m.rank, 8, 8);
        failures += check<float>(37, 29, 30, 0, m.executor, split, m.rank, 8, 4);
        failures += check<float>(600, 70, 33, 0, m.executor, split, m.rank, 8, 8);
        failures += check<double>(130, 21, 17, 0, m.executor, split, m.rank, 8, 8);
        // auto: 8 steps a frame on one rank, 4 on four.
        failures += check<float>(1100, 1026, 9, 0, m.executor, split, m.rank, 8,
                                 models::kAutoStepsPerFrame);
        return failures;
      });
}
