// heat3d's error under refinement: three resolutions with dt ~ h^2 to the same final time.
// Each run's error must be the scheme's own (|g^N - exp(-3 (2 pi k)^2 nu t)| times the mode, to
// round-off), and the observed order log2(e(h) / e(h/2)) must be 2, the design order, within
// the size of the next term of the error's expansion.
//   mpiexec -n R haloflow_model_heat_order [--executor host|graph|...]
// Exit: 0 all good, 1 a failure, 77 a GPU executor asked for without a GPU (ctest: skipped).

#include <fmt/format.h>
#include <mpi.h>

#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "haloflow/error.hpp"
#include "heat3d/heat3d.hpp"
#include "model_check_main.hpp"

using namespace haloflow;

namespace {

constexpr double kFinalTime = 0.01;  // the mode decays to exp(-1.18) = 0.31 of its start

// The error is C h^2 (1 + D h^2 + ...), with D h^2 of the size (2 pi k h)^2 = 0.15 at the
// coarsest h = 1/16: the observed order is 2 +- log2(1 + 0.15) = 2 +- 0.2.
constexpr double kLowestOrder = 1.8;
constexpr double kHighestOrder = 2.2;

int run_checks(ExecutorKind executor, int rank) {
  // n = 16, 32, 64 with 20, 80, 320 steps: nu dt / h^2 = 0.128 on all three (dt ~ h^2), away
  // from 1/18, where the leading space and time errors cancel.
  const std::vector<std::int64_t> cells{16, 32, 64};
  std::vector<double> errors(cells.size());
  int failures = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::int64_t n = cells[i];
    const int steps = static_cast<int>(20 * (n / 16) * (n / 16));
    const models::HeatConfig config{
        .cells = {n, n, n},
        .nu = 1.0,
        .mode = 1,
        .dt = kFinalTime / steps,
        .run = {.executor = executor, .steps = steps, .warmup = 0, .gather = false}};
    const auto result = models::run_heat3d<double>(config, MPI_COMM_WORLD);
    errors[i] = result.error_max;
    // Each step rounds every value a few times (|u| <= 1): N steps, at most 16 eps each.
    const double roundoff = 16.0 * steps * DBL_EPSILON;
    const bool matches = std::abs(result.error_max - result.predicted_error_max) <= roundoff;
    if (rank == 0) {
      std::printf(
          "n = %3lld, %3d steps: max error %.9e, the scheme's %.9e (allowed difference %.1e): "
          "%s\n",
          static_cast<long long>(n), steps, result.error_max, result.predicted_error_max, roundoff,
          matches ? "ok" : "FAILED");
    }
    failures += matches ? 0 : 1;
  }
  return failures +
         tests::order_failures(errors, cells, kLowestOrder, kHighestOrder, rank, "order");
}

}  // namespace

int main(int argc, char** argv) {
  return tests::run_model_check(
      argc, argv, "haloflow_model_heat_order", "heat3d convergence",
      [](const tests::ModelCheck& m) { return run_checks(m.executor, m.rank); });
}
