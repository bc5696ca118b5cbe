#include "copy_bandwidth.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "copy_kernel.hpp"
#include "haloflow/buffer.hpp"
#include "haloflow/device.hpp"
#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

namespace haloflow::models {
namespace {

// Large enough that a launch's overhead is a few per cent of one copy, small enough for any GPU,
// and far larger than any L2.
constexpr std::size_t kDramBytes = std::size_t{256} << 20;
constexpr int kDramCopies = 8;  // per frame, one after another
constexpr int kLaunches = 5;    // the fastest counts; the first pays for set-up

// Bytes a second read and written by a graph frame of `copies` copy kernels over two buffers of
// `bytes`, the fastest of kLaunches launches.
double copy_rate(std::size_t bytes, int copies) {
  const Buffer a(Memory::device, bytes, "copy bandwidth a", Backend::cuda);
  const Buffer b(Memory::device, bytes, "copy bandwidth b", Backend::cuda);
  const auto words = static_cast<std::int64_t>(bytes / 16);
  const auto device = current_device();
  // The kernel labs' launch: 8 blocks of 256 threads an SM.
  const LaunchShape shape =
      LaunchShape::fixed(static_cast<unsigned>(8 * (device ? device->multiprocessors : 1)), 256);
  FramePlan plan("copy bandwidth");
  std::string previous;
  for (int k = 0; k < copies; ++k) {
    const std::string name = fmt::format("copy.{}", k);
    NodeOptions options{.name = name};
    if (!previous.empty()) options.after = {previous};
    // Back and forth, so that no copy reads what the one before it is still writing.
    const Buffer& from = k % 2 == 0 ? a : b;
    const Buffer& to = k % 2 == 0 ? b : a;
    plan.add_kernel(std::move(options), copy_kernel(), shape, words, from.data(), to.data());
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
  return 2.0 * static_cast<double>(words) * 16 * copies / fastest;  // each reads and writes
}

}  // namespace

CopyRates measure_copy_rates() {
  if (!gpu_available()) return {};
  CopyRates rates;
  rates.dram_Bps = copy_rate(kDramBytes, kDramCopies);
  rates.l2_bytes = l2_cache_bytes();
  const std::size_t l2_buffer = l2_copy_buffer_bytes(rates.l2_bytes);
  if (l2_buffer > 0) {
    rates.l2_Bps = copy_rate(l2_buffer, copies_moving(double{kDramBytes} * kDramCopies, l2_buffer));
  }
  return rates;
}

double measure_copy_bandwidth() {
  return gpu_available() ? copy_rate(kDramBytes, kDramCopies) : 0;
}

}  // namespace haloflow::models
