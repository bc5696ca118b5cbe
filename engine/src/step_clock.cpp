#include "haloflow/step_clock.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <utility>

#include "cuda_check.hpp"
#include "haloflow/bounded_mpi.hpp"
#include "haloflow/mpi_session.hpp"
#include "haloflow/overlap.hpp"

namespace haloflow {

namespace {
constexpr int kMostMarkedSteps = 4096;
constexpr std::size_t kProgressMarkers = 16;  // pending markers before note_launched() waits
}  // namespace

struct StepClock::State {
  Backend backend = Backend::cpu;
  int marks = 0;  // steps marked + 1
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> events;
  std::vector<std::chrono::steady_clock::time_point> times;
  std::vector<bool> marked;  // which boundaries were marked (a frame of k steps marks one of k)
  int last = -1;             // the highest mark recorded
  // Progress markers: a ring of events without timing; pending holds (done, event) in order.
  std::vector<cudaEvent_t> markers;
  std::deque<std::pair<int, cudaEvent_t>> pending;
  std::size_t next_marker = 0;
  int finished = 0;
};

StepClock::StepClock(Backend backend, int steps) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.backend = backend;
  s.marks = std::min(std::max(steps, 0), kMostMarkedSteps) + 1;
  s.marked.assign(static_cast<std::size_t>(s.marks), false);
  if (backend == Backend::cpu) {
    s.times.resize(static_cast<std::size_t>(s.marks));
    return;
  }
  HALOFLOW_CUDA(cudaStreamCreate(&s.stream), "the model's launch stream");
  s.events.resize(static_cast<std::size_t>(s.marks), nullptr);
  for (auto& event : s.events) HALOFLOW_CUDA(cudaEventCreate(&event), "a step timing event");
}

StepClock::~StepClock() {
  for (auto* event : state_->events) {
    if (event != nullptr) HALOFLOW_CUDA_NOTHROW(cudaEventDestroy(event), "a step timing event");
  }
  for (auto* event : state_->markers) {
    HALOFLOW_CUDA_NOTHROW(cudaEventDestroy(event), "a progress marker");
  }
  if (state_->stream != nullptr) {
    HALOFLOW_CUDA_NOTHROW(cudaStreamDestroy(state_->stream), "the model's launch stream");
  }
}

CUstream_st* StepClock::stream() const {
  return state_->stream;
}

void StepClock::mark(int step) {
  State& s = *state_;
  if (step < 0 || step >= s.marks) return;
  s.last = std::max(s.last, step);
  s.marked[static_cast<std::size_t>(step)] = true;
  if (s.backend == Backend::cpu) {
    s.times[static_cast<std::size_t>(step)] = std::chrono::steady_clock::now();
  } else {
    HALOFLOW_CUDA(cudaEventRecord(s.events[static_cast<std::size_t>(step)], s.stream),
                  "a step timing event");
  }
}

void StepClock::synchronize() {
  if (state_->stream != nullptr) {
    HALOFLOW_CUDA(cudaStreamSynchronize(state_->stream), "the model's launch stream");
  }
}

void StepClock::note_launched(int done) {
  State& s = *state_;
  if (s.backend == Backend::cpu) {
    s.finished = std::max(s.finished, done);
    return;
  }
  if (s.markers.empty()) {
    s.markers.resize(kProgressMarkers, nullptr);
    for (auto& event : s.markers) {
      HALOFLOW_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "a progress marker");
    }
  }
  if (s.pending.size() == s.markers.size()) {
    const auto [oldest_done, oldest] = s.pending.front();
    HALOFLOW_CUDA(cudaEventSynchronize(oldest), "waiting for a progress marker");
    s.finished = std::max(s.finished, oldest_done);
    s.pending.pop_front();
  }
  // Markers are recorded round-robin and retired in order, so the pending ones are the last
  // pending.size() recorded and the next one in the ring is free.
  cudaEvent_t event = s.markers[s.next_marker];
  s.next_marker = (s.next_marker + 1) % s.markers.size();
  HALOFLOW_CUDA(cudaEventRecord(event, s.stream), "a progress marker");
  s.pending.emplace_back(done, event);
}

int StepClock::finished() {
  State& s = *state_;
  while (!s.pending.empty()) {
    const auto [done, event] = s.pending.front();
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaErrorNotReady) break;
    HALOFLOW_CUDA(status, "cudaEventQuery on a progress marker");
    s.finished = std::max(s.finished, done);
    s.pending.pop_front();
  }
  return s.finished;
}

std::vector<double> StepClock::step_seconds() const {
  const State& s = *state_;
  const auto seconds_between = [&](int from, int to) {
    const auto i = static_cast<std::size_t>(from);
    const auto j = static_cast<std::size_t>(to);
    if (s.backend == Backend::cpu) {
      return std::chrono::duration<double>(s.times[j] - s.times[i]).count();
    }
    float ms = 0;
    HALOFLOW_CUDA(cudaEventElapsedTime(&ms, s.events[i], s.events[j]), "step timing");
    return 1e-3 * static_cast<double>(ms);
  };
  std::vector<double> seconds;
  int from = 0;
  for (int to = 1; to <= s.last; ++to) {
    if (!s.marked[static_cast<std::size_t>(to)]) continue;
    // A frame of several steps: each of its steps took an equal share.
    const double share = seconds_between(from, to) / (to - from);
    seconds.insert(seconds.end(), static_cast<std::size_t>(to - from), share);
    from = to;
  }
  return seconds;
}

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
