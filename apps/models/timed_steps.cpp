#include "timed_steps.hpp"

#include <chrono>

#include "haloflow/buffer.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/overlap.hpp"
#include "step_clock.hpp"

namespace haloflow::models {

StepTimes run_timed_steps(const RunOptions& run, MPI_Comm communicator, const StepHooks& hooks) {
  // One stream for the warm-up and the timed steps: a frame's last launch stream must outlive
  // the run (settle() waits on it).
  StepClock clock(backend_of(run.executor), run.steps);
  if (run.warmup > 0) {
    for (int step = 0; step < run.warmup; ++step) hooks.step(step, run.warmup, clock.stream());
    clock.synchronize();
    hooks.settle();
    hooks.reset();
  }
  HALOFLOW_MPI(MPI_Barrier(communicator), "starting the timed steps");
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < run.steps; ++step) {
    clock.mark(step);
    hooks.step(step, run.steps, clock.stream());
  }
  clock.mark(run.steps);
  clock.synchronize();
  hooks.settle();
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double mine[2] = {median(clock.step_seconds()), total};
  double slowest[2] = {0, 0};
  HALOFLOW_MPI(MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, communicator),
               "the step times");
  return StepTimes{.steps = run.steps, .median_step_s = slowest[0], .total_s = slowest[1]};
}

}  // namespace haloflow::models
