// The span sources' shared part, and the host executor's: spans on std::chrono::steady_clock.

#include "span_source.hpp"

#include <fmt/format.h>

#include <chrono>
#include <utility>

#include "haloflow/error.hpp"

namespace haloflow {

std::vector<RawSpan> SpanSource::take_host_spans() {
  const std::lock_guard lock(mutex_);
  if (lost_ > 0) {
    throw Error(fmt::format("{} host-work spans could not be kept (out of memory)", lost_));
  }
  return std::exchange(host_spans_, {});
}

namespace {

class SteadySpanSource final : public SpanSource {
 public:
  std::uint64_t now() noexcept override {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  }
  std::string_view clock() const override { return "host wall clock (std::chrono::steady_clock)"; }
};

}  // namespace

std::unique_ptr<SpanSource> make_steady_span_source() {
  return std::make_unique<SteadySpanSource>();
}

}  // namespace haloflow
