#include "timed_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/step_clock.hpp"

namespace haloflow::models {

OverlapTimes measure_overlap(const FramePlan& plan, ExecutorKind executor, int rounds,
                             const BoundedCollectives& collectives) {
  Frame whole(plan, executor);
  Frame interior(plan.only(Lane::bulk), executor);
  Frame chain(plan.only(Lane::communication), executor);
  const auto timed = [&](Frame& frame) {
    collectives.barrier("the overlap measurement");
    const auto start = std::chrono::steady_clock::now();
    frame.run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // One untimed round: the first launch of each frame pays for its set-up.
  timed(whole);
  timed(interior);
  timed(chain);
  std::vector<double> whole_s, interior_s, chain_s;
  for (int round = 0; round < rounds; ++round) {
    whole_s.push_back(timed(whole));
    interior_s.push_back(timed(interior));
    chain_s.push_back(timed(chain));
  }
  const std::array<double, 3> mine = {median(whole_s), median(interior_s), median(chain_s)};
  std::array<double, 3> slowest{};
  collectives.allreduce(mine.data(), slowest.data(), 3, MPI_DOUBLE, MPI_MAX,
                        "the overlap measurement's slowest rank");
  return OverlapTimes{.measured = true,
                      .frame_s = slowest[0],
                      .interior_s = slowest[1],
                      .communication_s = slowest[2],
                      .hidden = hidden_fraction(slowest[0], slowest[1], slowest[2])};
}

StepTimes run_timed_steps(const RunOptions& run, MPI_Comm communicator, const StepHooks& hooks) {
  // One stream for the warm-up and the timed steps: a frame's last launch stream must outlive
  // the run (settle() waits on it).
  const bool restart = run.restart_step > 0;
  if (restart && (!hooks.load || run.restart_step > run.steps)) {
    throw Error(fmt::format("restart after step {}: not possible for a run of {} steps{}",
                            run.restart_step, run.steps,
                            hooks.load ? "" : " (this model cannot restart)"));
  }
  const int first = restart ? run.restart_step : 0;
  const BoundedCollectives collectives(communicator, run.exchange_timeout);
  StepClock clock(backend_of(run.executor), run.steps - first);
  OverlapTimes overlap;
  if (run.measure_overlap && hooks.step_plan != nullptr && run.executor != ExecutorKind::host) {
    overlap = measure_overlap(*hooks.step_plan, run.executor, std::max(run.overlap_rounds, 1),
                              collectives);
  }
  if (run.observer != nullptr) run.observer->frames_ready(hooks.frames);
  if (run.frames_built) run.frames_built(hooks.frames);
  if (restart) {
    hooks.load(run.restart_state);
  } else if (run.warmup > 0 || overlap.measured) {
    for (int step = 0; step < run.warmup; ++step) hooks.step(step, run.warmup, clock.stream());
    clock.synchronize();
    hooks.settle();
    hooks.reset();
  }
  if (run.started) run.started(hooks.process_grid);
  if (run.output && hooks.output) hooks.output(first);
  collectives.barrier("starting the timed steps");
  const auto start = std::chrono::steady_clock::now();
  const int every = std::max(run.progress_every, 1);
  int reported = first;
  const auto report_progress = [&] {
    const int finished = first + clock.finished();
    if (finished > reported) run.progress(finished, run.steps);
    reported = std::max(reported, finished);
  };
  for (int step = first; step < run.steps; ++step) {
    clock.mark(step - first);
    if (run.observer != nullptr) run.observer->step_begins(step);
    hooks.step(step, run.steps, clock.stream());
    if (run.observer != nullptr) {
      clock.synchronize();
      hooks.settle();
      run.observer->step_ends(step);
    }
    const int done = step + 1;
    if (run.sample && hooks.sample) hooks.sample(done);
    if (run.progress) {
      if (done % every == 0 || done == run.steps) clock.note_launched(done - first);
      report_progress();
    }
    if (run.checkpoint && hooks.save && run.checkpoint_every > 0 &&
        done % run.checkpoint_every == 0) {
      clock.synchronize();
      hooks.settle();
      run.checkpoint(done, hooks.save());
    }
    if (run.output && hooks.output &&
        (done == run.steps || (run.output_every > 0 && done % run.output_every == 0))) {
      clock.synchronize();
      hooks.settle();
      hooks.output(done);
    }
  }
  clock.mark(run.steps - first);
  clock.synchronize();
  hooks.settle();
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (run.progress) report_progress();
  StepTimes times;
  static_cast<haloflow::StepTimes&>(times) =
      slowest_rank(summarize_steps(clock.step_seconds(), run.steps - first, total), communicator,
                   run.exchange_timeout);
  times.overlap = overlap;
  return times;
}

}  // namespace haloflow::models
