#pragma once
//! \file
//! \brief A cycle of frames (a model's two field sets: a -> b, then b -> a) run many times in one
//! launch: under the graph executor one cudaGraph whose CUDA WHILE node repeats the cycle and
//! counts the repetitions on the device, so that no launch and no gap separate the frames; under
//! the other executors the same frames launched one by one, the same bits. docs/architecture.md
//! ("Frames per launch") has the design.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "haloflow/frame.hpp"
#include "haloflow/plan.hpp"

struct CUstream_st;

namespace haloflow {

//! \brief Whether a plan can be a loop body, and if not, why: plain data, the same on every
//! machine, so that a run's header says it before any GPU is asked.
struct LoopVerdict {
  bool loops = true;   //!< the plan holds only what a CUDA conditional body may hold
  std::string reason;  //!< empty when it loops; else one phrase naming the node that stops it
};

//! \brief A CUDA conditional body holds kernels, device-to-device copies and empty nodes (and
//! child graphs, which the plan cannot name). A host node (the mpi exchange) loops only as the
//! proxy handoff lowers it (`handoff` proxy or automatic: a kernel, whose executions the progress
//! thread serves one by one), not as a CUDA host node; a stream node (NCCL captures what it likes)
//! and a copy to or from the host do not loop. The first node that does not is named.
[[nodiscard]] LoopVerdict can_loop(const FramePlan& plan, Handoff handoff = Handoff::host_node);

//! \brief Empty when frames of `kind` can repeat on the device in one launch; else why not (an
//! executor without graphs, a toolkit or driver without conditional nodes). Asks the driver only
//! for the graph executor.
[[nodiscard]] std::string device_loop_missing(ExecutorKind kind);

class LoopExecutor;

//! \brief A cycle of frames, launched `repetitions` times at once. Move-only; the frames must
//! outlive it. \post each frame of the cycle has run `repetitions` times, in cycle order, exactly
//! as that many launches of each in turn would have run them.
class FrameLoop {
 public:
  //! \brief Runs `cycle` (at least one frame, all of one executor) in order. On the graph
  //! executor, where every plan can_loop() with its frame's handoff and the device can, one graph
  //! with a WHILE node holds the whole cycle (lowered from the plans' current kernel parameters,
  //! again when a frame was updated since); otherwise (also where CUDA refuses to build that
  //! graph) the frames are launched one by one and fallback() says why.
  explicit FrameLoop(std::vector<Frame*> cycle);
  ~FrameLoop();
  //! \brief Takes over the cycle and its graph. \post the moved-from loop may only be destroyed
  //! or assigned to.
  FrameLoop(FrameLoop&&) noexcept;
  //! \brief Releases this loop's graph, then takes over the other's.
  //! \post the moved-from loop may only be destroyed or assigned to.
  FrameLoop& operator=(FrameLoop&&) noexcept;
  FrameLoop(const FrameLoop&) = delete;
  FrameLoop& operator=(const FrameLoop&) = delete;

  //! \brief Queues the cycle `repetitions` (>= 1) times on `stream` (null: the frames' own
  //! streams, or the loop's), after the work already queued there. \throws Error for
  //! `repetitions` < 1, or what a frame's launch throws.
  void launch(int repetitions, CUstream_st* stream);
  //! \brief Waits for the last launch and asks the frames' checks (the peer receive's).
  void wait();
  //! \brief True when a launch is one graph launch.
  [[nodiscard]] bool on_device() const { return fallback_.empty(); }
  //! \brief Why the frames are launched one by one; empty when on_device().
  [[nodiscard]] const std::string& fallback() const { return fallback_; }
  //! \brief The frames of the cycle, in order.
  [[nodiscard]] const std::vector<Frame*>& cycle() const { return cycle_; }

 private:
  void lower();

  std::vector<Frame*> cycle_;
  std::string fallback_;
  std::vector<std::uint64_t> lowered_updates_;  // each frame's Frame::updates() when lowered
  std::unique_ptr<LoopExecutor> device_;
};

}  // namespace haloflow
