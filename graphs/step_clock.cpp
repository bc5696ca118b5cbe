#include "haloflow/step_clock.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <deque>
#include <utility>

#include "cuda_owners.hpp"

namespace haloflow {

namespace {
constexpr int kMostMarkedSteps = 4096;
constexpr std::size_t kProgressMarkers = 16;  // pending markers before note_launched() waits
}  // namespace

// The clock's CUDA handles are owned (cuda_owners.hpp): a constructor that fails half way
// destroys what it had made, and the destructor has nothing left to do by hand.
struct StepClock::State {
  Backend backend = Backend::cpu;
  int marks = 0;  // steps marked + 1
  detail::Stream stream;
  std::vector<detail::Event> events;
  std::vector<std::chrono::steady_clock::time_point> times;
  std::vector<bool> marked;  // which boundaries were marked (a frame of k steps marks one of k)
  int last = -1;             // the highest mark recorded
  // Progress markers: a ring of events without timing; pending holds (done, marker index) in
  // order.
  std::vector<detail::Event> markers;
  std::deque<std::pair<int, std::size_t>> pending;
  std::size_t next_marker = 0;
  int finished = 0;
};

namespace {

// The launch stream: a blocking stream (cudaStreamCreate's kind), as frames were always queued on.
detail::Stream make_launch_stream() {
  cudaStream_t raw = nullptr;
  HALOFLOW_CUDA(cudaStreamCreate(&raw), "the model's launch stream");
  return {raw, "the model's launch stream"};
}

detail::Event make_timing_event() {
  cudaEvent_t raw = nullptr;
  HALOFLOW_CUDA(cudaEventCreate(&raw), "a step timing event");
  return {raw, "a step timing event"};
}

}  // namespace

StepClock::StepClock(Backend backend, int steps) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.backend = backend;
  s.marks = std::min(std::max(steps, 0), kMostMarkedSteps) + 1;
  s.marked.assign(static_cast<std::size_t>(s.marks), false);
  if (backend == Backend::cpu) {
    s.times.resize(static_cast<std::size_t>(s.marks));
    return;
  }
  s.stream = make_launch_stream();
  s.events.reserve(static_cast<std::size_t>(s.marks));
  for (int i = 0; i < s.marks; ++i) s.events.push_back(make_timing_event());
}

StepClock::~StepClock() = default;

CUstream_st* StepClock::stream() const {
  return state_->stream.get();
}

void StepClock::mark(int step) {
  State& s = *state_;
  if (step < 0 || step >= s.marks) return;
  s.last = std::max(s.last, step);
  s.marked[static_cast<std::size_t>(step)] = true;
  if (s.backend == Backend::cpu) {
    s.times[static_cast<std::size_t>(step)] = std::chrono::steady_clock::now();
  } else {
    HALOFLOW_CUDA(cudaEventRecord(s.events[static_cast<std::size_t>(step)].get(), s.stream.get()),
                  "a step timing event");
  }
}

void StepClock::synchronize() {
  if (state_->stream) {
    HALOFLOW_CUDA(cudaStreamSynchronize(state_->stream.get()), "the model's launch stream");
  }
}

void StepClock::note_launched(int done) {
  State& s = *state_;
  if (s.backend == Backend::cpu) {
    s.finished = std::max(s.finished, done);
    return;
  }
  if (s.markers.empty()) {
    s.markers.reserve(kProgressMarkers);
    for (std::size_t i = 0; i < kProgressMarkers; ++i) {
      s.markers.push_back(detail::make_ordering_event("a progress marker"));
    }
  }
  if (s.pending.size() == s.markers.size()) {
    const auto [oldest_done, oldest] = s.pending.front();
    HALOFLOW_CUDA(cudaEventSynchronize(s.markers[oldest].get()), "waiting for a progress marker");
    s.finished = std::max(s.finished, oldest_done);
    s.pending.pop_front();
  }
  // Markers are recorded round-robin and retired in order, so the pending ones are the last
  // pending.size() recorded and the next one in the ring is free.
  const std::size_t marker = s.next_marker;
  s.next_marker = (s.next_marker + 1) % s.markers.size();
  HALOFLOW_CUDA(cudaEventRecord(s.markers[marker].get(), s.stream.get()), "a progress marker");
  s.pending.emplace_back(done, marker);
}

int StepClock::finished() {
  State& s = *state_;
  while (!s.pending.empty()) {
    const auto [done, marker] = s.pending.front();
    const cudaError_t status = cudaEventQuery(s.markers[marker].get());
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
    HALOFLOW_CUDA(cudaEventElapsedTime(&ms, s.events[i].get(), s.events[j].get()), "step timing");
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

}  // namespace haloflow
