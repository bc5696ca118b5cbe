#include "handoff.hpp"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace haloflow::detail {
namespace {

//! One spin-loop pause: lets the other hyper-thread run and saves power, without a system call.
inline void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// An idle thread spins this long on an empty queue before it sleeps: a frame launched right after
// the previous one finished (launch, wait, launch...) then finds it awake, with no futex wake-up
// (5-50 us) between its doorbell and its host work.
constexpr auto kIdleSpin = std::chrono::microseconds(200);

}  // namespace

bool serve_job(const HandoffJob& job) {
  // Spin on the doorbell. Every 1024 pauses (about 30 us) check whether the executor gave up on
  // the job, and yield, so a thread far ahead of the GPU shares its core.
  for (unsigned spins = 1; load(job.slot->doorbell) < job.sequence; ++spins) {
    pause();
    if (spins % 1024 == 0) {
      if (job.ledger->abandoned.load(std::memory_order_acquire)) return false;
      std::this_thread::yield();
    }
  }
  const std::uint64_t start = job.timer != nullptr ? job.timer->now() : 0;
  HostCallback::invoke(job.callback);  // skips the work when the frame's run has failed already
  if (job.timer != nullptr) job.timer->ran(job.node, start, job.timer->now());
  store(job.slot->release, job.sequence);
  return true;
}

std::shared_ptr<ProgressThread> ProgressThread::shared() {
  static std::mutex mutex;
  static std::weak_ptr<ProgressThread> instance;
  const std::lock_guard lock(mutex);
  std::shared_ptr<ProgressThread> thread = instance.lock();
  if (!thread) {
    thread = std::make_shared<ProgressThread>();
    instance = thread;
  }
  return thread;
}

ProgressThread::ProgressThread() : thread_([this](const std::stop_token& stop) { serve(stop); }) {}

ProgressThread::~ProgressThread() {
  thread_.request_stop();  // condition_variable_any wakes on a stop request
  thread_.join();
}

void ProgressThread::submit(const HandoffJob& job) {
  job.ledger->submitted.fetch_add(1, std::memory_order_relaxed);
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(job);
  }
  queued_.fetch_add(1, std::memory_order_release);
  wake_.notify_one();
}

bool ProgressThread::next(HandoffJob& job, const std::stop_token& stop) {
  const auto spin_until = std::chrono::steady_clock::now() + kIdleSpin;
  while (queued_.load(std::memory_order_acquire) == 0 &&
         std::chrono::steady_clock::now() < spin_until && !stop.stop_requested()) {
    pause();
  }
  std::unique_lock lock(mutex_);
  if (!wake_.wait(lock, stop, [this] { return !queue_.empty(); })) return false;  // stopping
  job = queue_.front();
  queue_.pop_front();
  queued_.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void ProgressThread::serve(const std::stop_token& stop) {
  HandoffJob job;
  while (next(job, stop)) {
    (void)serve_job(job);
    job.ledger->served.fetch_add(1, std::memory_order_release);
  }
}

}  // namespace haloflow::detail
