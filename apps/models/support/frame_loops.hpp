#pragma once
//! \file
//! \brief run.frames_per_launch for a model whose frames alternate between two field sets: the
//! cycle from either set as a FrameLoop (haloflow/frame_loop.hpp), how many frames a launch takes
//! up to the next step the loop must see, and the run header's line.

#include <array>
#include <optional>
#include <string>

#include "haloflow/frame_loop.hpp"

struct CUstream_st;

namespace haloflow::models {

//! \brief The header's line for `frames_per_launch` frames a launch: empty for 1 (the shape every
//! run had), else what a launch holds or, after `fallback`, why the frames go one by one.
[[nodiscard]] std::string frames_per_launch_line(int frames_per_launch,
                                                 const std::string& fallback);

//! \brief How many frames of `steps_per_frame` steps, at most `frames_per_launch`, fit in `most`
//! steps without a frame holding a step where `stops(step)` (a norm step: its own frame) is true.
template <class Stops>
[[nodiscard]] int frames_that_fit(int frames_per_launch, int steps_per_frame, int step, int most,
                                  Stops stops) {
  int frames = 0;
  while (frames < frames_per_launch && (frames + 1) * steps_per_frame <= most) {
    const int first = step + frames * steps_per_frame;
    for (int s = first; s < first + steps_per_frame; ++s) {
      if (stops(s)) return frames;
    }
    ++frames;
  }
  return frames;
}

//! \brief A model's frames of one kind as loops: `cycles[p]` is the pair of frames that starts
//! from field set p (set p's frame, then the one that follows it). Built only for
//! frames_per_launch > 1, after the frames are patched.
class FrameLoops {
 public:
  FrameLoops(int frames_per_launch, const std::array<std::array<Frame*, 2>, 2>& cycles);

  //! \brief Queues `frames` (>= 1) frames from field set `parity` on: their pairs in one launch,
  //! an odd last one alone after them.
  void launch(int frames, std::size_t parity, CUstream_st* stream);
  //! \brief Waits for the loops' launches (FrameLoop::wait).
  void wait();
  //! \brief The header's line (frames_per_launch_line).
  [[nodiscard]] std::string line() const;
  [[nodiscard]] int frames_per_launch() const { return frames_per_launch_; }

 private:
  int frames_per_launch_ = 1;
  std::array<std::optional<FrameLoop>, 2> loops_;
};

}  // namespace haloflow::models
