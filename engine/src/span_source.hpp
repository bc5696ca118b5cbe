#pragma once
// Where a FrameRecorder's spans come from: a clock, and the machinery that reports node runs on
// it (the executor's host-work timing, plus CUPTI activity records on the GPU). Internal header.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "executor.hpp"
#include "haloflow/frame.hpp"

namespace haloflow {

//! One run of plan node `node`, on the source's clock, not yet placed in a frame.
struct RawSpan {
  std::size_t node = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

//! The base every source shares: it keeps the spans of host work the executors report (one
//! NodeTimer per recorded frame, which numbers the frame's nodes after those of the frames before
//! it) until stop().
class SpanSource {
 public:
  virtual ~SpanSource() = default;
  SpanSource() = default;
  SpanSource(const SpanSource&) = delete;
  SpanSource& operator=(const SpanSource&) = delete;
  SpanSource(SpanSource&&) = delete;
  SpanSource& operator=(SpanSource&&) = delete;

  //! The source's clock, nanoseconds.
  [[nodiscard]] virtual std::uint64_t now() noexcept = 0;
  //! What measured the spans, for the outputs' readers.
  [[nodiscard]] virtual std::string_view clock() const = 0;
  //! Learns the frames' nodes (the graph source: their CUPTI ids); frame i's nodes are numbered
  //! from first_node(i). Once, before start().
  virtual void attach(const std::vector<Frame*>& frames) {
    std::size_t first = 0;
    for (Frame* frame : frames) {
      timers_.push_back(std::make_unique<FrameTimer>(*this, first));
      first += frame->plan().nodes().size();
    }
  }
  //! Turns recording on.
  virtual void start(const std::vector<Frame*>& frames) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      detail::executor_of(*frames[i]).time_host_work(timers_.at(i).get());
    }
  }
  //! Turns recording off; every span recorded since start().
  virtual std::vector<RawSpan> stop(const std::vector<Frame*>& frames) {
    for (Frame* frame : frames) detail::executor_of(*frame).time_host_work(nullptr);
    return take_host_spans();
  }

  //! A run of node `node` (numbered across the frames), from a driver or host thread.
  void ran(std::size_t node, std::uint64_t start_ns, std::uint64_t end_ns) noexcept {
    const std::lock_guard lock(mutex_);
    try {
      host_spans_.push_back(RawSpan{node, start_ns, end_ns});
    } catch (...) {  // out of memory on a driver thread: counted, and reported by stop()
      ++lost_;
    }
  }

 protected:
  //! The number of frame `frame`'s first node among all the frames' nodes.
  [[nodiscard]] std::size_t first_node(std::size_t frame) const { return timers_.at(frame)->first; }
  //! The host-work spans so far. \throws Error if any could not be kept.
  std::vector<RawSpan> take_host_spans();

 private:
  // What one frame's executor reports to: its node numbers, moved past the frames before it.
  struct FrameTimer final : NodeTimer {
    FrameTimer(SpanSource& source_, std::size_t first_) : source(source_), first(first_) {}
    std::uint64_t now() noexcept override { return source.now(); }
    void ran(std::size_t node, std::uint64_t start_ns, std::uint64_t end_ns) noexcept override {
      source.ran(first + node, start_ns, end_ns);
    }
    SpanSource& source;
    std::size_t first;
  };

  std::vector<std::unique_ptr<FrameTimer>> timers_;  // one per frame, at a stable address
  std::mutex mutex_;
  std::vector<RawSpan> host_spans_;
  std::size_t lost_ = 0;
};

//! Host executor: std::chrono::steady_clock.
std::unique_ptr<SpanSource> make_steady_span_source();

}  // namespace haloflow
