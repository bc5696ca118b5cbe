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

//! The base every source shares: it is the NodeTimer the executor reports host work to, and
//! keeps those spans until stop().
class SpanSource : public NodeTimer {
 public:
  //! What measured the spans, for the outputs' readers.
  [[nodiscard]] virtual std::string_view clock() const = 0;
  //! Learns the frame's nodes (the graph source: their CUPTI ids). Once, before start().
  virtual void attach(Frame& frame) = 0;
  //! Turns recording on.
  virtual void start(Frame& frame) { frame.implementation().time_host_work(this); }
  //! Turns recording off; every span recorded since start().
  virtual std::vector<RawSpan> stop(Frame& frame) {
    frame.implementation().time_host_work(nullptr);
    return take_host_spans();
  }

  void ran(std::size_t node, std::uint64_t start_ns, std::uint64_t end_ns) noexcept override {
    const std::lock_guard lock(mutex_);
    try {
      host_spans_.push_back(RawSpan{node, start_ns, end_ns});
    } catch (...) {  // out of memory on a driver thread: counted, and reported by stop()
      ++lost_;
    }
  }

 protected:
  //! The host-work spans so far. \throws Error if any could not be kept.
  std::vector<RawSpan> take_host_spans();

 private:
  std::mutex mutex_;
  std::vector<RawSpan> host_spans_;
  std::size_t lost_ = 0;
};

//! Host executor: std::chrono::steady_clock.
std::unique_ptr<SpanSource> make_steady_span_source();
//! Graph executor: CUPTI (kernels and copies from activity records, host nodes time-stamped
//! with cuptiGetTimestamp). Subscribes to graph-node cloning at once, so create it before the
//! frame is instantiated. \throws Error when CUPTI cannot be used.
std::unique_ptr<SpanSource> make_cupti_span_source();

}  // namespace haloflow
