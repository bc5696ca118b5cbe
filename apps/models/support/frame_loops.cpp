#include "frame_loops.hpp"

#include <fmt/format.h>

namespace haloflow::models {

std::string frames_per_launch_line(int frames_per_launch, const std::string& fallback) {
  if (frames_per_launch <= 1) return {};
  if (!fallback.empty()) {
    return fmt::format("frames per launch: 1 of the {} asked (run.frames_per_launch): {}",
                       frames_per_launch, fallback);
  }
  return fmt::format(
      "frames per launch: {} (run.frames_per_launch): a CUDA graph WHILE node repeats the frames "
      "of both field sets on the GPU; a launch ends early at norms, outputs, checkpoints and "
      "progress reports",
      frames_per_launch);
}

FrameLoops::FrameLoops(int frames_per_launch, const std::array<std::array<Frame*, 2>, 2>& cycles)
    : frames_per_launch_(frames_per_launch) {
  for (std::size_t parity = 0; parity < 2; ++parity) {
    loops_[parity].emplace(std::vector<Frame*>{cycles[parity][0], cycles[parity][1]});
  }
}

void FrameLoops::launch(int frames, std::size_t parity, CUstream_st* stream) {
  FrameLoop& loop = *loops_[parity];
  if (frames >= 2) loop.launch(frames / 2, stream);
  // An even number of frames leaves the field in set `parity`: an odd last frame starts there.
  if (frames % 2 == 1) loop.cycle().front()->launch(stream);
}

void FrameLoops::wait() {
  for (auto& loop : loops_) loop->wait();
}

std::string FrameLoops::line() const {
  return frames_per_launch_line(frames_per_launch_, loops_[0]->fallback());
}

}  // namespace haloflow::models
