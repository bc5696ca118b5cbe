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

//! What one candidate's trial found: the median of its timed steps on this rank (negative when
//! fewer than half of them advanced the state: a run whose end comes within the trial, nothing
//! worth comparing), and how many steps were timed.
struct Trial {
  double seconds = -1;
  int steps_timed = 0;
};

//! Times `candidate` as the run will step it: with frames_per_launch above 1, launches of that
//! many frames (the steady state's loop, whose cost a frame is not a single frame's), the first
//! launch the warm-up and three more timed; otherwise two frames of warm-up and kMeasuredSteps
//! steps.
Trial trial_step_seconds(const RunOptions& run, const MeasuredCandidate& candidate) {
  const int per_launch = candidate.frame_steps * std::max(1, run.frames_per_launch);
  const bool looped = per_launch > candidate.frame_steps;
  const int warmup = looped ? per_launch : 2 * candidate.frame_steps;
  const int timed = looped ? std::max(kMeasuredSteps, 3 * per_launch) : kMeasuredSteps;
  const int steps = warmup + timed;
  // Declared before the state: its frames' last launch stream must outlive them.
  StepClock clock(backend_of(run.executor), steps);
  std::vector<double> seconds;
  int advanced = steps;
  {
    const std::unique_ptr<SteppingState> state = candidate.build();
    for (int step = 0; step < steps;) {
      clock.mark(step);
      // As many steps as are left: the state takes a frame, or a launch of several.
      step += state->step(step, steps, steps - step, clock.stream());
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
  if (advanced - warmup < timed / 2) return {.seconds = -1, .steps_timed = timed};
  return {
      .seconds = median(std::vector<double>(seconds.begin() + warmup, seconds.begin() + advanced)),
      .steps_timed = timed};
}

}  // namespace

MeasuredChoice choose_by_measuring(const RunOptions& run, MPI_Comm communicator,
                                   const std::vector<MeasuredCandidate>& candidates,
                                   double tolerance) {
  if (candidates.empty()) throw Error("a measured choice with no candidate");
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> mine;
  int steps_timed = 0;  // the fewest of any candidate
  for (const MeasuredCandidate& candidate : candidates) {
    const Trial trial = trial_step_seconds(run, candidate);
    mine.push_back(trial.seconds);
    steps_timed = steps_timed == 0 ? trial.steps_timed : std::min(steps_timed, trial.steps_timed);
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
  choice.steps_timed = steps_timed;
  choice.chosen =
      static_cast<std::size_t>(fastest_steps_per_frame(choice.seconds_per_step, tolerance) - 1);
  return choice;
}

}  // namespace haloflow::models
