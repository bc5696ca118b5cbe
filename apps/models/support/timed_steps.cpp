#include "timed_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frame_loops.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/error.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/overlap.hpp"
#include "haloflow/step_clock.hpp"
#include "step_report.hpp"
#include "stop_signals.hpp"

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

namespace {

//! The steps a model's frame took, checked against what it was allowed.
int frame_steps(int taken, int most) {
  if (taken < 1 || taken > most) {
    throw Error(
        fmt::format("a model's frame took {} steps where 1 to {} were allowed", taken, most));
  }
  return taken;
}

}  // namespace

StepTimes run_timed_steps(const RunOptions& run, MPI_Comm communicator, SteppingState& model) {
  // One stream for the warm-up and the timed steps: a frame's last launch stream must outlive
  // the run (settle() waits on it).
  const bool restart = run.restart_step > 0;
  if (restart && (!model.saves_state() || run.restart_step > run.steps)) {
    throw Error(fmt::format("restart after step {}: not possible for a run of {} steps{}",
                            run.restart_step, run.steps,
                            model.saves_state() ? "" : " (this model cannot restart)"));
  }
  const int first = restart ? run.restart_step : 0;
  const BoundedCollectives collectives(communicator, run.exchange_timeout);
  StepClock clock(backend_of(run.executor), run.steps - first);
  OverlapTimes overlap;
  const FramePlan* step_plan = model.step_plan();
  if (run.measure_overlap && step_plan != nullptr && run.executor != ExecutorKind::host) {
    overlap =
        measure_overlap(*step_plan, run.executor, std::max(run.overlap_rounds, 1), collectives);
  }
  RunListener& listener = run.tell();
  const RunListener::Wants wants = run.wants();
  listener.frames_built(model.frames());
  if (restart) {
    model.restart_at(run.restart_step, run.restart_state);
  } else if (run.warmup > 0 || overlap.measured) {
    for (int step = 0; step < run.warmup;) {
      const int most = run.warmup - step;
      step += frame_steps(model.step(step, run.warmup, most, clock.stream()), most);
    }
    clock.synchronize();
    model.settle();
    model.reset();
  }
  listener.started(model.process_grid());
  std::string launches = model.launch_line();
  if (run.frames_per_launch > 1 && launches.empty()) {
    launches =
        frames_per_launch_line(run.frames_per_launch, "this model launches its frames one by one");
  }
  if (wants.lines) {
    const auto routes = model.halo_routes();
    if (!routes.empty()) listener.say(halo_routes_line(routes));
    if (!launches.empty()) listener.say(launches);
  }
  const bool outputs_field = wants.fields && model.has_field();
  if (outputs_field) model.output(first);
  collectives.barrier("starting the timed steps");
  const auto start = std::chrono::steady_clock::now();
  const int every = std::max(run.progress_every, 1);
  int reported = first;
  const auto report_progress = [&] {
    const int finished = first + clock.finished();
    if (finished > reported) listener.progress(finished, run.steps);
    reported = std::max(reported, finished);
  };
  const bool checkpoints = wants.checkpoints && model.saves_state() && run.checkpoint_every > 0;
  const bool outputs = outputs_field && run.output_every > 0;
  // A stop on a signal is agreed between frames (stop_signals.hpp); none when nobody asked.
  std::optional<StopAgreement> stopper;
  if (run.stop_on_signal) stopper.emplace(communicator, run.exchange_timeout);
  int frame = 0;
  int step = first;
  while (step < run.steps && (run.frames_limit == 0 || frame < run.frames_limit)) {
    // The next boundary the loop must see: a frame may take several steps up to there.
    int next = run.steps;
    if (checkpoints)
      next = std::min(next, (step / run.checkpoint_every + 1) * run.checkpoint_every);
    if (outputs) next = std::min(next, (step / run.output_every + 1) * run.output_every);
    // Several frames a launch: the progress reports stay at their steps too.
    if (wants.progress && run.frames_per_launch > 1)
      next = std::min(next, (step / every + 1) * every);
    clock.mark(step - first);
    if (wants.every_frame) listener.frame_begins(frame);
    const int taken =
        frame_steps(model.step(step, run.steps, next - step, clock.stream()), next - step);
    if (wants.every_frame) {
      clock.synchronize();
      model.settle();
      listener.frame_ends(frame);
    }
    const int done = step + taken;
    if (wants.samples) model.sample(done);
    if (wants.progress) {
      if (done / every > step / every || done == run.steps) clock.note_launched(done - first);
      report_progress();
    }
    if (checkpoints && done % run.checkpoint_every == 0) {
      clock.synchronize();
      model.settle();
      listener.checkpoint(done, model.save());
    }
    if (outputs_field &&
        (done == run.steps || (run.output_every > 0 && done % run.output_every == 0))) {
      clock.synchronize();
      model.settle();
      model.output(done);
    }
    step = done;
    ++frame;
    if (stopper) {
      if (const int signal = stopper->stop_now(frame - 1); signal != 0 && step < run.steps) {
        clock.synchronize();
        model.settle();
        throw Interrupted(signal, step, run.steps);
      }
    }
  }
  if (stopper) stopper->finish();
  clock.mark(step - first);
  clock.synchronize();
  model.settle();
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (wants.progress) report_progress();
  // The per-step times of the steps that advanced the state only: a step that does nothing
  // (after an end time) takes no time worth a percentile.
  std::vector<double> seconds = clock.step_seconds();
  int timed = step - first;
  if (const std::optional<int> advanced = model.steps_advanced()) {
    timed = std::clamp(*advanced - first, 0, timed);
    if (static_cast<std::size_t>(timed) < seconds.size()) {
      seconds.resize(static_cast<std::size_t>(timed));
    }
  }
  StepTimes times;
  static_cast<haloflow::StepTimes&>(times) =
      slowest_rank(summarize_steps(seconds, timed, total), communicator, run.exchange_timeout);
  times.overlap = overlap;
  times.launches = std::move(launches);
  return times;
}

}  // namespace haloflow::models
