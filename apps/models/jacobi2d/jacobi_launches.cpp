// The launches of jacobi2d's k-step sweeps (the two-step sweep's and the deep sweep's), apart from
// the frames so that tools/labs/jacobi-deep-lab.cu launches the deep sweep as the model does
// without the models' library (whose kernels it compiles itself).

#include <fmt/format.h>

#include <algorithm>

#include "haloflow/error.hpp"
#include "jacobi_kernels.hpp"

namespace haloflow::kernels {
namespace {

// The two-step sweep's blocks: 4 warps wide (120 columns written), 2 rows of threads tall, as the
// one-step sweep's 128 x 2.
constexpr unsigned kTwoStepWarps = 4;
constexpr unsigned kTwoStepHeight = 2;
// CUDA's limit on grid.y: a launch with more bands gives each thread a longer run of rows.
constexpr std::int64_t kGridLimit = 65535;

}  // namespace

LaunchShape two_step_launch(const CellBox& box, unsigned rows_per_thread) {
  if (box.nx < 1 || box.ny < 1 || rows_per_thread < 1) {
    throw Error(fmt::format(
        "two_step_launch: a box of {} x {} cells with {} rows per thread is not allowed; expected "
        "at least one cell per axis and one row per thread",
        box.nx, box.ny, rows_per_thread));
  }
  constexpr std::int64_t kColumns = std::int64_t{kTwoStepWarps} * kTwoStepColumnsPerWarp;
  const std::int64_t columns = (box.nx + kColumns - 1) / kColumns;
  const std::int64_t band = std::int64_t{kTwoStepHeight} * rows_per_thread;
  const std::int64_t rows = std::min((box.ny + band - 1) / band, kGridLimit);
  return LaunchShape{.grid = {static_cast<unsigned>(columns), static_cast<unsigned>(rows), 1},
                     .block = {kTwoStepWarps * 32, kTwoStepHeight, 1}};
}

LaunchShape deep_launch(const CellBox& box, int depth, unsigned band_rows) {
  if (box.nx < 1 || box.ny < 1 || depth < 1) {
    throw Error(fmt::format(
        "deep_launch: a box of {} x {} cells for {} steps is not allowed; expected at least one "
        "cell per axis and one step",
        box.nx, box.ny, depth));
  }
  const std::int64_t warps_wide =
      (box.nx + deep_columns_per_warp(depth) - 1) / deep_columns_per_warp(depth);
  constexpr std::int64_t kWarpsPerBlock = kDeepBlockThreads / 32;
  const std::int64_t columns = (warps_wide + kWarpsPerBlock - 1) / kWarpsPerBlock;
  std::int64_t band = band_rows > 0 ? std::int64_t{band_rows} : 32 * std::int64_t{depth};
  const auto bands = [&] { return (box.ny + band - 1) / band; };
  while (band_rows == 0 && band > 4 * depth && warps_wide * bands() < kDeepWarpsWanted) band /= 2;
  const std::int64_t rows = std::min(bands(), kGridLimit);
  return LaunchShape{.grid = {static_cast<unsigned>(columns), static_cast<unsigned>(rows), 1},
                     .block = {kDeepBlockThreads, 1, 1}};
}

}  // namespace haloflow::kernels
