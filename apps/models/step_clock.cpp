#include "step_clock.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>

#include "cuda_check.hpp"

namespace haloflow::models {

namespace {
constexpr int kMostMarkedSteps = 4096;
}

struct StepClock::State {
  Backend backend = Backend::cpu;
  int marks = 0;  // steps marked + 1
  cudaStream_t stream = nullptr;
  std::vector<cudaEvent_t> events;
  std::vector<std::chrono::steady_clock::time_point> times;
  int last = -1;  // the highest mark recorded
};

StepClock::StepClock(Backend backend, int steps) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.backend = backend;
  s.marks = std::min(std::max(steps, 0), kMostMarkedSteps) + 1;
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

std::vector<double> StepClock::step_seconds() const {
  const State& s = *state_;
  std::vector<double> seconds;
  for (int step = 0; step < s.last; ++step) {
    const auto i = static_cast<std::size_t>(step);
    if (s.backend == Backend::cpu) {
      seconds.push_back(std::chrono::duration<double>(s.times[i + 1] - s.times[i]).count());
    } else {
      float ms = 0;
      HALOFLOW_CUDA(cudaEventElapsedTime(&ms, s.events[i], s.events[i + 1]), "step timing");
      seconds.push_back(1e-3 * ms);
    }
  }
  return seconds;
}

}  // namespace haloflow::models
