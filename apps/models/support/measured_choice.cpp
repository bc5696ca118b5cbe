#include "measured_choice.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/step_clock.hpp"
#include "haloflow/steps.hpp"

namespace haloflow::models {
namespace {

//! The median of `candidate`'s timed steps on this rank; a negative number when fewer than half of
//! them advanced the state (a run whose end comes within the trial: nothing worth comparing).
double trial_step_seconds(const RunOptions& run, const MeasuredCandidate& candidate) {
  const int warmup = 2 * candidate.frame_steps;
  const int steps = warmup + kMeasuredSteps;
  // Declared before the state: its frames' last launch stream must outlive them.
  StepClock clock(backend_of(run.executor), steps);
  std::vector<double> seconds;
  int advanced = steps;
  {
    const std::unique_ptr<SteppingState> state = candidate.build();
    for (int step = 0; step < steps;) {
      clock.mark(step);
      step +=
          state->step(step, steps, std::min(candidate.frame_steps, steps - step), clock.stream());
    }
    clock.mark(steps);
    clock.synchronize();
    state->settle();
    seconds = clock.step_seconds();
    advanced = std::min(state->steps_advanced().value_or(steps), steps);
  }
  if (seconds.size() != static_cast<std::size_t>(steps)) {
    throw Error(
        fmt::format("a measured choice: {} step times for {} steps", seconds.size(), steps));
  }
  if (advanced - warmup < kMeasuredSteps / 2) return -1;
  return median(std::vector<double>(seconds.begin() + warmup, seconds.begin() + advanced));
}

}  // namespace

MeasuredChoice choose_by_measuring(const RunOptions& run, MPI_Comm communicator,
                                   const std::vector<MeasuredCandidate>& candidates,
                                   double tolerance) {
  if (candidates.empty()) throw Error("a measured choice with no candidate");
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> mine;
  for (const MeasuredCandidate& candidate : candidates) {
    mine.push_back(trial_step_seconds(run, candidate));
  }
  // The slowest rank's times, and whether any rank could not time a candidate (a negative time
  // wins MPI_MIN), so that every rank takes the same candidate.
  std::vector<double> slowest(mine.size());
  const double my_least = *std::ranges::min_element(mine);
  double least = 0;
  const BoundedCollectives collectives(communicator, run.exchange_timeout);
  collectives.allreduce(mine.data(), slowest.data(), static_cast<int>(mine.size()), MPI_DOUBLE,
                        MPI_MAX, "a measured choice: the slowest rank's steps");
  collectives.allreduce(&my_least, &least, 1, MPI_DOUBLE, MPI_MIN,
                        "a measured choice: whether every rank timed every candidate");
  MeasuredChoice choice;
  choice.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (least < 0) return choice;
  choice.seconds_per_step = std::move(slowest);
  choice.steps_timed = kMeasuredSteps;
  choice.chosen =
      static_cast<std::size_t>(fastest_steps_per_frame(choice.seconds_per_step, tolerance) - 1);
  return choice;
}

}  // namespace haloflow::models
