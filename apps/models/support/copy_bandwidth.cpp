#include "copy_bandwidth.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "haloflow/buffer.hpp"
#include "haloflow/device.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

namespace haloflow::models {

double measure_copy_bandwidth() {
  if (!gpu_available()) return 0;
  // Large enough that a launch's overhead is a few per cent of one copy, small enough for any GPU.
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  constexpr int kCopies = 8;    // per frame, one after another
  constexpr int kLaunches = 5;  // the fastest counts; the first pays for set-up
  const Buffer a(Memory::device, kBytes, "copy bandwidth a", Backend::cuda);
  const Buffer b(Memory::device, kBytes, "copy bandwidth b", Backend::cuda);
  FramePlan plan("copy bandwidth");
  std::string previous;
  for (int k = 0; k < kCopies; ++k) {
    const std::string name = fmt::format("copy.{}", k);
    NodeOptions options{.name = name};
    if (!previous.empty()) options.after = {previous};
    // Back and forth, so that no copy reads what the one before it is still writing.
    plan.add_copy(std::move(options), (k % 2 == 0 ? b : a).view(), (k % 2 == 0 ? a : b).view(),
                  kBytes);
    previous = name;
  }
  Frame frame(std::move(plan), ExecutorKind::graph);
  double fastest = 0;
  for (int launch = 0; launch <= kLaunches; ++launch) {
    const auto start = std::chrono::steady_clock::now();
    frame.run();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (launch > 0 && (fastest == 0 || seconds < fastest)) fastest = seconds;
  }
  return 2.0 * kBytes * kCopies / fastest;  // each copy reads and writes kBytes
}

}  // namespace haloflow::models
