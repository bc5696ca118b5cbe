// What a run's steps took: percentiles of the per-step times and the slowest rank's figures
// (graphs/step_clock.cpp measures them on the GPU).
#include <array>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/step_clock.hpp"

namespace haloflow {

StepTimes summarize_steps(const std::vector<double>& step_seconds, int steps, double total_s) {
  const auto quantile = [&](double fraction) { return percentile(step_seconds, fraction); };
  return StepTimes{.steps = steps,
                   .median_step_s = median(step_seconds),
                   .min_step_s = quantile(0.0),
                   .p10_step_s = quantile(0.1),
                   .p90_step_s = quantile(0.9),
                   .p99_step_s = quantile(0.99),
                   .max_step_s = quantile(1.0),
                   .total_s = total_s};
}

StepTimes slowest_rank(const StepTimes& mine, MPI_Comm communicator,
                       std::chrono::duration<double> timeout) {
  const std::array<double, 7> figures = {mine.median_step_s, mine.min_step_s, mine.p10_step_s,
                                         mine.p90_step_s,    mine.p99_step_s, mine.max_step_s,
                                         mine.total_s};
  std::array<double, 7> slowest{};
  BoundedCollectives(communicator, timeout)
      .allreduce(figures.data(), slowest.data(), static_cast<int>(figures.size()), MPI_DOUBLE,
                 MPI_MAX, "the step times (the slowest rank's)");
  return StepTimes{.steps = mine.steps,
                   .median_step_s = slowest[0],
                   .min_step_s = slowest[1],
                   .p10_step_s = slowest[2],
                   .p90_step_s = slowest[3],
                   .p99_step_s = slowest[4],
                   .max_step_s = slowest[5],
                   .total_s = slowest[6]};
}

}  // namespace haloflow
